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

// Four runs each change one line of a.go and are accepted in turn, the
// last adding a line above the others' lines. The
// history actions ("Agent: Revert run …", "Agent: Open report of run …")
// are offered on a run's own line, where it is now, and at once after its
// accept; on a line no run changed, none; over the whole file, those of
// the two newest runs only (issue 31: eglot's menu gained two entries per
// run on every line).
func TestHistoryActionsOnlyOnTheRunsLines(t *testing.T) {
	const base = "package demo\n\nfunc A() int { return 1 }\n\nfunc B() int { return 2 }\n\nfunc C() int { return 3 }\n\nfunc D() int { return 4 }\n"
	edits := map[string][2]string{
		"Change A.": {"func A() int { return 1 }", "// A is ten.\nfunc A() int { return 10 }"}, // two lines: the lines below move
		"Change B.": {"return 2", "return 20"},
		"Change C.": {"return 3", "return 30"},
		"Change D.": {"return 4", "return 40"},
	}
	script := func(req *llmtest.ChatRequest) llmtest.Reply {
		for prompt, e := range edits {
			if !req.Contains(prompt) {
				continue
			}
			id := "e" + prompt[7:8]
			if !req.HasToolResult("r" + id) {
				return llmtest.ToolCalls(llmtest.Call{ID: "r" + id, Name: "read_file", Args: callArgs(map[string]any{"path": "a.go"})})
			}
			if !req.HasToolResult(id) {
				return llmtest.ToolCalls(llmtest.Call{ID: id, Name: "edit_file", Args: callArgs(map[string]any{"path": "a.go", "old_string": e[0], "new_string": e[1]})})
			}
		}
		return llmtest.Text("Done.")
	}
	rs := newRunSession(t, script, runOpts{transcript: true, runOpts: lspserver.RunOptions{StateDir: t.TempDir()}})
	e := editorFor(rs.session, text.UTF16)
	u := e.open(t, "a.go", base)
	lineOf := func(s string) uint32 {
		cur := e.text(t, u)
		return uint32(strings.Count(cur[:strings.Index(cur, s)], "\n"))
	}
	history := func(acts []json.RawMessage) []string {
		var out []string
		for _, a := range acts {
			var x struct {
				Title string `json:"title"`
			}
			if json.Unmarshal(a, &x) == nil && (strings.HasPrefix(x.Title, "Agent: Revert run") || strings.HasPrefix(x.Title, "Agent: Open report of run")) {
				out = append(out, x.Title)
			}
		}
		return out
	}
	var ids []string
	for _, prompt := range []string{"Change B.", "Change C.", "Change D.", "Change A."} {
		id := rs.start(t, lspserver.RunArgs{Prompt: prompt, URI: string(u)})
		rs.event(t, id, "finished")
		if res := e.accept(t, reviewArgs{RunID: id}); !res.Applied {
			t.Fatalf("accept of %q = %+v", prompt, res)
		}
		ids = append(ids, id)
		// At once: the run's revert is on its line right after the accept.
		line := lineOf(edits[prompt][1][strings.LastIndex(edits[prompt][1], "return"):])
		want := []string{"Agent: Revert run " + id, "Agent: Open report of run " + id}
		if got := history(codeActions(t, rs.session, u, line, 0)); strings.Join(got, "|") != strings.Join(want, "|") {
			t.Fatalf("right after accepting %s, its line %d offers %q, want %q", id, line, got, want)
		}
	}
	for i, ret := range []string{"return 20", "return 30", "return 40", "return 10"} {
		want := []string{"Agent: Revert run " + ids[i], "Agent: Open report of run " + ids[i]}
		if got := history(codeActions(t, rs.session, u, lineOf(ret), 0)); strings.Join(got, "|") != strings.Join(want, "|") {
			t.Errorf("the line of %q offers %q, want %q", ret, got, want)
		}
	}
	if got := history(codeActions(t, rs.session, u, lineOf("package demo"), 0)); len(got) != 0 {
		t.Errorf("a line no run changed offers %q, want none", got)
	}
	if got := history(codeActions(t, rs.session, u, lineOf("// A is ten."), 0)); len(got) != 2 || !strings.Contains(got[0], ids[3]) {
		t.Errorf("the first run's other line offers %q, want its two actions", got)
	}
	var all []json.RawMessage
	p := &protocol.CodeActionParams{TextDocument: protocol.TextDocumentIdentifier{URI: u},
		Range: protocol.Range{End: protocol.Position{Line: lineOf("return 40") + 1}}}
	if err := rs.c.Call(lsptest.Context(t), protocol.MethodTextDocumentCodeAction, p, &all); err != nil {
		t.Fatal(err)
	}
	want := []string{"Agent: Revert run " + ids[3], "Agent: Open report of run " + ids[3], "Agent: Revert run " + ids[2], "Agent: Open report of run " + ids[2]} // A's, then D's
	if got := history(all); strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("the whole file offers %q, want the two newest runs' %q", got, want)
	}
}
