package lspserver_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/go-json-experiment/json/jsontext"
	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/agent/llm/llmtest"
	"github.com/agentls/agentls/lspserver"
	"github.com/agentls/agentls/lspserver/lsptest"
	"github.com/agentls/agentls/tools/mcp/mcptest"
)

// TestRunWithMCPTool: an MCP server configured in the editor settings is
// started after initialized, its tools are offered to the model as
// mcp__<server>__<tool>, a call goes through to the real server and its
// result back to the model; removing the server from the settings stops
// it and the next run no longer sees its tools.
func TestRunWithMCPTool(t *testing.T) {
	t.Parallel()
	url := mcptest.StartHTTP(t, mcptest.NewServer(mcptest.Options{}))
	script := func(req *llmtest.ChatRequest) llmtest.Reply {
		if !req.HasTool("mcp__helper__echo") {
			return llmtest.Text("no echo tool")
		}
		if !req.HasToolResult("m1") {
			return llmtest.ToolCalls(llmtest.Call{ID: "m1", Name: "mcp__helper__echo", Args: `{"text":"ping"}`})
		}
		res, _ := req.ToolResult("m1")
		return llmtest.Text("echo said: " + res)
	}
	servers := map[string]any{"helper": map[string]any{"type": "http", "url": url}}
	rs := newRunSession(t, script, runOpts{settings: map[string]any{"mcpServers": servers}})
	ctx := lsptest.Context(t)
	if _, err := rs.c.Await(ctx, protocol.MethodWindowLogMessage, func(m lsptest.Message) bool {
		return strings.Contains(string(m.Params), `MCP server \"helper\" is ready`)
	}); err != nil {
		t.Fatalf("the MCP server never became ready: %v", err)
	}
	id := rs.start(t, lspserver.RunArgs{Prompt: "Echo ping."})
	evs := rs.events(t, id)
	call := firstOf(t, evs, "toolCall")
	if call.Tool != "mcp__helper__echo" {
		t.Errorf("tool call %+v", call)
	}
	if fin := evs[len(evs)-1]; fin.Kind != "finished" || !strings.Contains(*fin.Text, "helper: ping") {
		t.Fatalf("final %+v; %v", fin, kinds(evs))
	}

	// The settings drop the server: it is stopped, its tools disappear.
	if err := rs.c.Notify(ctx, protocol.MethodWorkspaceDidChangeConfiguration, map[string]any{
		"settings": map[string]any{"agentls": map[string]any{"mcpServers": map[string]any{"helper": map[string]any{"disabled": true, "type": "http", "url": url}}}},
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := rs.c.Await(ctx, protocol.MethodWindowLogMessage, func(m lsptest.Message) bool {
		return strings.Contains(string(m.Params), "MCP servers stopped")
	}); err != nil {
		t.Fatal(err)
	}
	id2 := rs.start(t, lspserver.RunArgs{Prompt: "Echo again."})
	if fin := rs.event(t, id2, "finished"); *fin.Text != "no echo tool" {
		t.Errorf("second run %q", *fin.Text)
	}
}

// TestRunRightAfterStartHasMCPTools: a run started immediately after
// initialized, while the real server-everything is still connecting, waits
// for it and its model is offered and successfully calls
// mcp__everything__echo; every time, from a fresh agentls, over stdio,
// streamable HTTP and SSE.
func TestRunRightAfterStartHasMCPTools(t *testing.T) {
	entry := mcptest.NPMPackage(t, "server-everything")
	script := func(req *llmtest.ChatRequest) llmtest.Reply {
		if !req.HasTool("mcp__everything__echo") {
			return llmtest.Text("no echo tool")
		}
		if !req.HasToolResult("e1") {
			return llmtest.ToolCalls(llmtest.Call{ID: "e1", Name: "mcp__everything__echo", Args: `{"message":"ping"}`})
		}
		res, _ := req.ToolResult("e1")
		return llmtest.Text("echo said: " + res)
	}
	httpPort := mcptest.FreePort(t)
	t.Cleanup(mcptest.StartNodeServer(t, entry, "streamableHttp", "listening on port", httpPort))
	ssePort := mcptest.FreePort(t)
	t.Cleanup(mcptest.StartNodeServer(t, entry, "sse", "running on port", ssePort))
	for _, tr := range []struct {
		name   string
		server map[string]any
	}{
		{"stdio", map[string]any{"command": "node", "args": []string{entry, "stdio"}}},
		{"http", map[string]any{"type": "http", "url": fmt.Sprintf("http://127.0.0.1:%d/mcp", httpPort)}},
		{"sse", map[string]any{"type": "sse", "url": fmt.Sprintf("http://127.0.0.1:%d/sse", ssePort)}},
	} {
		t.Run(tr.name, func(t *testing.T) {
			servers := map[string]any{"everything": tr.server}
			for i := range 5 {
				rs := newRunSession(t, script, runOpts{settings: map[string]any{"mcpServers": servers}})
				id := rs.start(t, lspserver.RunArgs{Prompt: "Echo ping."})
				evs := rs.events(t, id)
				fin := evs[len(evs)-1]
				if fin.Kind != "finished" || fin.Text == nil || !strings.Contains(*fin.Text, "Echo: ping") {
					t.Fatalf("try %d: final %+v; %v", i, fin, kinds(evs))
				}
			}
		})
	}
}

// TestRunWaitsBoundedForMCP: a server that never answers the handshake holds
// a run back for mcp.startupTimeoutSeconds at most, with progress naming it;
// a server that cannot start at all does not hold it; the run then goes on
// with neither server's tools, and the ready server's tools are offered.
func TestRunWaitsBoundedForMCP(t *testing.T) {
	t.Parallel()
	url := mcptest.StartHTTP(t, mcptest.NewServer(mcptest.Options{}))
	script := func(req *llmtest.ChatRequest) llmtest.Reply {
		var names []string
		for _, n := range []string{"mcp__helper__echo", "mcp__silent__echo", "mcp__broken__echo"} {
			if req.HasTool(n) {
				names = append(names, n)
			}
		}
		return llmtest.Text("tools: " + strings.Join(names, ","))
	}
	servers := map[string]any{
		"helper": map[string]any{"type": "http", "url": url},
		"silent": map[string]any{"command": "sleep", "args": []string{"60"}},
		"broken": map[string]any{"command": "/nonexistent/agentls-test-server"},
	}
	rs := newRunSession(t, script, runOpts{settings: map[string]any{
		"mcpServers": servers,
		"mcp":        map[string]any{"startupTimeoutSeconds": 1},
	}})
	id := rs.start(t, lspserver.RunArgs{Prompt: "Which tools?"})
	evs := rs.events(t, id)
	if fin := evs[len(evs)-1]; fin.Kind != "finished" || *fin.Text != "tools: mcp__helper__echo" {
		t.Fatalf("final %+v; %v", fin, kinds(evs))
	}
	waited := false
	for _, m := range rs.c.Received() {
		if m.Method == protocol.MethodProgress && strings.Contains(string(m.Params), "waiting for MCP server") && strings.Contains(string(m.Params), "silent") {
			waited = true
		}
	}
	if !waited {
		t.Errorf("no progress naming the server the run waited for")
	}
}

// TestMCPElicitationInEditor: a tool's elicitation/create reaches the user:
// our plugins (experimental.agentls.elicitationForms) get the whole form as
// agentls/elicit and the schema's defaults are applied to their answer; a
// plain client gets a single-enum form as window/showMessageRequest, and a
// form it cannot render is declined.
func TestMCPElicitationInEditor(t *testing.T) {
	t.Parallel()
	srv := mcptest.NewServer(mcptest.Options{})
	mcptest.AddClientRequestTools(srv)
	url := mcptest.StartHTTP(t, srv)
	servers := map[string]any{"helper": map[string]any{"type": "http", "url": url}}
	scriptFor := func(args string) llmtest.Script {
		return func(req *llmtest.ChatRequest) llmtest.Reply {
			if !req.HasToolResult("a1") {
				return llmtest.ToolCalls(llmtest.Call{ID: "a1", Name: "mcp__helper__ask", Args: args})
			}
			res, _ := req.ToolResult("a1")
			return llmtest.Text(res)
		}
	}
	run := func(t *testing.T, rs *runSession) string {
		id := rs.start(t, lspserver.RunArgs{Prompt: "Ask."})
		evs := rs.events(t, id)
		fin := evs[len(evs)-1]
		if fin.Kind != "finished" || fin.Text == nil {
			t.Fatalf("final %+v; %v", fin, kinds(evs))
		}
		return *fin.Text
	}

	t.Run("plugin", func(t *testing.T) {
		caps := lsptest.DefaultCapabilities()
		caps.Experimental = jsontext.Value(`{"agentls":{"elicitationForms":true}}`)
		rs := newRunSession(t, scriptFor(`{"message":"Who?"}`), runOpts{settings: map[string]any{"mcpServers": servers},
			init: lsptest.InitOptions{Capabilities: &caps}})
		var got lspserver.ElicitParams
		rs.c.Handle(lspserver.MethodElicit, func(req lsptest.Message) (any, *lsptest.Error) {
			_ = req.DecodeParams(&got)
			return lspserver.ElicitAnswer{Action: "accept", Content: map[string]any{"color": "red"}}, nil
		})
		if text := run(t, rs); text != `accept {"color":"red","name":"anon"}` {
			t.Errorf("result %q", text)
		}
		if got.Server != "helper" || got.Message != "Who?" || got.Mode != "form" || !strings.Contains(string(got.RequestedSchema), `"default":"anon"`) {
			t.Errorf("agentls/elicit params %+v", got)
		}
	})
	t.Run("enum as message", func(t *testing.T) {
		rs := newRunSession(t, scriptFor(`{"message":"Color?","form":"color"}`), runOpts{settings: map[string]any{"mcpServers": servers}})
		var shown protocol.ShowMessageRequestParams
		rs.c.Handle(protocol.MethodWindowShowMessageRequest, func(req lsptest.Message) (any, *lsptest.Error) {
			_ = req.DecodeParams(&shown)
			return protocol.MessageActionItem{Title: "green"}, nil
		})
		if text := run(t, rs); text != `accept {"color":"green"}` {
			t.Errorf("result %q", text)
		}
		var titles []string
		for _, a := range shown.Actions {
			titles = append(titles, a.Title)
		}
		if !strings.Contains(shown.Message, `"helper" asks: Color?`) || strings.Join(titles, ",") != "red,green,Decline" {
			t.Errorf("message %q actions %v", shown.Message, titles)
		}
	})
	t.Run("form without plugin", func(t *testing.T) {
		rs := newRunSession(t, scriptFor(`{"message":"Who?"}`), runOpts{settings: map[string]any{"mcpServers": servers}})
		if text := run(t, rs); text != "decline null" {
			t.Errorf("result %q", text)
		}
	})
}

// TestMCPOAuthInEditor: a server that needs sign-in offers the user its
// sign-in page (window/showMessageRequest naming the host); once they
// choose "Sign in" it is opened with window/showDocument (external), and
// once the browser has been through it (here: an HTTP client following the
// redirect to the loopback listener), the server's tools work in a run.
func TestMCPOAuthInEditor(t *testing.T) {
	t.Parallel()
	a := mcptest.StartOAuth(t)
	script := func(req *llmtest.ChatRequest) llmtest.Reply {
		if !req.HasTool("mcp__secure__echo") {
			return llmtest.Text("no echo tool")
		}
		if !req.HasToolResult("s1") {
			return llmtest.ToolCalls(llmtest.Call{ID: "s1", Name: "mcp__secure__echo", Args: `{"text":"signed in"}`})
		}
		res, _ := req.ToolResult("s1")
		return llmtest.Text(res)
	}
	caps := lsptest.DefaultCapabilities()
	caps.Window.ShowDocument = &protocol.ShowDocumentClientCapabilities{Support: true}
	rs := newRunSession(t, script, runOpts{init: lsptest.InitOptions{Capabilities: &caps}})
	type showDocument struct {
		URI      string `json:"uri"`
		External *bool  `json:"external"`
	}
	shown := make(chan showDocument, 1)
	offered := make(chan string, 1)
	rs.c.Handle(protocol.MethodWindowShowMessageRequest, func(req lsptest.Message) (any, *lsptest.Error) {
		var p protocol.ShowMessageRequestParams
		_ = json.Unmarshal(req.Params, &p)
		select {
		case offered <- p.Message:
		default:
		}
		return protocol.MessageActionItem{Title: "Sign in"}, nil
	})
	rs.c.Handle(protocol.MethodWindowShowDocument, func(req lsptest.Message) (any, *lsptest.Error) {
		var p showDocument // the raw address, as a browser gets it
		if err := json.Unmarshal(req.Params, &p); err != nil {
			t.Errorf("showDocument params: %v", err)
		}
		select {
		case shown <- p:
		default:
		}
		go func() { // the browser
			resp, err := http.Get(p.URI)
			if err == nil {
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			}
		}()
		return protocol.ShowDocumentResult{Success: true}, nil
	})
	// The server is configured once the handler is in place.
	ctx := lsptest.Context(t)
	if err := rs.c.Notify(ctx, protocol.MethodWorkspaceDidChangeConfiguration, map[string]any{"settings": map[string]any{"agentls": map[string]any{
		"mcpServers": map[string]any{"secure": map[string]any{"type": "http", "url": a.ResourceURL}},
	}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := rs.c.Await(ctx, protocol.MethodWindowLogMessage, func(m lsptest.Message) bool {
		return strings.Contains(string(m.Params), `MCP server \"secure\" is ready`)
	}); err != nil {
		t.Fatalf("the server never became ready: %v", err)
	}
	if msg := <-offered; !strings.Contains(msg, `MCP server "secure" asks you to sign in at `+a.AuthURL+` for access to "mcp:read".`) {
		t.Errorf("sign-in offer %q", msg)
	}
	p := <-shown
	if p.External == nil || !*p.External || !strings.HasPrefix(p.URI, a.AuthURL+"/authorize?") {
		t.Errorf("showDocument %+v", p)
	}
	id := rs.start(t, lspserver.RunArgs{Prompt: "Echo."})
	evs := rs.events(t, id)
	if fin := evs[len(evs)-1]; fin.Kind != "finished" || *fin.Text != "helper: signed in" {
		t.Fatalf("final %+v; %v", fin, kinds(evs))
	}
}

// TestMCPStepUpInEditor: a tool that needs more access than the sign-in
// gave (403 insufficient_scope) makes the server offer a second sign-in
// naming the union of the scopes; once the user has been through it the
// call is retried and its result reaches the run.
func TestMCPStepUpInEditor(t *testing.T) {
	t.Parallel()
	g := mcptest.StartGrants(t)
	g.RequireForCall("mcp:write")
	script := func(req *llmtest.ChatRequest) llmtest.Reply {
		if !req.HasTool("mcp__secure__echo") {
			return llmtest.Text("no echo tool")
		}
		if !req.HasToolResult("s1") {
			return llmtest.ToolCalls(llmtest.Call{ID: "s1", Name: "mcp__secure__echo", Args: `{"text":"stepped up"}`})
		}
		res, _ := req.ToolResult("s1")
		return llmtest.Text(res)
	}
	caps := lsptest.DefaultCapabilities()
	caps.Window.ShowDocument = &protocol.ShowDocumentClientCapabilities{Support: true}
	rs := newRunSession(t, script, runOpts{init: lsptest.InitOptions{Capabilities: &caps}})
	var mu sync.Mutex
	var offers []string
	rs.c.Handle(protocol.MethodWindowShowMessageRequest, func(req lsptest.Message) (any, *lsptest.Error) {
		var p protocol.ShowMessageRequestParams
		_ = json.Unmarshal(req.Params, &p)
		mu.Lock()
		offers = append(offers, p.Message)
		mu.Unlock()
		return protocol.MessageActionItem{Title: "Sign in"}, nil
	})
	rs.c.Handle(protocol.MethodWindowShowDocument, func(req lsptest.Message) (any, *lsptest.Error) {
		var p struct {
			URI string `json:"uri"`
		}
		_ = json.Unmarshal(req.Params, &p)
		go func() { // the browser
			resp, err := http.Get(p.URI)
			if err == nil {
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			}
		}()
		return protocol.ShowDocumentResult{Success: true}, nil
	})
	ctx := lsptest.Context(t)
	if err := rs.c.Notify(ctx, protocol.MethodWorkspaceDidChangeConfiguration, map[string]any{"settings": map[string]any{"agentls": map[string]any{
		"mcpServers": map[string]any{"secure": map[string]any{"type": "http", "url": g.ResourceURL, "oauth": map[string]any{"clientId": "public-client"}}},
	}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := rs.c.Await(ctx, protocol.MethodWindowLogMessage, func(m lsptest.Message) bool {
		return strings.Contains(string(m.Params), `MCP server \"secure\" is ready`)
	}); err != nil {
		t.Fatalf("the server never became ready: %v", err)
	}
	id := rs.start(t, lspserver.RunArgs{Prompt: "Echo."})
	evs := rs.events(t, id)
	if fin := evs[len(evs)-1]; fin.Kind != "finished" || *fin.Text != "helper: stepped up" {
		t.Fatalf("final %+v; %v", fin, kinds(evs))
	}
	mu.Lock()
	defer mu.Unlock()
	if len(offers) != 2 || !strings.Contains(offers[0], `for access to "mcp:read".`) || !strings.Contains(offers[1], `for access to "mcp:read mcp:write".`) {
		t.Errorf("sign-in offers %q", offers)
	}
}

// N4: nothing is opened at server start without the user asking: a server
// that needs sign-in is offered, and "Not now" opens nothing (the server
// fails saying how to sign in later); an authorization_endpoint that is
// not https (vscode://, file://, javascript:, --help) is never offered nor
// opened, and the editor is told why.
func TestMCPOAuthOpensOnlyHTTPSAfterTheUserAsks(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, endpoint, answer, wantErr string
		wantOffer                       bool
	}{
		{"declined", "", "Not now", "sign-in not started", true},
		{"dismissed", "", "", "sign-in not started", true},
		{"vscode", "vscode://vscode.git/clone?url=https%3A%2F%2Fevil.example", "Sign in", "authorization_endpoint was refused", false},
		{"file", "file:///etc/passwd", "Sign in", "authorization_endpoint was refused", false},
		{"javascript", "javascript:alert(1)", "Sign in", "authorization_endpoint was refused", false},
		{"option", "--help", "Sign in", "authorization_endpoint was refused", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			a := mcptest.StartOAuth(t)
			if tc.endpoint != "" {
				a.SetAuthorizationEndpoint(tc.endpoint)
			}
			caps := lsptest.DefaultCapabilities()
			caps.Window.ShowDocument = &protocol.ShowDocumentClientCapabilities{Support: true}
			rs := newRunSession(t, nil, runOpts{init: lsptest.InitOptions{Capabilities: &caps}})
			var mu sync.Mutex
			var offers, opened []string
			rs.c.Handle(protocol.MethodWindowShowMessageRequest, func(req lsptest.Message) (any, *lsptest.Error) {
				mu.Lock()
				offers = append(offers, string(req.Params))
				mu.Unlock()
				if tc.answer == "" {
					return nil, nil
				}
				return protocol.MessageActionItem{Title: tc.answer}, nil
			})
			rs.c.Handle(protocol.MethodWindowShowDocument, func(req lsptest.Message) (any, *lsptest.Error) {
				mu.Lock()
				opened = append(opened, string(req.Params))
				mu.Unlock()
				return protocol.ShowDocumentResult{Success: true}, nil
			})
			ctx := lsptest.Context(t)
			if err := rs.c.Notify(ctx, protocol.MethodWorkspaceDidChangeConfiguration, map[string]any{"settings": map[string]any{"agentls": map[string]any{
				"mcpServers": map[string]any{"secure": map[string]any{"type": "http", "url": a.ResourceURL}},
			}}}); err != nil {
				t.Fatal(err)
			}
			m, err := rs.c.Await(ctx, protocol.MethodWindowLogMessage, func(m lsptest.Message) bool {
				return strings.Contains(string(m.Params), `MCP server \"secure\"`) && strings.Contains(string(m.Params), "failed")
			})
			if err != nil {
				t.Fatalf("the server never failed: %v", err)
			}
			if !strings.Contains(string(m.Params), tc.wantErr) {
				t.Errorf("failure %s lacks %q", m.Params, tc.wantErr)
			}
			mu.Lock()
			defer mu.Unlock()
			if len(opened) != 0 {
				t.Errorf("window/showDocument sent: %q", opened)
			}
			if got := len(offers) > 0; got != tc.wantOffer {
				t.Errorf("offers %q, want an offer: %v", offers, tc.wantOffer)
			}
		})
	}
}

// N8 in the editor: a URL-mode elicitation naming javascript: is never
// offered nor opened; a form's message reaches window/showMessageRequest
// with its ESC and bidi characters escaped.
func TestMCPElicitationScreenedInEditor(t *testing.T) {
	t.Parallel()
	srv := mcptest.NewServer(mcptest.Options{})
	mcptest.AddClientRequestTools(srv)
	url := mcptest.StartHTTP(t, srv)
	script := func(req *llmtest.ChatRequest) llmtest.Reply {
		switch {
		case !req.HasToolResult("u1"):
			return llmtest.ToolCalls(llmtest.Call{ID: "u1", Name: "mcp__helper__ask_url", Args: `{"url":"javascript:alert(document.cookie)"}`})
		case !req.HasToolResult("a1"):
			return llmtest.ToolCalls(llmtest.Call{ID: "a1", Name: "mcp__helper__ask", Args: `{"message":"Delete \u001b[2K\u001b[1Aall \u202egnp.exe?","form":"color"}`})
		}
		u, _ := req.ToolResult("u1")
		a, _ := req.ToolResult("a1")
		return llmtest.Text(u + " | " + a)
	}
	caps := lsptest.DefaultCapabilities()
	caps.Window.ShowDocument = &protocol.ShowDocumentClientCapabilities{Support: true}
	rs := newRunSession(t, script, runOpts{settings: map[string]any{"mcpServers": map[string]any{"helper": map[string]any{"type": "http", "url": url}}},
		init: lsptest.InitOptions{Capabilities: &caps}})
	var mu sync.Mutex
	var asked, opened []string
	rs.c.Handle(protocol.MethodWindowShowMessageRequest, func(req lsptest.Message) (any, *lsptest.Error) {
		var p protocol.ShowMessageRequestParams
		_ = json.Unmarshal(req.Params, &p)
		mu.Lock()
		asked = append(asked, p.Message)
		mu.Unlock()
		return protocol.MessageActionItem{Title: "red"}, nil
	})
	rs.c.Handle(protocol.MethodWindowShowDocument, func(req lsptest.Message) (any, *lsptest.Error) {
		mu.Lock()
		opened = append(opened, string(req.Params))
		mu.Unlock()
		return protocol.ShowDocumentResult{Success: true}, nil
	})
	ctx := lsptest.Context(t)
	if _, err := rs.c.Await(ctx, protocol.MethodWindowLogMessage, func(m lsptest.Message) bool {
		return strings.Contains(string(m.Params), `MCP server \"helper\" is ready`)
	}); err != nil {
		t.Fatal(err)
	}
	id := rs.start(t, lspserver.RunArgs{Prompt: "Ask."})
	evs := rs.events(t, id)
	fin := evs[len(evs)-1]
	if fin.Kind != "finished" || fin.Text == nil || *fin.Text != `decline | accept {"color":"red"}` {
		t.Fatalf("final %+v", fin)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(opened) != 0 {
		t.Errorf("window/showDocument sent: %q", opened)
	}
	if len(asked) != 1 || strings.ContainsAny(asked[0], "\x1b\u202e") || !strings.Contains(asked[0], `Delete \x1b[2K\x1b[1Aall \u202egnp.exe?`) {
		t.Errorf("showMessageRequest messages: %q", asked)
	}
}
