package faces_test

import (
	"encoding/json"
	"strings"
	"testing"

	acp "github.com/coder/acp-go-sdk"
	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/acpserver/acptest"
	"github.com/agentls/agentls/agent/llm/llmtest"

	"github.com/agentls/agentls/lspserver"
	"github.com/agentls/agentls/lspserver/lsptest"
)

// continueOverLSP runs agentls.run with prompt in sessionID ("" starts
// one) and waits for its end.
func continueOverLSP(t *testing.T, c *lsptest.Client, sessionID, prompt string) lspserver.RunEvent {
	t.Helper()
	ctx := lsptest.Context(t)
	args, _ := json.Marshal(lspserver.RunArgs{Prompt: prompt, SessionID: sessionID})
	var res lspserver.RunResult
	if err := c.Call(ctx, protocol.MethodWorkspaceExecuteCommand, &protocol.ExecuteCommandParams{
		Command: lspserver.CommandRun, Arguments: []protocol.LSPAny{args}}, &res); err != nil {
		t.Fatalf("agentls.run: %v", err)
	}
	if sessionID != "" && res.SessionID != sessionID {
		t.Fatalf("agentls.run started session %q, not %q", res.SessionID, sessionID)
	}
	var ev lspserver.RunEvent
	if _, err := c.Await(ctx, lspserver.MethodRunEvent, func(m lsptest.Message) bool {
		var e lspserver.RunEvent
		if json.Unmarshal(m.Params, &e) != nil || e.RunID != res.RunID {
			return false
		}
		ev = e
		return e.Kind == "finished" || e.Kind == "failed" || e.Kind == "cancelled"
	}); err != nil {
		t.Fatal(err)
	}
	if ev.Kind != "finished" {
		t.Fatalf("LSP run ended %s: %s", ev.Kind, ev.Error)
	}
	return ev
}

// newLSP starts an in-process LSP server on the harness's workspace and
// state directory.
func newLSP(t *testing.T, h *acptest.Harness) *lsptest.Client {
	t.Helper()
	srv := lspserver.New(lspserver.Options{NoWatcher: true})
	env := h.Env
	srv.SetRunOptions(lspserver.RunOptions{Env: func(k string) string { return env[k] }, TranscriptDir: lspserver.NoTranscripts})
	c := lsptest.NewInProcessServer(t, srv)
	if _, err := c.Initialize(lsptest.Context(t), lsptest.InitOptions{Folders: []string{h.Dir}}); err != nil {
		t.Fatal(err)
	}
	return c
}

// A session goes LSP → ACP → LSP: the change an LSP run left pending is
// asked about over ACP at the next prompt and written after permission;
// the model is told; and the LSP server continues the conversation the
// ACP prompt added.
func TestSessionAcrossLSPAndACP(t *testing.T) {
	script := func(r *llmtest.ChatRequest) llmtest.Reply {
		switch user := r.LastUser(); {
		case strings.Contains(user, "over ACP"):
			return llmtest.Text("acp answer")
		case strings.Contains(user, "continue over LSP"):
			return llmtest.Text("lsp answer")
		}
		if !r.HasToolResult("c1") {
			return acptest.Call("c1", "read_file", `{"path":"a.txt"}`)
		}
		if !r.HasToolResult("c2") {
			return acptest.Call("c2", "edit_file", `{"path":"a.txt","old_string":"hello","new_string":"hello, world"}`)
		}
		return llmtest.Text("proposed")
	}
	h := acptest.Start(t, script, acptest.Options{})
	h.Write("a.txt", "hello\n")
	lsp := newLSP(t, h)
	continueOverLSP(t, lsp, "", "greet the world in a.txt")
	var sessions lspserver.SessionsResult
	if err := lsp.Call(lsptest.Context(t), lspserver.MethodSessions, struct{}{}, &sessions); err != nil || len(sessions.Sessions) != 1 || sessions.Sessions[0].Pending != 1 {
		t.Fatalf("LSP sessions: %+v %v", sessions, err)
	}
	id := sessions.Sessions[0].ID
	if h.Read("a.txt") != "hello\n" {
		t.Fatal("the LSP preview run wrote the file")
	}

	if _, err := h.Conn.LoadSession(h.Ctx(), acp.LoadSessionRequest{SessionId: acp.SessionId(id), Cwd: h.Dir, McpServers: []acp.McpServer{}}); err != nil {
		t.Fatal(err)
	}
	h.MustPrompt(acp.SessionId(id), "carry on over ACP")
	if got := h.Read("a.txt"); got != "hello, world\n" {
		t.Fatalf("the pending change was not written after permission: %q", got)
	}
	_, perms := h.Client.Snapshot()
	if len(perms) != 1 || perms[0].ToolCall.Content[0].Diff == nil {
		t.Fatalf("permissions: %+v", perms)
	}
	reqs := h.Chats()
	if !reqs[len(reqs)-1].Contains("The user accepted 1 hunk of your change to a.txt") {
		t.Fatal("the ACP run was not told about the accepted change")
	}

	lsp2 := newLSP(t, h)
	continueOverLSP(t, lsp2, id, "continue over LSP")
	reqs = h.Chats()
	if last := reqs[len(reqs)-1]; !last.Contains("carry on over ACP") || !last.Contains("acp answer") {
		t.Fatal("the LSP run did not continue the conversation the ACP prompt added")
	}
	if err := lsp2.Call(lsptest.Context(t), lspserver.MethodSessions, struct{}{}, &sessions); err != nil || sessions.Sessions[0].Pending != 0 {
		t.Fatalf("after ACP wrote it, LSP still lists the change pending: %+v %v", sessions, err)
	}
}

// A live LSP server and an ACP connection take turns in one session: each
// continues from the turns the other added (neither drops them from its
// copy, nor overwrites them with its next save).
func TestLiveLSPAndACPTakeTurns(t *testing.T) {
	h := acptest.Start(t, func(r *llmtest.ChatRequest) llmtest.Reply {
		u := r.LastUser()
		if _, task, ok := strings.Cut(u, "## Your new task\n"); ok {
			u = task
		}
		return llmtest.Text("answer to " + u)
	}, acptest.Options{})
	lsp := newLSP(t, h)
	continueOverLSP(t, lsp, "", "one over LSP")
	var sessions lspserver.SessionsResult
	if err := lsp.Call(lsptest.Context(t), lspserver.MethodSessions, struct{}{}, &sessions); err != nil || len(sessions.Sessions) != 1 {
		t.Fatalf("sessions: %+v %v", sessions, err)
	}
	id := sessions.Sessions[0].ID
	if _, err := h.Conn.LoadSession(h.Ctx(), acp.LoadSessionRequest{SessionId: acp.SessionId(id), Cwd: h.Dir, McpServers: []acp.McpServer{}}); err != nil {
		t.Fatal(err)
	}
	h.MustPrompt(acp.SessionId(id), "two over ACP")
	continueOverLSP(t, lsp, id, "three over LSP")
	reqs := h.Chats()
	if last := reqs[len(reqs)-1]; !last.Contains("answer to two over ACP") {
		t.Fatal("the live LSP server dropped the turn made over ACP")
	}
	h.MustPrompt(acp.SessionId(id), "four over ACP")
	reqs = h.Chats()
	last := reqs[len(reqs)-1]
	for _, want := range []string{"answer to one over LSP", "answer to two over ACP", "answer to three over LSP"} {
		if !last.Contains(want) {
			t.Fatalf("the ACP prompt lacks %q", want)
		}
	}
}

// A session started over ACP after the LSP server started shows in the
// live server's agentls/sessions, and continues there.
func TestLSPListsSessionsStartedOverACP(t *testing.T) {
	h := acptest.Start(t, llmtest.Always(llmtest.Text("ok")), acptest.Options{})
	lsp := newLSP(t, h)
	var sessions lspserver.SessionsResult
	if err := lsp.Call(lsptest.Context(t), lspserver.MethodSessions, struct{}{}, &sessions); err != nil || len(sessions.Sessions) != 0 {
		t.Fatalf("sessions before: %+v %v", sessions, err)
	}
	id := h.NewSession()
	h.MustPrompt(id, "started in zed")
	if err := lsp.Call(lsptest.Context(t), lspserver.MethodSessions, struct{}{}, &sessions); err != nil ||
		len(sessions.Sessions) != 1 || sessions.Sessions[0].ID != string(id) || sessions.Sessions[0].Title != "started in zed" {
		t.Fatalf("sessions after: %+v %v", sessions, err)
	}
	continueOverLSP(t, lsp, string(id), "continued in vs code")
	reqs := h.Chats()
	if !reqs[len(reqs)-1].Contains("started in zed") {
		t.Fatal("the LSP run did not continue the ACP conversation")
	}
}
