package main

import (
	"bytes"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/agentls/agentls/internal/testwait"
	"github.com/agentls/agentls/tools/mcp"
	"github.com/agentls/agentls/tools/mcp/mcptest"
)

// browserWriter is stderr for the CLI under test: when the CLI prints an
// authorization address, it "opens" it as a browser would (following the
// redirect to the CLI's loopback listener).
type browserWriter struct {
	mu  sync.Mutex
	buf bytes.Buffer
	wg  sync.WaitGroup
}

func (b *browserWriter) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, line := range strings.Split(string(p), "\n") {
		if u := strings.TrimSpace(line); strings.HasPrefix(u, "http://") && strings.Contains(u, "/authorize?") {
			b.wg.Add(1)
			go func() {
				defer b.wg.Done()
				if resp, err := http.Get(u); err == nil {
					_, _ = io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
				}
			}()
		}
	}
	return b.buf.Write(p)
}

// TestMCPLoginLogout: `agentls mcp login` signs in to a server behind a
// local authorization server and keeps the token owner-only in the state
// directory, so `mcp list` (which never opens a browser) connects;
// `logout` forgets it and list then says to log in.
func TestMCPLoginLogout(t *testing.T) {
	a := mcptest.StartOAuth(t)
	dir := mcpWorkspace(t, map[string]mcp.ServerConfig{"secure": {Type: "http", URL: a.ResourceURL}})
	var out bytes.Buffer
	errw := &browserWriter{}
	code := run([]string{"mcp", "--trust-workspace", "login", "secure", "--dir", dir}, strings.NewReader(""), &out, errw)
	errw.wg.Wait()
	if code != 0 || out.String() != "secure: signed in; 8 tools\n" || !strings.Contains(errw.buf.String(), "asks you to sign in") {
		t.Fatalf("login: exit %d, stdout %q, stderr %s", code, out.String(), errw.buf.String())
	}
	tokenFile := filepath.Join(os.Getenv("XDG_STATE_HOME"), "agentls", "mcp-auth", "secure.json")
	if fi, err := os.Stat(tokenFile); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("token file: %v %v", fi, err)
	}
	if code, out, errs := runMCP("list", "--dir", dir, "--timeout", "10s"); code != 0 || !strings.Contains(out, "secure: ready (8 tools)") {
		t.Errorf("list after login: exit %d\n%s\n%s", code, out, errs)
	}
	if code, out, _ := runMCP("logout", "secure"); code != 0 || out != "secure: signed out\n" {
		t.Errorf("logout: exit %d, %q", code, out)
	}
	if _, err := os.Stat(tokenFile); !os.IsNotExist(err) {
		t.Errorf("token file still there: %v", err)
	}
	if code, out, _ := runMCP("list", "--dir", dir, "--timeout", "10s"); code != 1 || !strings.Contains(out, "agentls mcp login") {
		t.Errorf("list after logout: exit %d\n%s", code, out)
	}
	if n := len(a.Authorizations()); n != 1 {
		t.Errorf("%d authorizations, want 1", n)
	}
}

// N4: `agentls mcp login` checks the authorization address before printing
// it or starting the desktop's opener: vscode://, file://, javascript: and
// "--help" are refused with a clear error and xdg-open never runs; an https
// (here loopback http) address is handed to xdg-open as its one argument.
func TestMCPLoginOpensOnlySafeAddresses(t *testing.T) {
	bin := t.TempDir()
	record := filepath.Join(t.TempDir(), "xdg-open.args")
	writeFile(t, filepath.Join(bin, "xdg-open"), "#!/bin/sh\nfor a in \"$@\"; do printf '%s\\n' \"$a\" >> '"+record+"'; done\n", 0o755)
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	t.Setenv("DISPLAY", ":99")
	for _, ep := range []string{"vscode://vscode.git/clone?url=x", "file:///etc/passwd", "javascript:alert(1)", "--help"} {
		a := mcptest.StartOAuth(t)
		a.SetAuthorizationEndpoint(ep)
		dir := mcpWorkspace(t, map[string]mcp.ServerConfig{"secure": {Type: "http", URL: a.ResourceURL}})
		var out, errb bytes.Buffer
		code := run([]string{"mcp", "--trust-workspace", "login", "secure", "--dir", dir}, strings.NewReader(""), &out, &errb)
		if code != 1 || !strings.Contains(errb.String(), "authorization_endpoint was refused") || strings.Contains(errb.String(), "Open this address") {
			t.Errorf("%s: exit %d, stderr %s", ep, code, errb.String())
		}
		if _, err := os.Stat(record); !os.IsNotExist(err) {
			t.Fatalf("%s: xdg-open ran with %q", ep, readFile(t, record))
		}
	}
	a := mcptest.StartOAuth(t)
	dir := mcpWorkspace(t, map[string]mcp.ServerConfig{"secure": {Type: "http", URL: a.ResourceURL}})
	errw := &browserWriter{}
	if code := run([]string{"mcp", "--trust-workspace", "login", "secure", "--dir", dir}, strings.NewReader(""), &bytes.Buffer{}, errw); code != 0 {
		t.Fatalf("login: exit %d\n%s", code, errw.buf.String())
	}
	errw.wg.Wait()
	// xdg-open is started, not waited for.
	args := strings.Split(strings.TrimSpace(testwait.File(t, record)), "\n")
	if len(args) != 1 || !strings.HasPrefix(args[0], a.AuthURL+"/authorize?") {
		t.Fatalf("xdg-open got %q", args)
	}
}
