package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentls/agentls/tools/mcp"
	"github.com/agentls/agentls/tools/mcp/mcptest"
)

// mcpWorkspace writes servers into DIR/.agentls/config.json, isolated from
// the user's own config file.
func mcpWorkspace(t *testing.T, servers map[string]mcp.ServerConfig) string {
	t.Helper()
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, ".agentls"), 0o755); err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(map[string]any{"mcpServers": servers})
	if err := os.WriteFile(filepath.Join(dir, ".agentls", "config.json"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// runMCP runs `agentls mcp --trust-workspace ARGS…`: the servers under
// test come from the workspace file, which is trusted for the invocation.
func runMCP(args ...string) (code int, stdout, stderr string) {
	return runMCPTrust(true, args...)
}

func runMCPTrust(trust bool, args ...string) (code int, stdout, stderr string) {
	var out, errb bytes.Buffer
	pre := []string{"mcp"}
	if trust {
		pre = append(pre, "--trust-workspace")
	}
	code = run(append(pre, args...), strings.NewReader(""), &out, &errb)
	return code, out.String(), errb.String()
}

// Workspace MCP servers do not start unless the workspace file is trusted:
// without a terminal to ask on and without --trust-workspace, the command
// never runs and stderr says why.
func TestMCPUntrustedWorkspaceServersDoNotStart(t *testing.T) {
	marker := filepath.Join(t.TempDir(), "marker")
	dir := mcpWorkspace(t, map[string]mcp.ServerConfig{"pwn": {Command: "sh", Args: []string{"-c", "touch " + marker}}})
	code, out, errs := runMCPTrust(false, "list", "--dir", dir, "--timeout", "5s")
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("an untrusted workspace MCP server ran its command")
	}
	if code != 0 || !strings.Contains(out, "no MCP servers configured") ||
		!strings.Contains(errs, "ignoring mcpServers.pwn until you trust this file") || !strings.Contains(errs, "--trust-workspace") {
		t.Fatalf("code %d\nstdout:\n%s\nstderr:\n%s", code, out, errs)
	}
	// Trusted for the invocation: the server starts (and fails to speak
	// MCP, which is fine: the command ran).
	runMCPTrust(true, "list", "--dir", dir, "--timeout", "5s")
	if _, err := os.Stat(marker); err != nil {
		t.Fatal("--trust-workspace did not start the workspace server")
	}
}

func TestMCPList(t *testing.T) {
	url := mcptest.StartHTTP(t, mcptest.NewServer(mcptest.Options{}))
	dir := mcpWorkspace(t, map[string]mcp.ServerConfig{
		"helper": {Type: "http", URL: url},
		"broken": {Command: filepath.Join(t.TempDir(), "no-such-server")},
		"off":    {Command: "x", Disabled: true},
	})
	code, out, errs := runMCP("list", "--dir", dir, "--timeout", "10s")
	if code != 1 {
		t.Errorf("exit %d with a failed server, want 1 (stderr %s)", code, errs)
	}
	for _, want := range []string{"helper: ready (8 tools)\n", "  mcp__helper__echo  ", "Echo the text back.\n", "broken: failed: start ",
		"no-such-server: no such file or directory\n", "off: disabled\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("list output lacks %q:\n%s", want, out)
		}
	}
}

func TestMCPCall(t *testing.T) {
	url := mcptest.StartHTTP(t, mcptest.NewServer(mcptest.Options{}))
	dir := mcpWorkspace(t, map[string]mcp.ServerConfig{"helper": {Type: "http", URL: url}})

	code, out, errs := runMCP("call", "--dir", dir, "helper", "echo", `{"text":"héllo"}`)
	if code != 0 || out != "helper: héllo\n" {
		t.Errorf("call echo: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	// By registry name, flags after the arguments, default arguments.
	code, out, _ = runMCP("call", "helper", "mcp__helper__weird_name_with_spaces", "--dir", dir)
	if code != 0 || out != "weird ok\n" {
		t.Errorf("call by registry name: exit %d, stdout %q", code, out)
	}
	code, out, errs = runMCP("call", "--dir", dir, "helper", "fail")
	if code != 1 || out != "" || !strings.Contains(errs, "the widget is broken") {
		t.Errorf("isError: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	code, _, errs = runMCP("call", "--dir", dir, "helper", "nope")
	if code != 1 || !strings.Contains(errs, `no tool "nope"`) || !strings.Contains(errs, "mcp__helper__echo") {
		t.Errorf("unknown tool: exit %d, stderr %q", code, errs)
	}
	code, _, errs = runMCP("call", "--dir", dir, "other", "echo")
	if code != 2 || !strings.Contains(errs, `no server "other" configured (configured: helper)`) {
		t.Errorf("unknown server: exit %d, stderr %q", code, errs)
	}
	code, _, errs = runMCP("call", "--dir", dir, "helper", "echo", `{"text":`)
	if code != 2 || !strings.Contains(errs, "JSON object") {
		t.Errorf("bad JSON: exit %d, stderr %q", code, errs)
	}
}

func TestMCPUsage(t *testing.T) {
	dir := mcpWorkspace(t, nil)
	if code, _, _ := runMCP(); code != 2 {
		t.Errorf("no subcommand: exit %d", code)
	}
	if code, _, errs := runMCP("frob", "--dir", dir); code != 2 || !strings.Contains(errs, `unknown subcommand "frob"`) {
		t.Errorf("unknown subcommand: exit %d %q", code, errs)
	}
	if code, out, _ := runMCP("list", "--dir", dir); code != 0 || !strings.Contains(out, "no MCP servers configured") {
		t.Errorf("no servers: exit %d %q", code, out)
	}
}

// A remote server's URL with credentials fails to connect; its state line
// and the verbose log name it without the credentials.
func TestMCPListRedactsURLCredentials(t *testing.T) {
	dir := mcpWorkspace(t, map[string]mcp.ServerConfig{
		"remote": {Type: "http", URL: "http://alice:pa55word@127.0.0.1:1/mcp?token=s3cretq"},
	})
	code, out, errs := runMCP("list", "-v", "--dir", dir, "--timeout", "5s")
	if code != 1 || !strings.Contains(out, "remote: failed") || !strings.Contains(out+errs, "[REDACTED]") {
		t.Fatalf("code %d\nstdout:\n%s\nstderr:\n%s", code, out, errs)
	}
	for _, s := range []string{"alice", "pa55word", "s3cretq"} {
		if strings.Contains(out, s) || strings.Contains(errs, s) {
			t.Errorf("%q leaked:\nstdout:\n%s\nstderr:\n%s", s, out, errs)
		}
	}
}
