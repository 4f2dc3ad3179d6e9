//go:build linux

package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/agentls/agentls/internal/testpty"
	"github.com/agentls/agentls/tools/mcp"
	"github.com/agentls/agentls/tools/mcp/mcptest"
)

// TestMCPCallStepUpOnTerminal: `agentls mcp call` on a terminal, for a
// tool that needs more access than the sign-in gave (403
// insufficient_scope), prints a second authorization address asking for
// the union of the scopes, waits for the user to follow it, and retries the
// call once: it goes through without a separate login.
func TestMCPCallStepUpOnTerminal(t *testing.T) {
	g := mcptest.StartGrants(t)
	g.RequireForCall("mcp:write")
	dir := mcpWorkspace(t, map[string]mcp.ServerConfig{"secure": {Type: "http", URL: g.ResourceURL, OAuth: &mcp.OAuthConfig{ClientID: "public-client"}}})
	_, slave := testpty.Open(t)

	var out bytes.Buffer
	errw := &scopeRecorder{}
	code := run([]string{"mcp", "--trust-workspace", "call", "secure", "echo", `{"text":"more"}`, "--dir", dir, "--timeout", "10s"}, slave, &out, errw)
	errw.wg.Wait()
	if code != 0 || out.String() != "helper: more\n" {
		t.Fatalf("call: exit %d\n%s\n%s", code, out.String(), errw.buf.String())
	}
	if got := errw.asked(); len(got) != 2 || got[0] != "mcp:read" || got[1] != "mcp:read mcp:write" {
		t.Fatalf("sign-ins asked for %q\n%s", got, errw.buf.String())
	}
	if !strings.Contains(errw.buf.String(), `asks you to sign in for access to "mcp:read mcp:write"`) {
		t.Errorf("stderr:\n%s", errw.buf.String())
	}
}
