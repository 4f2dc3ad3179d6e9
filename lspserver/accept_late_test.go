package lspserver_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/agent/llm/llmtest"
	"github.com/agentls/agentls/internal/testwait"
	"github.com/agentls/agentls/internal/text"
	"github.com/agentls/agentls/lspserver"
	"github.com/agentls/agentls/lspserver/lsptest"
)

// Editors that send an applied edit's didChange only after the accept
// command's answer (eglot from an idle timer; Helix, kak-lsp): the accept
// is answered verifying:true and settled when the didChange shows the
// edit, or put back in review (and the user told) when it never does. The
// fake editor's applyLate mode is such an editor, whatever its name.

const lateBase = "package demo\n\n// One is one.\nfunc One() int {\n\treturn 1\n}\n\n// Two is two.\nfunc Two() int {\n\treturn 2\n}\n"

// lateScript makes a run change both functions of a.go: two hunks.
func lateScript(req *llmtest.ChatRequest) llmtest.Reply {
	switch {
	case req.Contains("What did I do with your change?"):
		return llmtest.Text("You took it.")
	case !req.HasToolResult("r1"):
		return llmtest.ToolCalls(llmtest.Call{ID: "r1", Name: "read_file", Args: callArgs(map[string]any{"path": "a.go"})})
	case !req.HasToolResult("e1"):
		return llmtest.ToolCalls(
			llmtest.Call{ID: "e1", Name: "edit_file", Args: callArgs(map[string]any{"path": "a.go", "old_string": "return 1", "new_string": "return 100"})},
			llmtest.Call{ID: "e2", Name: "edit_file", Args: callArgs(map[string]any{"path": "a.go", "old_string": "return 2", "new_string": "return 200"})})
	}
	return llmtest.Text("Done.")
}

// lateRun starts a session whose editor sends applied edits late, runs
// lateScript to its end and returns the run id, the editor and a.go's URI
// (two hunks pending, the first on "return 1").
func lateRun(t *testing.T) (*runSession, *fakeEditor, string) {
	t.Helper()
	rs := newRunSession(t, lateScript, runOpts{transcript: true, runOpts: lspserver.RunOptions{StateDir: t.TempDir()}})
	e := editorFor(rs.session, text.UTF16)
	u := e.open(t, "a.go", lateBase)
	id := rs.start(t, lspserver.RunArgs{Prompt: "Make them bigger.", URI: string(u)})
	if fin := rs.event(t, id, "finished"); fin.Pending == nil || *fin.Pending != 1 {
		t.Fatalf("finished = %+v, want a.go pending", fin)
	}
	if hs := e.hunks(t, u); len(hs) != 2 || hs[0].NewText != "\treturn 100\n" {
		t.Fatalf("hunks = %+v", hs)
	}
	// The command waits this long for the edit to show, then answers; the
	// check after the answer waits long enough for a loaded machine (the
	// tests of edits that never show shorten it).
	lspserver.SetVerifyGrace(rs.srv, 20*time.Millisecond)
	lspserver.SetVerifyTimeout(rs.srv, time.Minute)
	e.setMode(applyLate, "")
	return rs, e, id
}

// fates are the fate records of run id's transcript.
func fates(t *testing.T, rs *runSession, id string) []agent.Fate {
	t.Helper()
	path, err := agent.FindTranscript(rs.transcriptDir, id)
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []agent.Fate
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var rec struct {
			Kind, RunID, Path, Fate, Reason string
			Hunks                           int
		}
		if json.Unmarshal(sc.Bytes(), &rec) == nil && rec.Kind == "fate" {
			out = append(out, agent.Fate{RunID: rec.RunID, Path: rec.Path, Fate: rec.Fate, Hunks: rec.Hunks, Reason: rec.Reason})
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// warnings are the window/showMessage warnings the client received.
func warnings(c *lsptest.Client) []string {
	var out []string
	for _, m := range c.Received() {
		var p protocol.ShowMessageParams
		if m.Method == protocol.MethodWindowShowMessage && m.DecodeParams(&p) == nil && p.Type == protocol.MessageTypeWarning {
			out = append(out, p.Message)
		}
	}
	return out
}

// The editor shows the edit after the answer, with the user's typing after
// it in the same didChange: the accept is settled then, with everything an
// accept answered at once records (the proposal store, the fate in the
// transcript, the revert snapshot, the session's note), and the user's
// typing stays the user's.
func TestAcceptShownAfterTheAnswer(t *testing.T) {
	rs, e, id := lateRun(t)
	u := rs.fileURI("a.go")
	first := e.hunks(t, u)[0].ID
	res := e.accept(t, reviewArgs{HunkID: first})
	if !res.Applied || !res.Verifying || res.FailureReason != "" || len(res.AppliedHunks) != 1 || res.AppliedHunks[0] != first {
		t.Fatalf("accept = %+v, want applied and verifying %s", res, first)
	}
	edited := strings.Replace(lateBase, "return 1", "return 100", 1)
	if e.text(t, u) != edited {
		t.Fatalf("the editor's buffer %q", e.text(t, u))
	}
	// Nothing is recorded before the editor shows the edit.
	if fs := fates(t, rs, id); len(fs) != 0 {
		t.Fatalf("fates before the didChange: %+v", fs)
	}
	// The user types after the edit, before the editor reports it.
	at := strings.Index(edited, "Two is two.")
	e.typeHeld(t, u, at, at+len("Two is two."), "Two is mine.")
	if n := e.releaseHeld(t); n != 1 {
		t.Fatalf("%d didChanges held, want 1", n)
	}
	testwait.Until(t, "the accepted fate", func() bool { return len(fates(t, rs, id)) == 1 })
	if fs := fates(t, rs, id); fs[0].Fate != agent.FateAccepted || fs[0].Hunks != 1 {
		t.Fatalf("fates = %+v", fs)
	}
	mine := strings.Replace(edited, "Two is two.", "Two is mine.", 1)
	if hs := e.hunks(t, u); len(hs) != 1 || hs[0].Status != "pending" || hs[0].Range.Start.Line != 9 || hs[0].LastError != "" {
		t.Fatalf("hunks after the late accept = %+v", hs)
	}
	if got := e.proposals(t, u)[0].ProposedText; got != strings.Replace(mine, "return 2", "return 200", 1) {
		t.Fatalf("proposal now %q", got)
	}
	title := "Agent: Revert run " + id
	testwait.Until(t, "the revert code action", func() bool { return hasAction(codeActions(t, rs.session, u, 4, 3), title) })
	if w := warnings(rs.c); len(w) != 0 {
		t.Fatalf("warnings: %q", w)
	}

	// The snapshot is there: the revert takes the change back and keeps
	// the user's line (the revert's own edit is shown late too).
	if rv := revertRun(t, rs, id); rv.Reverted != 1 || len(rv.Conflicts) != 0 || rv.FailureReason != "" {
		t.Fatalf("revert = %+v", rv)
	}
	e.releaseHeld(t)
	if want := strings.Replace(lateBase, "Two is two.", "Two is mine.", 1); e.text(t, u) != want {
		t.Fatalf("after revert %q, want %q", e.text(t, u), want)
	}
	// The session's next run was told of the accept.
	next := rs.start(t, lspserver.RunArgs{Prompt: "What did I do with your change?", SessionID: sessionOfFirstRun(t, rs)})
	rs.event(t, next, "finished")
	reqs := rs.model.Requests()
	if last := reqs[len(reqs)-1]; !last.Contains("The user accepted 1 hunk of your change to a.go") {
		t.Fatal("the next run was not told of the accept")
	}
}

// A session whose editor showed an edit after the answer once is answered
// at once from then on: the command does not wait for the edit at all,
// however long the grace.
func TestAcceptLateEditorLearnt(t *testing.T) {
	rs, e, id := lateRun(t)
	u := rs.fileURI("a.go")
	if res := e.accept(t, reviewArgs{HunkID: e.hunks(t, u)[0].ID}); !res.Verifying {
		t.Fatalf("first accept = %+v", res)
	}
	e.releaseHeld(t)
	testwait.Until(t, "the first fate", func() bool { return len(fates(t, rs, id)) == 1 })

	lspserver.SetVerifyGrace(rs.srv, time.Hour)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second) // a hang guard, not a timing
	defer cancel()
	var again acceptResult
	if err := rs.c.Call(ctx, protocol.MethodWorkspaceExecuteCommand, command(lspserver.CommandAccept, reviewArgs{RunID: id}), &again); err != nil {
		t.Fatalf("second accept: %v", err)
	}
	if !again.Applied || !again.Verifying || len(again.AppliedHunks) != 1 {
		t.Fatalf("second accept = %+v", again)
	}
	e.releaseHeld(t)
	testwait.Until(t, "the second fate", func() bool { return len(fates(t, rs, id)) == 2 })
	if fs := fates(t, rs, id); fs[1].Fate != agent.FateAccepted || fs[1].Hunks != 1 {
		t.Fatalf("fates = %+v", fs)
	}
	if ps := e.proposals(t, u); len(ps) != 0 {
		t.Fatalf("proposals left: %+v", ps)
	}
	if want := strings.Replace(strings.Replace(lateBase, "return 1", "return 100", 1), "return 2", "return 200", 1); e.text(t, u) != want {
		t.Fatalf("text %q", e.text(t, u))
	}
}

// The editor answers applied:true and never shows the edit: once the
// bound passes the accept fails as one answered at once would (hunks
// pending with the reason), the user is told, and nothing is recorded.
func TestAcceptNeverShown(t *testing.T) {
	rs, e, id := lateRun(t)
	lspserver.SetVerifyTimeout(rs.srv, 200*time.Millisecond)
	u := rs.fileURI("a.go")
	res := e.accept(t, reviewArgs{RunID: id})
	if !res.Applied || !res.Verifying || len(res.AppliedHunks) != 2 {
		t.Fatalf("accept = %+v", res)
	}
	msg := rs.showMessage(t, "was not recorded")
	if msg.Type != protocol.MessageTypeWarning || !strings.Contains(msg.Message, "a.go") ||
		!strings.Contains(msg.Message, "does not contain the change") || !strings.Contains(msg.Message, "2 change(s) are back in review") {
		t.Fatalf("showMessage %+v", msg)
	}
	hs := e.hunks(t, u)
	if len(hs) != 2 {
		t.Fatalf("hunks = %+v", hs)
	}
	for _, h := range hs {
		if h.Status != "pending" || !strings.Contains(h.LastError, "does not contain the change") {
			t.Fatalf("hunk after the failed accept = %+v", h)
		}
	}
	if fs := fates(t, rs, id); len(fs) != 0 {
		t.Fatalf("fates = %+v", fs)
	}
	var rpcErr *lsptest.Error
	err := rs.c.Call(lsptest.Context(t), protocol.MethodWorkspaceExecuteCommand, command(lspserver.CommandRevert, lspserver.RevertArgs{RunID: id}), &struct{}{})
	if !errors.As(err, &rpcErr) || rpcErr.Code != lsptest.CodeInvalidParams {
		t.Fatalf("revert of a run nothing was accepted of: %v", err)
	}
}

// The editor answers applied:true, but the didChange that comes brings
// another text: the user's edit on the hunk's line, not the agent's. It
// is rebased as the user's edit (the hunk it reached is conflicted),
// never recorded as accepted, and the user is told. An editor that shows
// its edits at once is then settled in the answer, as always.
func TestAcceptShownAsOtherText(t *testing.T) {
	rs, e, id := lateRun(t)
	lspserver.SetVerifyTimeout(rs.srv, 200*time.Millisecond)
	u := rs.fileURI("a.go")
	hs := e.hunks(t, u)
	if res := e.accept(t, reviewArgs{HunkID: hs[0].ID}); !res.Applied || !res.Verifying {
		t.Fatalf("accept = %+v", res)
	}
	e.dropHeld(t)
	e.setMode(applyNormally, "")
	at := strings.Index(lateBase, "return 1")
	e.typeAt(t, u, at, at+len("return 1"), "return 7")
	rs.showMessage(t, "was not recorded")
	after := e.hunks(t, u)
	if len(after) != 2 || after[0].Status != "conflicted" || after[1].Status != "pending" {
		t.Fatalf("hunks = %+v", after)
	}
	if fs := fates(t, rs, id); len(fs) != 0 {
		t.Fatalf("fates = %+v", fs)
	}
	// A normal editor: the didChange comes before the answer, which
	// settles the accept itself.
	res := e.accept(t, reviewArgs{HunkID: after[1].ID})
	if !res.Applied || res.Verifying {
		t.Fatalf("accept with a normal editor = %+v", res)
	}
	if fs := fates(t, rs, id); len(fs) != 1 || fs[0].Fate != agent.FateAccepted {
		t.Fatalf("fates after the normal accept = %+v", fs)
	}
	if want := strings.Replace(strings.Replace(lateBase, "return 1", "return 7", 1), "return 2", "return 200", 1); e.text(t, u) != want {
		t.Fatalf("text %q", e.text(t, u))
	}
}
