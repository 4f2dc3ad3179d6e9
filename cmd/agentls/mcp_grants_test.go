package main

import (
	"bytes"
	"encoding/json"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/agentls/agentls/tools/mcp"
	"github.com/agentls/agentls/tools/mcp/mcptest"
)

// scopeRecorder is a browserWriter that also keeps the scope each printed
// authorization address asked for.
type scopeRecorder struct {
	browserWriter
	mu     sync.Mutex
	scopes []string
}

func (s *scopeRecorder) Write(p []byte) (int, error) {
	for _, line := range strings.Split(string(p), "\n") {
		if u, err := url.Parse(strings.TrimSpace(line)); err == nil && strings.HasSuffix(u.Path, "/authorize") {
			s.mu.Lock()
			s.scopes = append(s.scopes, u.Query().Get("scope"))
			s.mu.Unlock()
		}
	}
	return s.browserWriter.Write(p)
}

func (s *scopeRecorder) asked() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.scopes...)
}

// TestMCPCallClientCredentials: `agentls mcp call` off a terminal, as in CI,
// against a server configured with the client credentials grant: the token
// is obtained without anyone, also again with more scopes when the tool
// asks for them (403 insufficient_scope); `mcp list --json` shows the
// server's tools with their own names and schemas; the token file is
// owner-only and holds no secret.
func TestMCPCallClientCredentials(t *testing.T) {
	g := mcptest.StartGrants(t)
	g.RequireForCall("mcp:write")
	t.Setenv("CI_MCP_SECRET", "ci-secret-value")
	dir := mcpWorkspace(t, map[string]mcp.ServerConfig{"ci": {Type: "http", URL: g.ResourceURL, OAuth: &mcp.OAuthConfig{
		Grant: mcp.GrantClientCredentials, ClientID: "ci-client", ClientSecretEnv: "CI_MCP_SECRET"}}})

	code, out, errs := runMCP("list", "--json", "--dir", dir, "--timeout", "10s")
	if code != 0 {
		t.Fatalf("list --json: exit %d\n%s\n%s", code, out, errs)
	}
	var listed struct {
		Servers []struct {
			Name, State string
			Tools       []struct {
				Name, Tool  string
				InputSchema json.RawMessage
			}
		}
	}
	if err := json.Unmarshal([]byte(out), &listed); err != nil || len(listed.Servers) != 1 || listed.Servers[0].State != "ready" {
		t.Fatalf("list --json: %v\n%s", err, out)
	}
	found := false
	for _, tl := range listed.Servers[0].Tools {
		if tl.Tool == "echo" && tl.Name == "mcp__ci__echo" && strings.Contains(string(tl.InputSchema), `"text"`) {
			found = true
		}
	}
	if !found {
		t.Errorf("echo not listed:\n%s", out)
	}

	code, out, errs = runMCP("call", "ci", "echo", `{"text":"from ci"}`, "--dir", dir, "--timeout", "10s")
	if code != 0 || out != "helper: from ci\n" {
		t.Fatalf("call: exit %d\n%s\n%s", code, out, errs)
	}
	reqs := g.TokenRequests()
	if len(reqs) != 2 || reqs[1].Form.Get("scope") != "mcp:read mcp:write" || reqs[1].BasicPass != "ci-secret-value" {
		t.Fatalf("token requests %+v", reqs)
	}
	b, err := os.ReadFile(filepath.Join(os.Getenv("XDG_STATE_HOME"), "agentls", "mcp-auth", "ci.json"))
	if err != nil || bytes.Contains(b, []byte("ci-secret-value")) || !bytes.Contains(b, []byte("mcp:write")) {
		t.Errorf("token file %v:\n%s", err, b)
	}
	if strings.Contains(errs, "ci-secret-value") {
		t.Errorf("the secret was printed:\n%s", errs)
	}
}

// TestMCPCallStepUpOffTerminal: off a terminal a tool that needs more
// access fails with a sentence saying to sign in again, and the next
// `agentls mcp login` asks for the scopes the tool wanted, after which the
// call goes through.
func TestMCPCallStepUpOffTerminal(t *testing.T) {
	g := mcptest.StartGrants(t)
	g.RequireForCall("mcp:write")
	dir := mcpWorkspace(t, map[string]mcp.ServerConfig{"secure": {Type: "http", URL: g.ResourceURL, OAuth: &mcp.OAuthConfig{ClientID: "public-client"}}})
	login := func() *scopeRecorder {
		errw := &scopeRecorder{}
		code := run([]string{"mcp", "--trust-workspace", "login", "secure", "--dir", dir}, strings.NewReader(""), &bytes.Buffer{}, errw)
		errw.wg.Wait()
		if code != 0 {
			t.Fatalf("login: exit %d\n%s", code, errw.buf.String())
		}
		return errw
	}
	if got := login().asked(); len(got) != 1 || got[0] != "mcp:read" {
		t.Fatalf("first login asked for %q", got)
	}
	code, out, errs := runMCP("call", "secure", "echo", `{"text":"x"}`, "--dir", dir, "--timeout", "10s")
	if code != 1 || !strings.Contains(errs, `needs more access (scope "mcp:read mcp:write")`) || !strings.Contains(errs, "agentls mcp login secure") {
		t.Fatalf("call off a terminal: exit %d\n%s\n%s", code, out, errs)
	}
	if got := login().asked(); len(got) != 1 || got[0] != "mcp:read mcp:write" {
		t.Fatalf("second login asked for %q", got)
	}
	code, out, errs = runMCP("call", "secure", "echo", `{"text":"x"}`, "--dir", dir, "--timeout", "10s")
	if code != 0 || out != "helper: x\n" {
		t.Fatalf("call after the second login: exit %d\n%s\n%s", code, out, errs)
	}
}
