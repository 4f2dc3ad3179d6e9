package lspserver_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf16"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/agentls/agentls/agent/llm/llmtest"
	"github.com/agentls/agentls/internal/testwait"
	"github.com/agentls/agentls/internal/text"
	"github.com/agentls/agentls/lspserver"
	"github.com/agentls/agentls/lspserver/lsptest"
)

// step is one scripted model turn: a tool call, optionally paused
// mid-stream so the test can act while the model "types".
type step struct {
	call  llmtest.Call
	pause *llmtest.Pause
}

// stepsScript makes the calls of steps one turn each, in order (a call is
// made once its predecessor has a result), then answers answer.
func stepsScript(answer string, steps ...step) llmtest.Script {
	return func(req *llmtest.ChatRequest) llmtest.Reply {
		for _, s := range steps {
			if !req.HasToolResult(s.call.ID) {
				r := llmtest.ToolCalls(s.call)
				if s.pause != nil {
					r = r.PauseAfter(1, s.pause)
				}
				return r
			}
		}
		return llmtest.Text(answer)
	}
}

func readCall(id, path string) step {
	return step{call: llmtest.Call{ID: id, Name: "read_file", Args: callArgs(map[string]any{"path": path})}}
}

func editCall(id, path, old, new string) step {
	return step{call: llmtest.Call{ID: id, Name: "edit_file", Args: callArgs(map[string]any{"path": path, "old_string": old, "new_string": new})}}
}

// applySession is a run session in apply mode with a fake editor.
func applySession(t testing.TB, script llmtest.Script, encoding string, o runOpts) (*runSession, *runEditor) {
	t.Helper()
	if o.settings == nil {
		o.settings = map[string]any{}
	}
	o.settings["mode"] = "apply"
	enc := text.UTF16
	if encoding != "" {
		o.init.PositionEncodings = []string{encoding}
		enc, _ = text.ParseEncoding(encoding)
	}
	rs := newRunSession(t, script, o)
	return rs, newRunEditor(rs.c, enc)
}

// encUnits is the length of s in enc.
func encUnits(s string, enc text.Encoding) uint32 {
	switch enc {
	case text.UTF8:
		return uint32(len(s))
	case text.UTF32:
		return uint32(len([]rune(s)))
	}
	return uint32(len(utf16.Encode([]rune(s))))
}

// TestApplyModeEdits: the model reads a file open in the editor and edits
// it twice; each change reaches the editor as a workspace/applyEdit with
// the document's current version and edits in the session's encoding
// (emoji and CJK before the edit on the same line, CRLF line endings); the
// second edit does not conflict with the first. The server writes nothing.
func TestApplyModeEdits(t *testing.T) {
	for _, tc := range []struct {
		name, encoding, eol string
	}{
		{"utf-16", "utf-16", "\n"},
		{"utf-8", "utf-8", "\n"},
		{"utf-32", "utf-32", "\n"},
		{"utf-16 CRLF", "utf-16", "\r\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			nl := tc.eol
			original := "package main" + nl + nl + "func greet() string {" + nl + "\treturn \"😀 日本語 hello\"" + nl + "}" + nl
			script := stepsScript("Greeting changed.",
				readCall("r1", "greet.go"),
				editCall("e1", "greet.go", `hello"`, `hello, world"`),
				editCall("e2", "greet.go", "func greet()", "func Greet()"))
			rs, ed := applySession(t, script, tc.encoding, runOpts{})
			path := rs.write(t, "greet.go", original)
			u := uri.File(path)
			ed.open(t, u, original)

			id := rs.start(t, lspserver.RunArgs{Prompt: "Greet the world."})
			evs := rs.events(t, id)
			checkSeq(t, evs)
			fin := evs[len(evs)-1]
			if fin.Kind != "finished" || *fin.Pending != 0 {
				t.Fatalf("final event %+v; kinds %v", fin, kinds(evs))
			}
			for _, e := range evs {
				if e.Kind == "toolResult" && *e.IsError {
					t.Errorf("tool failed: %+v", e)
				}
			}
			want := strings.Replace(strings.Replace(original, `hello"`, `hello, world"`, 1), "func greet()", "func Greet()", 1)
			if got, _ := ed.text(u); got != want {
				t.Errorf("editor text %q, want %q", got, want)
			}
			if d, err := os.ReadFile(path); err != nil || string(d) != original {
				t.Errorf("the file on disk changed: %q, %v", d, err)
			}

			edits := ed.edits()
			if len(edits) != 2 {
				t.Fatalf("%d applyEdit requests, want 2", len(edits))
			}
			enc, _ := text.ParseEncoding(tc.encoding)
			prefix := "\treturn \"😀 日本語 hello"
			for i, wantVersion := range []int32{1, 2} {
				dcs := edits[i].Edit.DocumentChanges
				if len(dcs) != 1 {
					t.Fatalf("applyEdit %d: %d document changes", i, len(dcs))
				}
				tde, ok := dcs[0].(*protocol.TextDocumentEdit)
				if !ok || tde.TextDocument.URI != u || tde.TextDocument.Version == nil || *tde.TextDocument.Version != wantVersion {
					t.Fatalf("applyEdit %d: %#v", i, dcs[0])
				}
				if i == 0 {
					te := tde.Edits[0].(*protocol.TextEdit)
					if len(tde.Edits) != 1 || te.Range.Start.Line != 3 || te.Range.Start.Character != encUnits(prefix, enc) || te.NewText != ", world" {
						t.Errorf("first edit %+v, want an insertion of \", world\" at 3:%d", te, encUnits(prefix, enc))
					}
				}
			}
			if got := edits[0].Label; got == nil || *got != "Agent run "+id {
				t.Errorf("label %v", got)
			}
			var applied int
			for _, e := range evs {
				if e.Kind == "proposal" && e.URI == string(u) && e.Applied != nil && *e.Applied {
					applied++
				}
			}
			if applied != 2 {
				t.Errorf("%d applied proposal events, want 2", applied)
			}
			rs.showMessage(t, "Agent run "+id+" finished: Greeting changed; 1 file changed in the editor")
		})
	}
}

// TestApplyModeUserTypesDuringRun: the user types between the model's read
// and its edit; the edit is refused with CONFLICT (nothing is sent), the
// model reads again, and its second edit lands on the user's text.
func TestApplyModeUserTypesDuringRun(t *testing.T) {
	t.Parallel()
	pause := llmtest.NewPause()
	edit1 := editCall("e1", "main.go", "return 1", "return 2")
	edit1.pause = pause
	script := stepsScript("Done.",
		readCall("r1", "main.go"),
		edit1,
		readCall("r2", "main.go"),
		editCall("e2", "main.go", "return 1", "return 2"))
	rs, ed := applySession(t, script, "", runOpts{})
	original := "package main\n\nfunc one() int {\n\treturn 1\n}\n"
	path := rs.write(t, "main.go", original)
	u := uri.File(path)
	ed.open(t, u, original)

	id := rs.start(t, lspserver.RunArgs{Prompt: "Return two."})
	testwait.Recv(t, pause.Reached(), "the model is streaming its edit")
	ed.typeAt(t, u, 0, 0, 0, 0, "// Package main is mine.\n")
	if d, err := rs.c.Document(lsptest.Context(t), u); err != nil || !strings.HasPrefix(d.Text, "// Package main") {
		t.Fatalf("server did not see the user's typing: %v %v", d, err)
	}
	pause.Release()

	evs := rs.events(t, id)
	checkSeq(t, evs)
	var conflict bool
	for _, e := range evs {
		if e.Kind == "toolResult" && e.CallID == "e1" {
			conflict = *e.IsError
		}
	}
	if !conflict {
		t.Errorf("the first edit was not refused; events %v", kinds(evs))
	}
	res, ok := resultFor(rs.model, "e1")
	if !ok || !strings.Contains(res, "CONFLICT") {
		t.Errorf("model saw %q for the stale edit, want a CONFLICT", res)
	}
	edits := ed.edits()
	if len(edits) != 1 {
		t.Fatalf("%d applyEdit requests, want 1 (the stale edit must not be sent)", len(edits))
	}
	tde := edits[0].Edit.DocumentChanges[0].(*protocol.TextDocumentEdit)
	if *tde.TextDocument.Version != 2 {
		t.Errorf("applyEdit for version %d, want 2 (after the user's change)", *tde.TextDocument.Version)
	}
	want := "// Package main is mine.\npackage main\n\nfunc one() int {\n\treturn 2\n}\n"
	if got, _ := ed.text(u); got != want {
		t.Errorf("editor text %q, want %q", got, want)
	}
}

// resultFor returns the tool result the model received for callID.
func resultFor(srv *llmtest.Server, callID string) (string, bool) {
	for _, r := range srv.Requests() {
		if res, ok := r.ToolResult(callID); ok {
			return res, true
		}
	}
	return "", false
}

// TestApplyModeRefused: the editor refuses the edit; the run reports it,
// nothing is written, and the change is left for review.
func TestApplyModeRefused(t *testing.T) {
	t.Parallel()
	script := stepsScript("Tried.", readCall("r1", "a.txt"), editCall("e1", "a.txt", "alpha", "beta"))
	rs, ed := applySession(t, script, "", runOpts{})
	path := rs.write(t, "a.txt", "alpha\n")
	u := uri.File(path)
	ed.open(t, u, "alpha\n")
	ed.mu.Lock()
	ed.refuse = "the user is busy"
	ed.mu.Unlock()

	id := rs.start(t, lspserver.RunArgs{Prompt: "Beta."})
	evs := rs.events(t, id)
	checkSeq(t, evs)
	var refused bool
	for _, e := range evs {
		if e.Kind == "toolResult" && e.Tool == "applyEdit" && *e.IsError && strings.Contains(e.Summary, "the user is busy") {
			refused = true
		}
	}
	if !refused {
		t.Errorf("no applyEdit failure event; events %+v", evs)
	}
	if fin := evs[len(evs)-1]; fin.Kind != "finished" || *fin.Pending != 1 {
		t.Errorf("final event %+v", fin)
	}
	msg := rs.showMessage(t, "Agent run "+id)
	if !strings.Contains(msg.Message, "1 change not applied, pending review") || !strings.Contains(msg.Message, "the user is busy") {
		t.Errorf("showMessage %q", msg.Message)
	}
	if d, _ := os.ReadFile(path); string(d) != "alpha\n" {
		t.Errorf("disk changed: %q", d)
	}
	if got, _ := ed.text(u); got != "alpha\n" {
		t.Errorf("editor changed: %q", got)
	}
	var props lspserver.ProposalsResult
	if err := rs.c.Call(lsptest.Context(t), lspserver.MethodProposals, &lspserver.ProposalsParams{}, &props); err != nil {
		t.Fatal(err)
	}
	if len(props.Proposals) != 1 || props.Proposals[0].RunID != id || props.Proposals[0].ProposedText != "beta\n" {
		t.Errorf("proposals %+v", props.Proposals)
	}
}

// TestApplyModeFileNotOpen: a file the editor has not open is edited with
// a null version; the editor opens it to apply the edit and the run's next
// edit uses the now open document's version.
func TestApplyModeFileNotOpen(t *testing.T) {
	t.Parallel()
	script := stepsScript("Both done.",
		readCall("r1", "closed.txt"),
		editCall("e1", "closed.txt", "one", "uno"),
		editCall("e2", "closed.txt", "two", "dos"))
	rs, ed := applySession(t, script, "", runOpts{})
	path := rs.write(t, "closed.txt", "one\ntwo\n")
	id := rs.start(t, lspserver.RunArgs{Prompt: "Spanish."})
	evs := rs.events(t, id)
	if fin := evs[len(evs)-1]; fin.Kind != "finished" || *fin.Pending != 0 {
		t.Fatalf("final event %+v; %v", fin, kinds(evs))
	}
	ed.mu.Lock()
	raw := ed.raw
	ed.mu.Unlock()
	if len(raw) != 2 {
		t.Fatalf("%d applyEdit requests", len(raw))
	}
	if !strings.Contains(string(raw[0].Params), `"version":null`) {
		t.Errorf("first edit of a closed file: %s", raw[0].Params)
	}
	if !strings.Contains(string(raw[1].Params), `"version":2`) {
		t.Errorf("second edit after the editor opened the file: %s", raw[1].Params)
	}
	if got, _ := ed.text(uri.File(path)); got != "uno\ndos\n" {
		t.Errorf("editor text %q", got)
	}
	if d, _ := os.ReadFile(path); string(d) != "one\ntwo\n" {
		t.Errorf("disk changed: %q", d)
	}
}

// TestApplyModeNewFile: write_file of a new file becomes CreateFile plus
// its content; the server does not create the file itself.
func TestApplyModeNewFile(t *testing.T) {
	t.Parallel()
	content := "# Notes\n\n😀 new file\n"
	script := stepsScript("Created.", step{call: llmtest.Call{ID: "w1", Name: "write_file",
		Args: callArgs(map[string]any{"path": "docs/notes.md", "content": content})}})
	rs, ed := applySession(t, script, "", runOpts{})
	id := rs.start(t, lspserver.RunArgs{Prompt: "Write notes."})
	evs := rs.events(t, id)
	if fin := evs[len(evs)-1]; fin.Kind != "finished" || *fin.Pending != 0 {
		t.Fatalf("final %+v; %v", fin, kinds(evs))
	}
	edits := ed.edits()
	if len(edits) != 1 {
		t.Fatalf("%d applyEdit requests", len(edits))
	}
	path := filepath.Join(rs.root, "docs", "notes.md")
	dcs := edits[0].Edit.DocumentChanges
	cf, ok := dcs[0].(*protocol.CreateFile)
	if len(dcs) != 2 || !ok || cf.URI != uri.File(path) || cf.Kind != "create" {
		t.Fatalf("document changes %#v", dcs)
	}
	tde := dcs[1].(*protocol.TextDocumentEdit)
	if tde.TextDocument.Version != nil || len(tde.Edits) != 1 || tde.Edits[0].(*protocol.TextEdit).NewText != content {
		t.Errorf("content edit %#v", tde)
	}
	if got, _ := ed.text(uri.File(path)); got != content {
		t.Errorf("editor text %q", got)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("the server created the file itself: %v", err)
	}
}

// TestApplyModeEditorNeverSyncs: an editor that says applied but never
// reports the change gets no further edits of that file in the run (they
// would be computed against text the server cannot confirm); they are
// left for review.
func TestApplyModeEditorNeverSyncs(t *testing.T) {
	t.Parallel()
	script := stepsScript("Done.",
		readCall("r1", "s.txt"),
		editCall("e1", "s.txt", "a", "b"),
		readCall("r2", "s.txt"), // shows "a": the server never saw "b"
		editCall("e2", "s.txt", "a", "c"))
	rs, ed := applySession(t, script, "", runOpts{runOpts: lspserver.RunOptions{ApplySettle: 1}})
	rs.c.Handle(protocol.MethodWorkspaceApplyEdit, func(m lsptest.Message) (any, *lsptest.Error) {
		ed.mu.Lock()
		ed.raw = append(ed.raw, m)
		ed.mu.Unlock()
		return &protocol.ApplyWorkspaceEditResult{Applied: true}, nil // and no didChange
	})
	path := rs.write(t, "s.txt", "a\n")
	ed.open(t, uri.File(path), "a\n")
	id := rs.start(t, lspserver.RunArgs{Prompt: "c"})
	evs := rs.events(t, id)
	ed.mu.Lock()
	n := len(ed.raw)
	ed.mu.Unlock()
	if n != 1 {
		t.Errorf("%d applyEdit requests, want 1", n)
	}
	fin := evs[len(evs)-1]
	if fin.Kind != "finished" || fin.Pending == nil || *fin.Pending != 1 {
		t.Errorf("final %+v; %v", fin, kinds(evs))
	}
	msg := rs.showMessage(t, "Agent run "+id)
	if !strings.Contains(msg.Message, "never showed up") {
		t.Errorf("showMessage %q", msg.Message)
	}
}

// TestApplyModeCancel: cancelling an apply-mode run keeps what the editor
// already applied, sends nothing more and proposes nothing: a change the
// editor refused is dropped, not left for review.
func TestApplyModeCancel(t *testing.T) {
	t.Parallel()
	hang := llmtest.NewHang()
	steps := stepsScript("unused",
		readCall("r1", "a.txt"),
		editCall("e1", "a.txt", "one", "uno"),
		readCall("r2", "b.txt"),
		editCall("e2", "b.txt", "two", "dos"))
	script := func(req *llmtest.ChatRequest) llmtest.Reply {
		if req.HasToolResult("e2") {
			return llmtest.Text("still thinking").HangAfter(1, hang)
		}
		return steps(req)
	}
	rs, ed := applySession(t, script, "", runOpts{})
	ua, ub := uri.File(rs.write(t, "a.txt", "one\n")), uri.File(rs.write(t, "b.txt", "two\n"))
	ed.open(t, ua, "one\n")
	ed.open(t, ub, "two\n")
	rs.c.Handle(protocol.MethodWorkspaceApplyEdit, func(m lsptest.Message) (any, *lsptest.Error) {
		if strings.Contains(string(m.Params), "b.txt") {
			reason := "not now"
			return &protocol.ApplyWorkspaceEditResult{FailureReason: &reason}, nil
		}
		return ed.handleApply(m)
	})
	id := rs.start(t, lspserver.RunArgs{Prompt: "Spanish."})
	testwait.Recv(t, hang.Started(), "the model request to start")
	if !rs.cancel(t, id) {
		t.Fatal("cancel said false")
	}
	evs := rs.events(t, id)
	if fin := evs[len(evs)-1]; fin.Kind != "cancelled" || *fin.Pending != 0 {
		t.Fatalf("final %+v", fin)
	}
	if got, _ := ed.text(ua); got != "uno\n" {
		t.Errorf("the applied edit was lost: %q", got)
	}
	if got, _ := ed.text(ub); got != "two\n" {
		t.Errorf("b changed: %q", got)
	}
	msg := rs.showMessage(t, "Agent run "+id+" cancelled")
	if !strings.Contains(msg.Message, "1 file changed in the editor; 1 staged change not applied (run cancelled)") {
		t.Errorf("showMessage %q", msg.Message)
	}
	var props lspserver.ProposalsResult
	if err := rs.c.Call(lsptest.Context(t), lspserver.MethodProposals, &lspserver.ProposalsParams{}, &props); err != nil {
		t.Fatal(err)
	}
	if len(props.Proposals) != 0 {
		t.Errorf("a cancelled apply-mode run left proposals: %+v", props.Proposals)
	}
}

// TestApplyModeReport: the report of an apply-mode run shows each change
// it made as a diff with its fate (accepted: applied in apply mode), like
// a reviewed run's, not "nothing left to propose" and "no decision
// recorded" (the changeset holds nothing pending once the editor took the
// change).
func TestApplyModeReport(t *testing.T) {
	t.Parallel()
	script := stepsScript("Greeting changed.",
		readCall("r1", "greet.go"),
		editCall("e1", "greet.go", `"hello"`, `"hello, 世界 🎉"`),
		step{call: llmtest.Call{ID: "w1", Name: "write_file", Args: callArgs(map[string]any{"path": "NOTES.md", "content": "greeting changed\n"})}})
	rs, ed := applySession(t, script, "", runOpts{transcript: true})
	original := "package main\n\nfunc greet() string { return \"hello\" }\n"
	path := rs.write(t, "greet.go", original)
	ed.open(t, uri.File(path), original)
	id := rs.start(t, lspserver.RunArgs{Prompt: "Greet the world."})
	if evs := rs.events(t, id); evs[len(evs)-1].Kind != "finished" {
		t.Fatalf("run: %v", kinds(evs))
	}
	var rep lspserver.ReportResult
	if err := rs.c.Call(lsptest.Context(t), protocol.MethodWorkspaceExecuteCommand, command(lspserver.CommandOpenReport, lspserver.ReportArgs{RunID: id}), &rep); err != nil {
		t.Fatal(err)
	}
	page, err := os.ReadFile(uri.URI(rep.URI).FsPath())
	if err != nil {
		t.Fatal(err)
	}
	_, summary, ok := strings.Cut(string(page), "<h3>Proposed changes</h3>")
	summary, _, _ = strings.Cut(summary, "<h3>Timeline</h3>")
	if !ok {
		t.Fatalf("no proposed changes in the report")
	}
	for _, want := range []string{`data-path="greet.go"`, `hello, 世界 🎉`, `data-path="NOTES.md"`, `greeting changed`, `fate">accepted`, "applied in apply mode"} {
		if !strings.Contains(summary, want) {
			t.Errorf("the report's changes lack %q:\n%s", want, summary)
		}
	}
	for _, bad := range []string{"nothing left to propose", "no decision recorded"} {
		if strings.Contains(summary, bad) {
			t.Errorf("the report's changes say %q:\n%s", bad, summary)
		}
	}
}
