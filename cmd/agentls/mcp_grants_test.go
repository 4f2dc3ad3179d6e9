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

	"github.com/agentls/agentls/agent/llm/llmtest"
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

// TestRunStepUp: in `agentls run`, a tool call refused with 403
// insufficient_scope prints a second sign-in address asking for the union
// of the scopes; once it has been followed the call is retried and the
// result reaches the model. A server with the client credentials grant in
// the same run steps up on its own.
func TestRunStepUp(t *testing.T) {
	g := mcptest.StartGrants(t)
	g.RequireForCall("mcp:write")
	cc := mcptest.StartGrants(t)
	cc.RequireForCall("mcp:admin")
	srv := llmtest.New(t, func(req *llmtest.ChatRequest) llmtest.Reply {
		a, okA := req.ToolResult("a")
		b, okB := req.ToolResult("b")
		if !okA || !okB {
			return llmtest.ToolCalls(llmtest.Call{ID: "a", Name: "mcp__secure__echo", Args: `{"text":"user"}`},
				llmtest.Call{ID: "b", Name: "mcp__ci__echo", Args: `{"text":"machine"}`})
		}
		return llmtest.Text("got " + a + " and " + b)
	}, llmtest.WithAPIKey(testKey))
	cliEnv(t, srv)
	t.Setenv("RUN_CC_SECRET", "cc")
	dir := t.TempDir()
	cfg, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{
		"secure": map[string]any{"type": "http", "url": g.ResourceURL, "oauth": map[string]any{"clientId": "public-client"}},
		"ci": map[string]any{"type": "http", "url": cc.ResourceURL, "oauth": map[string]any{"grant": "client_credentials",
			"clientId": "ci-client", "clientSecretEnv": "RUN_CC_SECRET"}},
	}})
	writeFile(t, filepath.Join(dir, ".agentls", "config.json"), string(cfg), 0o644)

	var out bytes.Buffer
	errw := &scopeRecorder{}
	code := runMain([]string{"--dir", dir, "--trust-workspace", "echo", "both"}, strings.NewReader(""), &out, errw)
	errw.wg.Wait()
	if code != 0 || !strings.Contains(out.String(), "got helper: user and helper: machine") {
		t.Fatalf("run: exit %d\n%s\n%s", code, out.String(), errw.buf.String())
	}
	if got := errw.asked(); len(got) != 2 || got[0] != "mcp:read" || got[1] != "mcp:read mcp:write" {
		t.Errorf("sign-ins asked for %q", got)
	}
	if reqs := cc.TokenRequests(); len(reqs) != 2 || reqs[1].Form.Get("scope") != "mcp:read mcp:admin" {
		t.Errorf("client credentials requests %+v", reqs)
	}
}
