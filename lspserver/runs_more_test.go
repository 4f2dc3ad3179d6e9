package lspserver_test

import (
	"encoding/json"
	"strings"
	"testing"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/agentls/agentls/agent/llm/llmtest"
	"github.com/agentls/agentls/internal/testwait"
	"github.com/agentls/agentls/lspserver"
	"github.com/agentls/agentls/lspserver/lsptest"
)

// TestRunPreviewProposes: in preview mode an edit becomes a proposal
// (event "proposal" with the uri, listed by agentls/proposals); the
// editor's buffer and the disk are untouched; the end counts it.
func TestRunPreviewProposes(t *testing.T) {
	t.Parallel()
	script := stepsScript("Renamed.", readCall("r1", "p.go"), editCall("e1", "p.go", "old()", "renamed()"))
	rs := newRunSession(t, script, runOpts{})
	path := rs.write(t, "p.go", "package p\n\nfunc old() {}\n")
	u := uri.File(path)
	if err := rs.c.DidOpen(lsptest.Context(t), u, "go", 4, "package p\n\nfunc old() {}\n"); err != nil {
		t.Fatal(err)
	}
	id := rs.start(t, lspserver.RunArgs{Prompt: "Rename old.", URI: string(u)})
	evs := rs.events(t, id)
	checkSeq(t, evs)
	prop := firstOf(t, evs, "proposal")
	if prop.URI != string(u) || prop.Applied != nil {
		t.Errorf("proposal event %+v", prop)
	}
	if fin := evs[len(evs)-1]; fin.Kind != "finished" || *fin.Pending != 1 {
		t.Errorf("final event %+v", fin)
	}
	rs.showMessage(t, "Agent run "+id+" finished: Renamed; 1 changed file pending review")
	var props lspserver.ProposalsResult
	if err := rs.c.Call(lsptest.Context(t), lspserver.MethodProposals, &lspserver.ProposalsParams{URI: u}, &props); err != nil {
		t.Fatal(err)
	}
	if len(props.Proposals) != 1 || props.Proposals[0].ProposedText != "package p\n\nfunc renamed() {}\n" {
		t.Fatalf("proposals %+v", props.Proposals)
	}
	if n := countMethod(rs.c, protocol.MethodWorkspaceApplyEdit); n != 0 {
		t.Errorf("%d applyEdit requests in preview mode", n)
	}
	// The editor context reached the model: the file is named in the task.
	if first := rs.model.Requests()[0]; !strings.Contains(first.LastUser(), "p.go") {
		t.Errorf("task message %q does not name the file", first.LastUser())
	}
}

func countMethod(c *lsptest.Client, method string) int {
	n := 0
	for _, m := range c.Received() {
		if m.Method == method {
			n++
		}
	}
	return n
}

// TestRunSelectionInPrompt: the range of agentls.run is cut from the open
// buffer (not the disk) in the session's encoding and given to the model.
func TestRunSelectionInPrompt(t *testing.T) {
	t.Parallel()
	rs := newRunSession(t, llmtest.Always(llmtest.Text("ok")), runOpts{init: lsptest.InitOptions{PositionEncodings: []string{"utf-8"}}})
	path := rs.write(t, "s.go", "on disk\n")
	u := uri.File(path)
	buf := "x := \"😀\" // pick THIS part\n"
	if err := rs.c.DidOpen(lsptest.Context(t), u, "go", 1, buf); err != nil {
		t.Fatal(err)
	}
	start := uint32(strings.Index(buf, "THIS")) // bytes: utf-8 session
	r := protocol.Range{Start: protocol.Position{Line: 0, Character: start}, End: protocol.Position{Line: 0, Character: start + 9}}
	id := rs.start(t, lspserver.RunArgs{Prompt: "Explain.", URI: string(u), Range: &r})
	rs.event(t, id, "finished")
	task := rs.model.Requests()[0].LastUser()
	if !strings.Contains(task, "THIS part") || strings.Contains(task, "on disk") {
		t.Errorf("task message lacks the selection:\n%s", task)
	}
}

// TestTwoRunsAtOnce: two runs in parallel both finish; their events
// interleave on the wire but each run's are its own, numbered from 1.
func TestTwoRunsAtOnce(t *testing.T) {
	t.Parallel()
	pause := llmtest.NewPause()
	script := func(req *llmtest.ChatRequest) llmtest.Reply {
		task := req.Messages[1].Content
		name := "alpha"
		if strings.Contains(task, "beta") {
			name = "beta"
		}
		id := "read-" + name
		if !req.HasToolResult(id) {
			r := llmtest.ToolCalls(llmtest.Call{ID: id, Name: "read_file", Args: callArgs(map[string]any{"path": name + ".txt"})})
			if name == "alpha" {
				r = r.PauseAfter(1, pause)
			}
			return r
		}
		res, _ := req.ToolResult(id)
		return llmtest.Text("answer " + name + ": " + strings.TrimSpace(lastLine(res)))
	}
	rs := newRunSession(t, script, runOpts{})
	rs.write(t, "alpha.txt", "contents of alpha\n")
	rs.write(t, "beta.txt", "contents of beta\n")

	a := rs.start(t, lspserver.RunArgs{Prompt: "Read alpha."})
	testwait.Recv(t, pause.Reached(), "the model to reach its pause")
	b := rs.start(t, lspserver.RunArgs{Prompt: "Read beta."})
	rs.event(t, b, "finished") // beta finishes while alpha is mid-stream
	pause.Release()
	ea, eb := rs.events(t, a), rs.events(t, b)
	checkSeq(t, ea)
	checkSeq(t, eb)
	if fa := ea[len(ea)-1]; fa.Kind != "finished" || !strings.Contains(*fa.Text, "answer alpha") || !strings.Contains(*fa.Text, "contents of alpha") {
		t.Errorf("alpha ended with %+v", fa)
	}
	if fb := eb[len(eb)-1]; fb.Kind != "finished" || !strings.Contains(*fb.Text, "answer beta") || !strings.Contains(*fb.Text, "contents of beta") {
		t.Errorf("beta ended with %+v", fb)
	}
	// Interleaved: beta's whole run lies between alpha's start and end.
	var order []string
	for _, m := range rs.c.Received() {
		var e lspserver.RunEvent
		if m.Method == lspserver.MethodRunEvent && json.Unmarshal(m.Params, &e) == nil && e.Kind != "text" {
			order = append(order, map[string]string{a: "A", b: "B"}[e.RunID]+":"+e.Kind)
		}
	}
	got := strings.Join(order, " ")
	if !strings.HasPrefix(got, "A:started") || !strings.Contains(got, "B:finished") || !strings.HasSuffix(got, "A:finished") {
		t.Errorf("event order %s", got)
	}
}

func lastLine(s string) string {
	s = strings.TrimRight(s, "\n")
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		return s[i+1:]
	}
	return s
}

// TestRunQueue: with maxConcurrentRuns 1 a second run waits ("queued" in
// its progress) and can be cancelled while waiting; a third starts once
// the first ends.
func TestRunQueue(t *testing.T) {
	t.Parallel()
	hang := llmtest.NewHang()
	script := func(req *llmtest.ChatRequest) llmtest.Reply {
		if strings.Contains(req.Messages[1].Content, "first") {
			return llmtest.Text("first is slow").HangAfter(1, hang)
		}
		return llmtest.Text("quick")
	}
	rs := newRunSession(t, script, runOpts{settings: map[string]any{"maxConcurrentRuns": 1}})
	first := rs.start(t, lspserver.RunArgs{Prompt: "first"})
	testwait.Recv(t, hang.Started(), "the model request to start")
	second := rs.start(t, lspserver.RunArgs{Prompt: "second"})
	token := "agentls-run-" + second
	if _, err := rs.c.Await(lsptest.Context(t), protocol.MethodProgress, func(m lsptest.Message) bool {
		return strings.Contains(string(m.Params), token) && strings.Contains(string(m.Params), "queued")
	}); err != nil {
		t.Fatal(err)
	}
	if !rs.cancel(t, second) {
		t.Fatal("cancel of a queued run said false")
	}
	if evs := rs.events(t, second); len(evs) != 1 || evs[0].Kind != "cancelled" || evs[0].Seq != 1 {
		t.Errorf("queued run's events %+v", evs)
	}
	third := rs.start(t, lspserver.RunArgs{Prompt: "third"})
	if !rs.cancel(t, first) {
		t.Fatal("cancel of the first run said false")
	}
	rs.event(t, first, "cancelled")
	if fin := rs.event(t, third, "finished"); *fin.Text != "quick" {
		t.Errorf("third run %+v", fin)
	}
	for _, r := range rs.model.Requests() {
		if strings.Contains(r.Messages[1].Content, "second") {
			t.Error("the cancelled queued run called the model")
		}
	}
}

// TestRunSettings: didChangeConfiguration settings override
// initializationOptions key by key (here the mode), and configuration
// warnings go to the editor's log.
func TestRunSettings(t *testing.T) {
	t.Parallel()
	rs := newRunSession(t, llmtest.Always(llmtest.Text("ok")), runOpts{settings: map[string]any{"mode": "preview", "modle": "typo"}})
	ctx := lsptest.Context(t)
	if _, err := rs.c.Await(ctx, protocol.MethodWindowLogMessage, func(m lsptest.Message) bool {
		return strings.Contains(string(m.Params), "modle")
	}); err != nil {
		t.Fatalf("no log message for the unknown key: %v", err)
	}
	if err := rs.c.Notify(ctx, protocol.MethodWorkspaceDidChangeConfiguration, map[string]any{
		"settings": map[string]any{"agentls": map[string]any{"mode": "apply"}},
	}); err != nil {
		t.Fatal(err)
	}
	id := rs.start(t, lspserver.RunArgs{Prompt: "which mode?"})
	if ev := rs.event(t, id, "started"); ev.Mode != "apply" {
		t.Errorf("mode %q, want apply from didChangeConfiguration", ev.Mode)
	}
	// The model settings of initializationOptions still apply: the run reached the model.
	if fin := rs.event(t, id, "finished"); *fin.Text != "ok" {
		t.Errorf("finished %+v", fin)
	}
	// An explicit mode in the arguments wins.
	id2 := rs.start(t, lspserver.RunArgs{Prompt: "again", Mode: "preview"})
	if ev := rs.event(t, id2, "started"); ev.Mode != "preview" {
		t.Errorf("mode %q, want preview from the arguments", ev.Mode)
	}
	rs.event(t, id2, "finished")
}

// TestRunFailedReported: a model failure ends the run with "failed" and an
// error showMessage.
func TestRunFailedReported(t *testing.T) {
	t.Parallel()
	rs := newRunSession(t, llmtest.Always(llmtest.Error(400, "This model does not exist")), runOpts{})
	id := rs.start(t, lspserver.RunArgs{Prompt: "x"})
	fail := rs.event(t, id, "failed")
	if !strings.Contains(fail.Error, "does not exist") {
		t.Errorf("failed %+v", fail)
	}
	msg := rs.showMessage(t, "Agent run "+id+" failed")
	if msg.Type != protocol.MessageTypeError || !strings.Contains(msg.Message, "does not exist") {
		t.Errorf("showMessage %+v", msg)
	}
}

// TestRunCommandApproval: run_command asks through showMessageRequest;
// "Allow once" runs it, "Deny" and a dismissed prompt do not, "Allow for
// this session" is not asked again for the same command.
func TestRunCommandApproval(t *testing.T) {
	t.Parallel()
	cmd := "echo approved-output"
	script := func(req *llmtest.ChatRequest) llmtest.Reply {
		if !req.HasToolResult("c1") {
			return llmtest.ToolCalls(llmtest.Call{ID: "c1", Name: "run_command", Args: callArgs(map[string]any{"command": cmd})})
		}
		res, _ := req.ToolResult("c1")
		return llmtest.Text("result: " + res)
	}
	rs := newRunSession(t, script, runOpts{settings: map[string]any{"tools": map[string]any{"runCommand": "ask"}}})
	var asked []protocol.ShowMessageRequestParams
	answer := func(title string) {
		rs.c.Handle(protocol.MethodWindowShowMessageRequest, func(m lsptest.Message) (any, *lsptest.Error) {
			var p protocol.ShowMessageRequestParams
			if err := m.DecodeParams(&p); err != nil {
				return nil, &lsptest.Error{Code: lsptest.CodeInvalidParams, Message: err.Error()}
			}
			asked = append(asked, p)
			return lsptest.ChooseAction(title)(m)
		})
	}
	run := func(title string) string {
		answer(title)
		id := rs.start(t, lspserver.RunArgs{Prompt: "run it"})
		return *rs.event(t, id, "finished").Text
	}

	if got := run("Allow once"); !strings.Contains(got, "approved-output") {
		t.Errorf("allowed command: %q", got)
	}
	if len(asked) != 1 || !strings.Contains(asked[0].Message, cmd) || len(asked[0].Actions) != 3 ||
		asked[0].Actions[0].Title != "Allow once" || asked[0].Actions[1].Title != "Allow for this session" || asked[0].Actions[2].Title != "Deny" {
		t.Fatalf("approval request %+v", asked)
	}
	if got := run("Deny"); strings.Contains(got, "approved-output") || !strings.Contains(got, "denied") {
		t.Errorf("denied command: %q", got)
	}
	if got := run("(dismissed)"); strings.Contains(got, "approved-output") || !strings.Contains(got, "denied") {
		t.Errorf("dismissed prompt: %q", got)
	}
	if got := run("Allow for this session"); !strings.Contains(got, "approved-output") {
		t.Errorf("session-allowed command: %q", got)
	}
	n := len(asked)
	if got := run("Deny"); !strings.Contains(got, "approved-output") || len(asked) != n {
		t.Errorf("after allowing for the session: %q, asked %d more times", got, len(asked)-n)
	}
}

// TestRunConcurrentRequestsStayResponsive is a regression guard for the
// read loop: while a run waits on the editor (an approval nobody answers
// yet), other requests are still answered.
func TestRunConcurrentRequestsStayResponsive(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	script := stepsScript("done", step{call: llmtest.Call{ID: "c1", Name: "run_command", Args: callArgs(map[string]any{"command": "true"})}})
	rs := newRunSession(t, script, runOpts{settings: map[string]any{"tools": map[string]any{"runCommand": "ask"}}})
	rs.c.Handle(protocol.MethodWindowShowMessageRequest, func(m lsptest.Message) (any, *lsptest.Error) {
		<-release
		return nil, nil
	})
	id := rs.start(t, lspserver.RunArgs{Prompt: "x"})
	if _, err := rs.c.Await(lsptest.Context(t), protocol.MethodWindowShowMessageRequest, nil); err != nil {
		t.Fatal(err)
	}
	var actions []json.RawMessage
	if err := rs.c.Call(lsptest.Context(t), protocol.MethodTextDocumentCodeAction, &protocol.CodeActionParams{
		TextDocument: protocol.TextDocumentIdentifier{URI: rs.fileURI("a.go")},
	}, &actions); err != nil || len(actions) == 0 {
		t.Fatalf("code actions during a run: %v %d", err, len(actions))
	}
	close(release)
	rs.event(t, id, "finished")
}

// TestRunEventsAfterServerGone: a run still going when the editor goes
// away is cancelled and awaited (no goroutine is left: TestMain checks).
func TestRunEndsWithSession(t *testing.T) {
	t.Parallel()
	hang := llmtest.NewHang()
	rs := newRunSession(t, llmtest.Always(llmtest.Text("x").HangAfter(1, hang)), runOpts{})
	rs.start(t, lspserver.RunArgs{Prompt: "x"})
	testwait.Recv(t, hang.Started(), "the model request to start")
	if err := rs.c.Shutdown(lsptest.Context(t)); err != nil {
		t.Fatal(err)
	}
	if err := rs.c.Exit(lsptest.Context(t)); err != nil {
		t.Fatal(err)
	}
	code, err := rs.c.Wait(lsptest.Context(t))
	if err != nil || code != lspserver.ExitOK {
		t.Fatalf("exit %d %v", code, err)
	}
	testwait.Recv(t, hang.Disconnected(), "the model server to see the connection close")
}
