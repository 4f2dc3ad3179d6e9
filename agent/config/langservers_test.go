package config

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

func TestLanguageServersShapes(t *testing.T) {
	f := newFixture(t)
	f.user(`{"languageServers": {"gopls": {"initializationOptions": {"staticcheck": true}}, "clangd": false,
		"zig": {"command": ["zls"], "extensions": [".zig"], "env": {"ZIG_TOKEN": "secret"}}, "broken": {"command": ["x"]}},
		"languageServerWaitSeconds": 2}`)
	c, warns, err := f.load("")
	if err != nil {
		t.Fatal(err)
	}
	ls := c.LanguageServers
	if ls.Off || ls.Servers["clangd"] != nil || ls.Servers["gopls"].InitializationOptions["staticcheck"] != true || ls.Servers["zig"].Command[0] != "zls" {
		t.Fatalf("languageServers = %+v", ls)
	}
	if _, ok := ls.Servers["clangd"]; !ok {
		t.Fatal("clangd: false lost")
	}
	if _, ok := ls.Servers["broken"]; ok || !slices.ContainsFunc(warns, func(w string) bool {
		return strings.Contains(w, `languageServers.broken`) && strings.Contains(w, "skipped")
	}) {
		t.Fatalf("broken entry kept or not reported: %v", warns)
	}
	if c.LanguageServerWaitSeconds != 2 || c.LanguageServerIdleSeconds != 300 {
		t.Fatalf("wait %d idle %d", c.LanguageServerWaitSeconds, c.LanguageServerIdleSeconds)
	}
	if r := c.Redacted(); r.LanguageServers.Servers["zig"].Env["ZIG_TOKEN"] != "[REDACTED]" || c.LanguageServers.Servers["zig"].Env["ZIG_TOKEN"] != "secret" {
		t.Fatal("env not redacted in the copy, or redacted in place")
	}
	b, _ := json.Marshal(c.LanguageServers)
	if !strings.Contains(string(b), `"clangd":false`) {
		t.Fatalf("marshal: %s", b)
	}

	// false turns everything off; a later object does not turn it on again.
	f = newFixture(t)
	f.user(`{"languageServers": false}`)
	c, _, _ = f.load(`{"languageServers": {"gopls": false}}`)
	if !c.LanguageServers.Off {
		t.Fatalf("an object after false turned servers on: %+v", c.LanguageServers)
	}
	c, _, _ = f.load(`{"languageServers": true}`)
	if c.LanguageServers.Off {
		t.Fatal("true did not turn servers back on")
	}
	// Wrong types warn and are ignored.
	_, warns, _ = f.load(`{"languageServers": "yes"}`)
	if !slices.ContainsFunc(warns, func(w string) bool { return strings.Contains(w, "languageServers: expected false or an object") }) {
		t.Fatalf("warnings: %v", warns)
	}
}

// TestLanguageServersNeedTrust: a workspace's entries start programs, so
// they wait for trust; turning servers off does not.
func TestLanguageServersNeedTrust(t *testing.T) {
	f := newFixture(t)
	f.folder(`{"languageServers": {"gopls": {"command": ["./evil-gopls"]}, "pyright": false}, "languageServerWaitSeconds": 3}`)
	c, warns, _ := f.load("")
	if c.LanguageServers.Servers["gopls"] != nil {
		t.Fatalf("untrusted workspace entry applied: %+v", c.LanguageServers.Servers["gopls"])
	}
	if e, ok := c.LanguageServers.Servers["pyright"]; !ok || e != nil {
		t.Fatal("pyright: false from the workspace not applied")
	}
	if c.LanguageServerWaitSeconds != 3 {
		t.Fatal("a lower wait from the workspace not applied")
	}
	u := c.Untrusted()
	if len(u) != 1 || !slices.Contains(u[0].Keys, "languageServers.gopls") || !slices.ContainsFunc(u[0].Actions, func(a string) bool {
		return strings.Contains(a, `run the command ./evil-gopls (language server "gopls")`)
	}) {
		t.Fatalf("untrusted = %+v, warnings %v", u, warns)
	}
	f.trusted = func(string, string) bool { return true }
	c, _, _ = f.load("")
	if e := c.LanguageServers.Servers["gopls"]; e == nil || e.Command[0] != "./evil-gopls" {
		t.Fatalf("trusted entry not applied: %+v", e)
	}
	// A workspace that turns everything back on needs trust too.
	f = newFixture(t)
	f.user(`{"languageServers": false}`)
	f.folder(`{"languageServers": true}`)
	if c, _, _ = f.load(""); !c.LanguageServers.Off {
		t.Fatal("an untrusted workspace turned language servers back on")
	}
}
