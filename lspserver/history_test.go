package lspserver_test

import (
	"encoding/json"
	"errors"
	"os"
	"strings"
	"testing"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/agentls/agentls/agent/llm/llmtest"
	"github.com/agentls/agentls/internal/testwait"
	"github.com/agentls/agentls/internal/text"
	"github.com/agentls/agentls/lspserver"
	"github.com/agentls/agentls/lspserver/lsptest"
)

const histBase = "package demo\n\n// One is one.\nfunc One() int {\n\treturn 1\n}\n"

// A preview run changes a.go and creates NOTES.md; the user accepts both,
// then types on another line of a.go. "Agent: Revert run" is offered on
// the changed line; agentls.revert takes the run back with one
// workspace/applyEdit (a TextDocumentEdit and a DeleteFile), keeping the
// user's line; a second revert does nothing; the session's next run is
// told; the report opens.
func TestRevertAcceptedRun(t *testing.T) {
	script := func(req *llmtest.ChatRequest) llmtest.Reply {
		switch {
		case req.Contains("What happened to my files?"):
			return llmtest.Text("You reverted my change.")
		case !req.HasToolResult("r1"):
			return llmtest.ToolCalls(llmtest.Call{ID: "r1", Name: "read_file", Args: callArgs(map[string]any{"path": "a.go"})})
		case !req.HasToolResult("e1"):
			return llmtest.ToolCalls(
				llmtest.Call{ID: "e1", Name: "edit_file", Args: callArgs(map[string]any{"path": "a.go", "old_string": "return 1", "new_string": "return 100"})},
				llmtest.Call{ID: "w1", Name: "write_file", Args: callArgs(map[string]any{"path": "NOTES.md", "content": "one is 100\n"})})
		}
		return llmtest.Text("Done.")
	}
	state := t.TempDir()
	caps := lsptest.DefaultCapabilities()
	caps.Window.ShowDocument = &protocol.ShowDocumentClientCapabilities{Support: true}
	rs := newRunSession(t, script, runOpts{transcript: true, runOpts: lspserver.RunOptions{StateDir: state}, init: lsptest.InitOptions{Capabilities: &caps}})
	e := editorFor(rs.session, text.UTF16)
	e.openOnEdit = true
	shown := make(chan protocol.ShowDocumentParams, 4)
	rs.c.Handle(protocol.MethodWindowShowDocument, func(m lsptest.Message) (any, *lsptest.Error) {
		var p protocol.ShowDocumentParams
		_ = m.DecodeParams(&p)
		shown <- p
		return &protocol.ShowDocumentResult{Success: true}, nil
	})
	u := e.open(t, "a.go", histBase)
	id := rs.start(t, lspserver.RunArgs{Prompt: "Make One return 100.", URI: string(u)})
	if fin := rs.event(t, id, "finished"); fin.Pending == nil || *fin.Pending != 2 {
		t.Fatalf("finished = %+v, want 2 hunks pending", fin)
	}
	if res := e.accept(t, reviewArgs{RunID: id}); !res.Applied {
		t.Fatalf("accept = %+v", res)
	}
	notes := rs.fileURI("NOTES.md")
	accepted := strings.Replace(histBase, "return 1", "return 100", 1)
	if e.text(t, u) != accepted || e.text(t, notes) != "one is 100\n" {
		t.Fatalf("after accept: a.go %q, NOTES.md %q", e.text(t, u), e.text(t, notes))
	}

	// The code action on the run's line (line 4: "return 100") offers the
	// revert; on the package line it does not. The index is built in the
	// background: ask until it is there.
	title := "Agent: Revert run " + id
	testwait.Until(t, "the revert code action", func() bool {
		return hasAction(codeActions(t, rs.session, u, 4, 3), title)
	})
	if acts := codeActions(t, rs.session, u, 0, 0); hasAction(acts, title) {
		t.Fatal("revert offered on a line the run did not change, although nothing changed since")
	}
	// The user edits the comment line (line 2), away from the run's change.
	at := strings.Index(accepted, "One is one.")
	e.typeAt(t, u, at, at+len("One is one."), "One is mine.")

	edits := e.editCount()
	res := revertRun(t, rs, id)
	if res.Reverted != 2 || len(res.Conflicts) != 0 || res.FailureReason != "" {
		t.Fatalf("revert = %+v", res)
	}
	if e.editCount() != edits+1 {
		t.Fatalf("%d workspace edits for one revert", e.editCount()-edits)
	}
	if want := strings.Replace(histBase, "One is one.", "One is mine.", 1); e.text(t, u) != want {
		t.Fatalf("a.go after revert %q, want %q", e.text(t, u), want)
	}
	if _, err := os.Stat(notes.FsPath()); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("NOTES.md survived the revert: %v", err)
	}
	if again := revertRun(t, rs, id); again.Reverted != 0 || !strings.Contains(again.Note, "already reverted") {
		t.Fatalf("second revert = %+v", again)
	}
	var rpcErr *lsptest.Error
	err := rs.c.Call(lsptest.Context(t), protocol.MethodWorkspaceExecuteCommand, command(lspserver.CommandRevert, lspserver.RevertArgs{RunID: "0123456789ab"}), &struct{}{})
	if !errors.As(err, &rpcErr) || rpcErr.Code != lsptest.CodeInvalidParams || !strings.Contains(rpcErr.Message, "no accepted or applied changes") {
		t.Fatalf("revert of an unknown run: %v", err)
	}

	// The session's next run is told.
	next := rs.start(t, lspserver.RunArgs{Prompt: "What happened to my files?", SessionID: sessionOfFirstRun(t, rs)})
	rs.event(t, next, "finished")
	reqs := rs.model.Requests()
	if last := reqs[len(reqs)-1]; !last.Contains("The user reverted the changes of run "+id) || !last.Contains("NOTES.md: deleted") {
		t.Fatal("the next run was not told about the revert")
	}

	// The report of the run shows the fates, and the editor is asked to open it.
	var rep lspserver.ReportResult
	if err := rs.c.Call(lsptest.Context(t), protocol.MethodWorkspaceExecuteCommand, command(lspserver.CommandOpenReport, lspserver.ReportArgs{RunID: id}), &rep); err != nil {
		t.Fatal(err)
	}
	page, err := os.ReadFile(strings.TrimPrefix(rep.URI, "file://"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`class="badge accepted fate">accepted`, `class="badge reverted fate">reverted`, "Make One return 100."} {
		if !strings.Contains(string(page), want) {
			t.Errorf("report lacks %q", want)
		}
	}
	if sd := testwait.Recv(t, shown, "window/showDocument of the report"); string(sd.URI) != rep.URI || sd.External == nil || !*sd.External {
		t.Fatalf("showDocument %+v, want the report %s, external", sd, rep.URI)
	}
}

// agentls/models lists the endpoint's models and model.choices; an
// endpoint answering garbage still leaves the configured model and the
// choices. A run can pick its model and its follow-ups keep it.
func TestModelsAndModelChoice(t *testing.T) {
	for _, tc := range []struct {
		name, body string
		want       []string
		err        bool
	}{
		{"endpoint", `{"object":"list","data":[{"id":"gpt-b","object":"model"},{"id":"gpt-a","object":"model"},{"id":"test-model"}]}`, []string{"test-model", "picked", "gpt-a", "gpt-b"}, false},
		{"garbage", `<html>oops`, []string{"test-model", "picked"}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := llmtest.New(t, llmtest.Always(llmtest.Text("ok")), llmtest.WithModels(tc.body))
			rs := newRunSession(t, nil, runOpts{noModel: true, settings: map[string]any{
				"model": map[string]any{"baseURL": srv.URL(), "name": "test-model", "choices": []string{"picked"}}}})
			var res lspserver.ModelsResult
			if err := rs.c.Call(lsptest.Context(t), lspserver.MethodModels, struct{}{}, &res); err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, m := range res.Models {
				got = append(got, m.ID)
			}
			if strings.Join(got, ",") != strings.Join(tc.want, ",") || res.Current != "test-model" || (res.Error != "") != tc.err {
				t.Fatalf("models = %+v", res)
			}
			if tc.err {
				return
			}
			id := rs.start(t, lspserver.RunArgs{Prompt: "hi", Model: "picked"})
			rs.event(t, id, "finished")
			id2 := rs.start(t, lspserver.RunArgs{Prompt: "again", SessionID: sessionOfFirstRun(t, rs)})
			rs.event(t, id2, "finished")
			reqs := srv.Requests()
			if reqs[0].Model != "picked" || reqs[len(reqs)-1].Model != "picked" {
				t.Fatalf("models used: %q then %q", reqs[0].Model, reqs[len(reqs)-1].Model)
			}
			var sessions lspserver.SessionsResult
			if err := rs.c.Call(lsptest.Context(t), lspserver.MethodSessions, struct{}{}, &sessions); err != nil {
				t.Fatal(err)
			}
			if len(sessions.Sessions) != 1 || sessions.Sessions[0].Tokens <= 0 || sessions.Sessions[0].Model != "picked" || sessions.Sessions[0].CostUSD != nil {
				t.Fatalf("sessions = %+v", sessions.Sessions)
			}
		})
	}
}

func revertRun(t *testing.T, rs *runSession, id string) lspserver.RevertResult {
	t.Helper()
	var res lspserver.RevertResult
	if err := rs.c.Call(lsptest.Context(t), protocol.MethodWorkspaceExecuteCommand, command(lspserver.CommandRevert, lspserver.RevertArgs{RunID: id}), &res); err != nil {
		t.Fatalf("agentls.revert: %v", err)
	}
	return res
}

func sessionOfFirstRun(t *testing.T, rs *runSession) string {
	t.Helper()
	var sessions lspserver.SessionsResult
	if err := rs.c.Call(lsptest.Context(t), lspserver.MethodSessions, struct{}{}, &sessions); err != nil || len(sessions.Sessions) == 0 {
		t.Fatalf("sessions: %v %+v", err, sessions)
	}
	return sessions.Sessions[0].ID
}

func codeActions(t *testing.T, s *session, u uri.URI, line, char uint32) []json.RawMessage {
	t.Helper()
	var acts []json.RawMessage
	ctx := lsptest.Context(t)
	p := &protocol.CodeActionParams{TextDocument: protocol.TextDocumentIdentifier{URI: u},
		Range: protocol.Range{Start: protocol.Position{Line: line, Character: char}, End: protocol.Position{Line: line, Character: char}}}
	if err := s.c.Call(ctx, protocol.MethodTextDocumentCodeAction, p, &acts); err != nil {
		t.Fatal(err)
	}
	return acts
}

func hasAction(acts []json.RawMessage, title string) bool {
	for _, a := range acts {
		var x struct {
			Title string `json:"title"`
		}
		if json.Unmarshal(a, &x) == nil && x.Title == title {
			return true
		}
	}
	return false
}

// A run's two hunks in one file accepted one at a time, the user typing
// between the two accepts: the revert undoes both hunks and keeps what the
// user typed in between (the snapshot keeps the two landings apart, or the
// user's line would look like the run's and be taken back).
func TestRevertKeepsTypingBetweenAccepts(t *testing.T) {
	rs := newRunSession(t, lateScript, runOpts{transcript: true, runOpts: lspserver.RunOptions{StateDir: t.TempDir()}})
	e := editorFor(rs.session, text.UTF16)
	u := e.open(t, "a.go", lateBase)
	id := rs.start(t, lspserver.RunArgs{Prompt: "Make them bigger.", URI: string(u)})
	rs.event(t, id, "finished")
	hs := e.hunks(t, u)
	if len(hs) != 2 {
		t.Fatalf("hunks = %+v", hs)
	}
	if res := e.accept(t, reviewArgs{HunkID: hs[0].ID}); !res.Applied {
		t.Fatalf("first accept = %+v", res)
	}
	cur := e.text(t, u)
	at := strings.Index(cur, "Two is two.")
	e.typeAt(t, u, at, at+len("Two is two."), "Two is mine.")
	if res := e.accept(t, reviewArgs{HunkID: e.hunks(t, u)[0].ID}); !res.Applied {
		t.Fatalf("second accept = %+v", res)
	}
	want := strings.NewReplacer("return 1", "return 100", "return 2", "return 200", "Two is two.", "Two is mine.").Replace(lateBase)
	if e.text(t, u) != want {
		t.Fatalf("after both accepts %q, want %q", e.text(t, u), want)
	}
	if rv := revertRun(t, rs, id); rv.Reverted != 1 || len(rv.Conflicts) != 0 || rv.FailureReason != "" {
		t.Fatalf("revert = %+v", rv)
	}
	if want := strings.Replace(lateBase, "Two is two.", "Two is mine.", 1); e.text(t, u) != want {
		t.Fatalf("after revert %q, want %q: the user's line between the accepts was taken back", e.text(t, u), want)
	}
}
