package lspserver_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/agentls/agentls/agent/llm/llmtest"
	"github.com/agentls/agentls/internal/text"
	"github.com/agentls/agentls/lspserver"
	"github.com/agentls/agentls/lspserver/lsptest"
)

// silentEditor makes the client receive workspace/applyEdit and never
// answer it (until the test ends). It returns a channel that gets each
// request as it arrives.
func silentEditor(t *testing.T, c *lsptest.Client) <-chan lsptest.Message {
	t.Helper()
	release := make(chan struct{})
	t.Cleanup(func() { close(release) })
	got := make(chan lsptest.Message, 16)
	c.Handle(protocol.MethodWorkspaceApplyEdit, func(m lsptest.Message) (any, *lsptest.Error) {
		select {
		case got <- m:
		default:
		}
		<-release
		return nil, &lsptest.Error{Code: lsptest.CodeInternalError, Message: "too late"}
	})
	return got
}

// TestAcceptEditorNeverAnswers: an accept whose workspace/applyEdit the
// editor never answers ends after client.requestTimeoutSeconds with
// applied:false and a failureReason; the hunks stay pending and a later
// accept (the editor answering again) works.
func TestAcceptEditorNeverAnswers(t *testing.T) {
	t.Parallel()
	s := newSession(t, lsptest.InitOptions{InitializationOptions: map[string]any{
		"client": map[string]any{"requestTimeoutSeconds": 1},
	}}, lspserver.Options{})
	e := editorFor(s, text.UTF16)
	u := e.open(t, "demo.go", demoBase)
	e.stage("run1", "demo.go", demoBase, demoProposed, false)
	sent := silentEditor(t, s.c)
	res := e.accept(t, reviewArgs{})
	if res.Applied || !strings.Contains(res.FailureReason, "did not answer") {
		t.Fatalf("accept = %+v, want applied:false with a failureReason saying the editor did not answer", res)
	}
	select {
	case <-sent:
	default:
		t.Fatal("the server never sent workspace/applyEdit")
	}
	hunks := e.hunks(t, u)
	if len(hunks) != 3 || hunks[0].Status != "pending" || !strings.Contains(hunks[0].LastError, "did not answer") {
		t.Fatalf("hunks after the unanswered accept = %+v", hunks)
	}
	s.c.Handle(protocol.MethodWorkspaceApplyEdit, e.applyEdit)
	if res = e.accept(t, reviewArgs{}); !res.Applied {
		t.Fatalf("accept with an answering editor = %+v", res)
	}
	if got := e.text(t, u); got != demoProposed {
		t.Fatalf("after accept: %q", got)
	}
}

// TestApplyModeEditorNeverAnswers: in apply mode, an edit the editor never
// answers fails that step after client.requestTimeoutSeconds (a toolResult
// error event), and the run still ends, with the change left for review.
func TestApplyModeEditorNeverAnswers(t *testing.T) {
	t.Parallel()
	script := stepsScript("Done.", readCall("r1", "a.txt"), editCall("e1", "a.txt", "one", "uno"))
	rs, ed := applySession(t, script, "", runOpts{settings: map[string]any{
		"client": map[string]any{"requestTimeoutSeconds": 1},
	}})
	ua := uri.File(rs.write(t, "a.txt", "one\n"))
	ed.open(t, ua, "one\n")
	silentEditor(t, rs.c)
	id := rs.start(t, lspserver.RunArgs{Prompt: "Spanish."})
	evs := rs.events(t, id)
	fin := evs[len(evs)-1]
	if fin.Kind != "finished" || fin.Pending == nil || *fin.Pending != 1 {
		t.Fatalf("final event %+v; kinds %v", fin, kinds(evs))
	}
	found := false
	for _, ev := range evs {
		if ev.Kind == "toolResult" && ev.Tool == "applyEdit" && ev.IsError != nil && *ev.IsError && strings.Contains(ev.Summary, "did not answer") {
			found = true
		}
	}
	if !found {
		t.Errorf("no applyEdit error event saying the editor did not answer: %+v", evs)
	}
}

// TestApplyModeCancelWhileEditorSilent: cancelling an apply-mode run whose
// workspace/applyEdit is unanswered ends the run at once (the timeout is
// the default 30 s, so only the cancel can end it).
func TestApplyModeCancelWhileEditorSilent(t *testing.T) {
	t.Parallel()
	script := stepsScript("Done.", readCall("r1", "a.txt"), editCall("e1", "a.txt", "one", "uno"))
	rs, ed := applySession(t, script, "", runOpts{})
	ua := uri.File(rs.write(t, "a.txt", "one\n"))
	ed.open(t, ua, "one\n")
	sent := silentEditor(t, rs.c)
	id := rs.start(t, lspserver.RunArgs{Prompt: "Spanish."})
	select {
	case <-sent:
	case <-lsptest.Context(t).Done():
		t.Fatal("no workspace/applyEdit arrived")
	}
	if !rs.cancel(t, id) {
		t.Fatal("cancel said false")
	}
	evs := rs.events(t, id)
	if fin := evs[len(evs)-1]; fin.Kind != "cancelled" {
		t.Fatalf("final event %+v; kinds %v", fin, kinds(evs))
	}
}

// TestApprovalUnansweredCancel: an approval prompt waits for a person (it
// has no client.requestTimeoutSeconds of its own); cancelling the run ends
// the wait at once, and the command never runs.
func TestApprovalUnansweredCancel(t *testing.T) {
	t.Parallel()
	script := stepsScript("done", step{call: llmtest.Call{ID: "c1", Name: "run_command", Args: callArgs(map[string]any{"command": "echo ran > ran.txt"})}})
	rs := newRunSession(t, script, runOpts{settings: map[string]any{
		"tools":  map[string]any{"runCommand": "ask"},
		"client": map[string]any{"requestTimeoutSeconds": 1},
	}})
	release := make(chan struct{})
	t.Cleanup(func() { close(release) })
	rs.c.Handle(protocol.MethodWindowShowMessageRequest, func(m lsptest.Message) (any, *lsptest.Error) {
		<-release
		return nil, nil
	})
	id := rs.start(t, lspserver.RunArgs{Prompt: "x"})
	if _, err := rs.c.Await(lsptest.Context(t), protocol.MethodWindowShowMessageRequest, nil); err != nil {
		t.Fatal(err)
	}
	if !rs.cancel(t, id) {
		t.Fatal("cancel said false")
	}
	evs := rs.events(t, id)
	if fin := evs[len(evs)-1]; fin.Kind != "cancelled" {
		t.Fatalf("final event %+v; kinds %v", fin, kinds(evs))
	}
	if _, err := os.Stat(filepath.Join(rs.root, "ran.txt")); !os.IsNotExist(err) {
		t.Errorf("the unapproved command ran: %v", err)
	}
}
