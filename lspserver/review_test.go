package lspserver_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/agentls/agentls/internal/text"
	"github.com/agentls/agentls/lspserver"
	"github.com/agentls/agentls/lspserver/lsptest"
)

const demoBase = "package demo\n\nfunc a() int {\n\treturn 1\n}\n\nfunc b() int {\n\treturn 2\n}\n\nfunc c() int {\n\treturn 3\n}\n"

// demoProposed changes the three return values: three hunks, at lines 3, 7
// and 11.
var demoProposed = strings.NewReplacer("return 1", "return 10", "return 2", "return 20", "return 3", "return 30").Replace(demoBase)

// awaitProposalsChanged waits for agentls/proposalsChanged for u.
func awaitProposalsChanged(t *testing.T, e *fakeEditor, u uri.URI) {
	t.Helper()
	_, err := e.c.Await(lsptest.Context(t), lspserver.MethodProposalsChanged, func(m lsptest.Message) bool {
		var p struct {
			URI uri.URI `json:"uri"`
		}
		return m.DecodeParams(&p) == nil && p.URI == u
	})
	if err != nil {
		t.Fatalf("no proposalsChanged for %s: %v", u, err)
	}
}

// checkRanges asserts each hunk's range covers its old text in the
// editor's copy of the document.
func checkRanges(t *testing.T, e *fakeEditor, u uri.URI, hunks []lspserver.HunkInfo) {
	t.Helper()
	doc := e.text(t, u)
	for _, h := range hunks {
		if h.Status != "pending" {
			continue
		}
		if got := rangeText(doc, h.Range, e.enc); got != h.OldText {
			t.Fatalf("hunk %s: range %+v holds %q in the editor, old text is %q", h.ID, h.Range, got, h.OldText)
		}
	}
}

func TestReviewAcceptOneRejectRest(t *testing.T) {
	e := newReviewSession(t, reviewOpts{})
	u := e.open(t, "demo.go", demoBase)
	e.stage("run1", "demo.go", demoBase, demoProposed, false)
	awaitProposalsChanged(t, e, u)
	if _, err := e.c.Await(lsptest.Context(t), protocol.MethodWorkspaceCodeLensRefresh, nil); err != nil {
		t.Fatalf("no codeLens refresh: %v", err)
	}

	ps := e.proposals(t, u)
	if len(ps) != 1 || ps[0].URI != u || ps[0].RunID != "run1" || ps[0].Status != "pending" || ps[0].ProposedText != demoProposed {
		t.Fatalf("proposals = %+v", ps)
	}
	hunks := ps[0].Hunks
	if len(hunks) != 3 {
		t.Fatalf("%d hunks, want 3: %+v", len(hunks), hunks)
	}
	for i, line := range []uint32{3, 7, 11} {
		h := hunks[i]
		if h.Range.Start.Line != line || h.Range.End.Line != line+1 || h.Range.Start.Character != 0 || h.Status != "pending" {
			t.Fatalf("hunk %d: %+v, want lines %d-%d", i, h, line, line+1)
		}
	}
	checkRanges(t, e, u, hunks)
	if hunks[1].OldText != "\treturn 2\n" || hunks[1].NewText != "\treturn 20\n" {
		t.Fatalf("hunk 1 = %+v", hunks[1])
	}

	lenses := e.codeLens(t, u)
	if len(lenses) != 6 {
		t.Fatalf("%d lenses, want 6: %+v", len(lenses), lenses)
	}
	for i, l := range lenses {
		h := hunks[i/2]
		title, cmd := "Accept", lspserver.CommandAccept
		if i%2 == 1 {
			title, cmd = "Reject", lspserver.CommandReject
		}
		if l.Command.Title != title || l.Command.Command != cmd || l.Range.Start.Line != h.Range.Start.Line ||
			l.Range.End != l.Range.Start || commandArgs(t, l.Command).HunkID != h.ID {
			t.Fatalf("lens %d = %+v, want %s of %s at line %d", i, l, title, h.ID, h.Range.Start.Line)
		}
	}

	// Accept the middle hunk only: one minimal, versioned edit.
	res := e.accept(t, reviewArgs{HunkID: hunks[1].ID})
	if !res.Applied || res.FailureReason != "" || len(res.Conflicts) != 0 {
		t.Fatalf("accept = %+v", res)
	}
	want := strings.Replace(demoBase, "return 2", "return 20", 1)
	if got := e.text(t, u); got != want {
		t.Fatalf("document after accept:\n%q\nwant\n%q", got, want)
	}
	we := e.lastEdit(t)
	if len(we.DocumentChanges) != 1 || we.Changes != nil {
		t.Fatalf("edit = %+v", we)
	}
	tde := we.DocumentChanges[0].(*protocol.TextDocumentEdit)
	if tde.TextDocument.URI != u || tde.TextDocument.Version == nil || *tde.TextDocument.Version != 1 || len(tde.Edits) != 1 {
		t.Fatalf("text document edit = %+v", tde)
	}
	if te := tde.Edits[0].(*protocol.TextEdit); te.NewText != "0" || te.Range.Start != (protocol.Position{Line: 7, Character: 9}) || te.Range.End != te.Range.Start {
		t.Fatalf("edit = %+v, want an insertion of \"0\" at 7:9", te)
	}
	awaitProposalsChanged(t, e, u)

	left := e.hunks(t, u)
	if len(left) != 2 || left[0].ID != hunks[0].ID || left[1].ID != hunks[2].ID {
		t.Fatalf("hunks after accept = %+v", left)
	}
	checkRanges(t, e, u, left)

	// Reject the rest.
	if n := e.reject(t, reviewArgs{URI: string(u)}); n != 2 {
		t.Fatalf("rejected %d, want 2", n)
	}
	awaitProposalsChanged(t, e, u)
	if ps := e.proposals(t, ""); len(ps) != 0 {
		t.Fatalf("proposals after reject = %+v", ps)
	}
	if got := e.text(t, u); got != want {
		t.Fatalf("reject changed the document: %q", got)
	}
	if l := e.codeLens(t, u); len(l) != 0 {
		t.Fatalf("lenses after reject = %+v", l)
	}
	if n := e.reject(t, reviewArgs{}); n != 0 {
		t.Fatalf("second reject dropped %d", n)
	}
	if e.editCount() != 1 {
		t.Fatalf("%d applyEdit requests, want 1", e.editCount())
	}
}

func TestReviewUserTypesOutsideAndInside(t *testing.T) {
	e := newReviewSession(t, reviewOpts{})
	u := e.open(t, "demo.go", demoBase)
	proposed := strings.NewReplacer("return 1", "return 10", "return 2", "return 20").Replace(demoBase)
	e.stage("run1", "demo.go", demoBase, proposed, false)
	hunks := e.hunks(t, u)
	if len(hunks) != 2 {
		t.Fatalf("hunks = %+v", hunks)
	}

	// Outside: a comment line above everything and a word at the end of the
	// first hunk's preceding line.
	e.typeAt(t, u, 0, 0, "// note\n")
	doc := e.text(t, u)
	at := strings.Index(doc, "int {") + len("int")
	e.typeAt(t, u, at, at, "32")
	shifted := e.hunks(t, u)
	if shifted[0].Range.Start.Line != 4 || shifted[1].Range.Start.Line != 8 {
		t.Fatalf("hunks did not follow the typing: %+v", shifted)
	}
	checkRanges(t, e, u, shifted)
	res := e.accept(t, reviewArgs{HunkID: hunks[0].ID})
	if !res.Applied {
		t.Fatalf("accept = %+v", res)
	}
	want := "// note\n" + strings.Replace(strings.Replace(demoBase, "a() int {", "a() int32 {", 1), "return 1", "return 10", 1)
	if got := e.text(t, u); got != want {
		t.Fatalf("after accept:\n%q\nwant\n%q", got, want)
	}
	if v := e.lastEdit(t).DocumentChanges[0].(*protocol.TextDocumentEdit).TextDocument.Version; v == nil || *v != 3 {
		t.Fatalf("edit version = %v, want 3 (after two keystrokes)", v)
	}

	// Inside: change the second hunk's line.
	doc = e.text(t, u)
	two := strings.Index(doc, "return 2") + len("return ")
	e.typeAt(t, u, two, two+1, "5")
	awaitProposalsChanged(t, e, u)
	ps := e.proposals(t, u)
	if len(ps) != 1 || ps[0].Status != "conflicted" || len(ps[0].Hunks) != 1 {
		t.Fatalf("proposals = %+v", ps)
	}
	h := ps[0].Hunks[0]
	if h.ID != hunks[1].ID || h.Status != "conflicted" || !strings.Contains(h.Reason, "return 5") {
		t.Fatalf("hunk = %+v, want conflicted naming the user's text", h)
	}
	if ps[0].ProposedText != e.text(t, u) {
		t.Fatalf("proposedText of a conflicted proposal should be the document: %q", ps[0].ProposedText)
	}
	lenses := e.codeLens(t, u)
	if len(lenses) != 2 || !strings.HasPrefix(lenses[0].Command.Title, "Conflicted: ") || lenses[0].Command.Command != "" ||
		lenses[1].Command.Title != "Reject" || commandArgs(t, lenses[1].Command).HunkID != h.ID {
		t.Fatalf("lenses of a conflicted hunk = %+v", lenses)
	}
	edits := e.editCount()
	for _, args := range []reviewArgs{{HunkID: h.ID}, {}} {
		res = e.accept(t, args)
		if res.Applied || res.FailureReason == "" || len(res.Conflicts) != 1 ||
			res.Conflicts[0].HunkID != h.ID || res.Conflicts[0].URI != string(u) || res.Conflicts[0].Reason != h.Reason {
			t.Fatalf("accept %+v of a conflicted hunk = %+v", args, res)
		}
	}
	if e.editCount() != edits {
		t.Fatal("an edit was sent for a conflicted hunk")
	}

	// Undo: the hunk applies again.
	e.typeAt(t, u, two, two+1, "2")
	awaitProposalsChanged(t, e, u)
	if res = e.accept(t, reviewArgs{}); !res.Applied || len(res.Conflicts) != 0 {
		t.Fatalf("accept after undo = %+v", res)
	}
	if got, want := e.text(t, u), strings.Replace(want, "return 2", "return 20", 1); got != want {
		t.Fatalf("after undo and accept:\n%q\nwant\n%q", got, want)
	}
}

func TestReviewProposalsWireShape(t *testing.T) {
	e := newReviewSession(t, reviewOpts{})
	u := e.open(t, "demo.go", demoBase)
	e.stage("run1", "demo.go", demoBase, demoProposed, false)
	e.write(t, "other.go", "x\n")
	e.stage("run2", "other.go", "x\n", "y\n", false)
	msg, err := e.c.CallRaw(lsptest.Context(t), lspserver.MethodProposals, nil)
	if err != nil || msg.Error != nil {
		t.Fatalf("agentls/proposals without params: %v %v", err, msg.Error)
	}
	var raw struct {
		Proposals []map[string]json.RawMessage `json:"proposals"`
	}
	if err := json.Unmarshal(msg.Result, &raw); err != nil {
		t.Fatal(err)
	}
	if len(raw.Proposals) != 2 {
		t.Fatalf("proposals = %s", msg.Result)
	}
	for _, p := range raw.Proposals {
		for _, k := range []string{"uri", "runId", "status", "proposedText", "hunks"} {
			if _, ok := p[k]; !ok {
				t.Fatalf("proposal lacks %q: %s", k, msg.Result)
			}
		}
		var hunks []map[string]json.RawMessage
		_ = json.Unmarshal(p["hunks"], &hunks)
		for _, h := range hunks {
			for _, k := range []string{"id", "range", "oldText", "newText", "status"} {
				if _, ok := h[k]; !ok {
					t.Fatalf("hunk lacks %q: %s", k, msg.Result)
				}
			}
		}
	}
	if got := e.proposals(t, u); len(got) != 1 || got[0].RunID != "run1" {
		t.Fatalf("proposals for %s = %+v", u, got)
	}
	if got := e.proposals(t, e.uri("nothing.go")); len(got) != 0 {
		t.Fatalf("proposals for a file without any = %+v", got)
	}
	// Filters: runId selects one run's hunks; an unknown hunk id is an error.
	if n := e.reject(t, reviewArgs{RunID: "run2"}); n != 1 {
		t.Fatalf("reject run2 = %d", n)
	}
	err = e.c.Call(lsptest.Context(t), protocol.MethodWorkspaceExecuteCommand, command(lspserver.CommandAccept, reviewArgs{HunkID: "nope#1"}), nil)
	wantCode(t, err, lsptest.CodeInvalidParams, "nope#1")
}

func TestReviewEditorRefuses(t *testing.T) {
	e := newReviewSession(t, reviewOpts{})
	u := e.open(t, "demo.go", demoBase)
	e.stage("run1", "demo.go", demoBase, demoProposed, false)
	e.setMode(applyRefuse, "the user declined the edit")
	res := e.accept(t, reviewArgs{})
	if res.Applied || res.FailureReason != "the user declined the edit" {
		t.Fatalf("accept = %+v", res)
	}
	hunks := e.hunks(t, u)
	if len(hunks) != 3 || hunks[0].LastError != "the user declined the edit" || hunks[0].Status != "pending" {
		t.Fatalf("hunks after a refused accept = %+v", hunks)
	}
	if e.text(t, u) != demoBase {
		t.Fatal("a refused edit changed the document")
	}
	e.setMode(applyNormally, "")
	if res = e.accept(t, reviewArgs{URI: string(u)}); !res.Applied {
		t.Fatalf("second accept = %+v", res)
	}
	if got := e.text(t, u); got != demoProposed {
		t.Fatalf("after accept: %q", got)
	}
}

// An editor that answers applied:true without changing the buffer (Neovim
// 0.7 skips an edit for a newer buffer yet reports success): the server
// checks the buffer and reports the failure. The bound here fits in the
// command's own wait, so the answer itself says so; with the default
// bound the answer says verifying and the failure comes as a message
// (TestAcceptNeverShown).
func TestReviewEditorReportsAppliedButIsNot(t *testing.T) {
	e := newReviewSession(t, reviewOpts{})
	u := e.open(t, "demo.go", demoBase)
	e.stage("run1", "demo.go", demoBase, demoProposed, false)
	lspserver.SetVerifyTimeout(e.srv, verifyBound)
	e.setMode(applyIgnore, "")
	res := e.accept(t, reviewArgs{})
	if res.Applied || !strings.Contains(res.FailureReason, "does not contain the change") {
		t.Fatalf("accept = %+v", res)
	}
	if hunks := e.hunks(t, u); len(hunks) != 3 || !strings.Contains(hunks[0].LastError, "does not contain") {
		t.Fatalf("hunks = %+v", hunks)
	}
	e.setMode(applyNormally, "")
	if res = e.accept(t, reviewArgs{}); !res.Applied || e.text(t, u) != demoProposed {
		t.Fatalf("accept with a working editor = %+v, text %q", res, e.text(t, u))
	}
}

// verifyBound is the wait for an edit that never shows, in tests of
// editors that lie; it bounds the test's duration, it is not asserted.
const verifyBound = 150 * time.Millisecond

func TestReviewUnicodePositions(t *testing.T) {
	base := "package demo\n\nvar s = \"😀 日本語\" + old(\"café 🇫🇷\") // ok\nvar t = 1\n"
	proposed := strings.Replace(base, "old(", "renamed(", 1)
	for _, enc := range []string{"utf-16", "utf-8", "utf-32"} {
		t.Run(enc, func(t *testing.T) {
			e := newReviewSession(t, reviewOpts{encodings: []string{enc}})
			u := e.open(t, "u.go", base)
			e.stage("run1", "u.go", base, proposed, false)
			// The user adds emoji and CJK on the line above: ranges move.
			e.typeAt(t, u, len("package demo\n"), len("package demo\n"), "// 👋 こんにちは\n")
			hunks := e.hunks(t, u)
			checkRanges(t, e, u, hunks)
			res := e.accept(t, reviewArgs{})
			if !res.Applied {
				t.Fatalf("accept = %+v", res)
			}
			want := strings.Replace(proposed, "package demo\n", "package demo\n// 👋 こんにちは\n", 1)
			if got := e.text(t, u); got != want {
				t.Fatalf("after accept:\n%q\nwant\n%q", got, want)
			}
			// The edit is character-level, after the emoji and CJK on its line.
			tde := e.lastEdit(t).DocumentChanges[0].(*protocol.TextDocumentEdit)
			before := strings.Replace(base, "package demo\n", "package demo\n// 👋 こんにちは\n", 1)
			off := strings.Index(before, "old(")
			wantPos := text.NewIndex(before).Position(off, e.enc)
			te := tde.Edits[0].(*protocol.TextEdit)
			if te.Range.Start.Line != wantPos.Line || te.Range.Start.Character != wantPos.Character {
				t.Fatalf("edit %+v starts at %+v, want %+v (%s)", te, te.Range.Start, wantPos, enc)
			}
		})
	}
}

func TestReviewCRLF(t *testing.T) {
	base := "line one\r\nline two\r\nline three\r\n\r\nend\r\n"
	proposed := "line one\r\nline 2\r\nline three\r\ninserted\r\n\r\nend\r\n"
	e := newReviewSession(t, reviewOpts{})
	u := e.open(t, "crlf.txt", base)
	e.stage("run1", "crlf.txt", base, proposed, false)
	hunks := e.hunks(t, u)
	if len(hunks) != 2 || hunks[0].OldText != "line two\r\n" || hunks[1].OldText != "" || hunks[1].NewText != "inserted\r\n" {
		t.Fatalf("hunks = %+v", hunks)
	}
	checkRanges(t, e, u, hunks)
	if res := e.accept(t, reviewArgs{}); !res.Applied {
		t.Fatalf("accept = %+v", res)
	}
	if got := e.text(t, u); got != proposed {
		t.Fatalf("after accept: %q, want %q", got, proposed)
	}
	doc := text.NewIndex(base)
	for _, el := range e.lastEdit(t).DocumentChanges[0].(*protocol.TextDocumentEdit).Edits {
		te := el.(*protocol.TextEdit)
		for _, p := range []protocol.Position{te.Range.Start, te.Range.End} {
			line := int(p.Line)
			if line < doc.LineCount() && int(p.Character) > doc.LineEnd(line)-doc.LineStart(line) {
				t.Fatalf("edit %+v ends inside the CRLF of line %d", te, line)
			}
		}
	}
}

// Several files in one accept: one WorkspaceEdit, one versioned edit per
// file; a client without code lens refresh support gets the notification
// only.
func TestReviewAcceptSeveralFilesNoRefresh(t *testing.T) {
	caps := lsptest.DefaultCapabilities()
	caps.Workspace.CodeLens = nil
	e := newReviewSession(t, reviewOpts{caps: &caps})
	u1 := e.open(t, "one.go", demoBase)
	e.stage("run1", "one.go", demoBase, demoProposed, false)
	awaitProposalsChanged(t, e, u1)
	u2 := e.open(t, "two.go", "a\nb\n")
	e.stage("run2", "two.go", "a\nb\n", "a\nB\n", false)
	awaitProposalsChanged(t, e, u2) // sent after the first round ended
	if n := countMethod(e.c, protocol.MethodWorkspaceCodeLensRefresh); n != 0 {
		t.Fatalf("%d codeLens refresh requests to a client without refreshSupport", n)
	}
	res := e.accept(t, reviewArgs{})
	if !res.Applied {
		t.Fatalf("accept = %+v", res)
	}
	if we := e.lastEdit(t); len(we.DocumentChanges) != 2 || e.editCount() != 1 {
		t.Fatalf("edit = %+v, %d requests", we, e.editCount())
	}
	if e.text(t, u1) != demoProposed || e.text(t, u2) != "a\nB\n" {
		t.Fatalf("documents after accept: %q %q", e.text(t, u1), e.text(t, u2))
	}
}

// A client that cannot apply workspace edits gets a reason, not an error.
func TestReviewClientWithoutApplyEdit(t *testing.T) {
	caps := lsptest.DefaultCapabilities()
	caps.Workspace.ApplyEdit = nil
	e := newReviewSession(t, reviewOpts{caps: &caps})
	u := e.open(t, "demo.go", demoBase)
	e.stage("run1", "demo.go", demoBase, demoProposed, false)
	res := e.accept(t, reviewArgs{})
	if res.Applied || !strings.Contains(res.FailureReason, "workspace/applyEdit") || e.editCount() != 0 {
		t.Fatalf("accept = %+v", res)
	}
	if len(e.hunks(t, u)) != 3 {
		t.Fatal("the proposal was lost")
	}
}

// Two runs proposing at the same line stack their lenses in one row: each
// title names its run; a line only one run touches keeps plain titles.
func TestCodeLensNamesRunsWhenStacked(t *testing.T) {
	e := newReviewSession(t, reviewOpts{})
	u := e.open(t, "demo.go", demoBase)
	e.stage("run1", "demo.go", demoBase, demoProposed, false)
	awaitProposalsChanged(t, e, u)
	e.stage("run2", "demo.go", demoBase, strings.Replace(demoBase, "return 2", "return 22", 1), false)
	awaitProposalsChanged(t, e, u)
	var titles []string
	for _, l := range e.codeLens(t, u) {
		if l.Range.Start.Line == 7 {
			titles = append(titles, l.Command.Title)
		} else if l.Command.Title != "Accept" && l.Command.Title != "Reject" {
			t.Errorf("lens at line %d titled %q, want plain Accept / Reject", l.Range.Start.Line, l.Command.Title)
		}
	}
	want := []string{"Accept run run1", "Reject run run1", "Accept run run2", "Reject run run2"}
	if strings.Join(titles, "|") != strings.Join(want, "|") {
		t.Fatalf("lenses at line 7 = %q, want %q", titles, want)
	}
}

// The code lenses are kept encoded per document (review/codelens.go) and
// must never lag the store: each change below (staging, typing above the
// hunks, a second run on a hunk's line, rejections) shows in the very next
// answer, asked twice so that the second comes from the cache.
func TestCodeLensNeverStale(t *testing.T) {
	e := newReviewSession(t, reviewOpts{})
	u := e.open(t, "demo.go", demoBase)
	lenses := func(what, want string) {
		t.Helper()
		for range 2 {
			var got []string
			for _, l := range e.codeLens(t, u) {
				got = append(got, fmt.Sprintf("%d:%s", l.Range.Start.Line, l.Command.Title))
			}
			if g := strings.Join(got, " "); g != want {
				t.Fatalf("%s: lenses %q, want %q", what, g, want)
			}
		}
	}
	lenses("nothing staged", "")
	e.stage("run1", "demo.go", demoBase, demoProposed, false)
	lenses("staged", "3:Accept 3:Reject 7:Accept 7:Reject 11:Accept 11:Reject")
	e.typeAt(t, u, 0, 0, "// typed\n")
	lenses("a line typed above", "4:Accept 4:Reject 8:Accept 8:Reject 12:Accept 12:Reject")
	typed := "// typed\n" + demoBase
	e.stage("run2", "demo.go", typed, strings.Replace(typed, "return 2", "return 22", 1), false)
	lenses("a second run on line 8", "4:Accept 4:Reject 8:Accept run run1 8:Reject run run1 12:Accept 12:Reject 8:Accept run run2 8:Reject run run2")
	if n := e.reject(t, reviewArgs{RunID: "run2"}); n != 1 {
		t.Fatalf("rejected %d hunks of run2, want 1", n)
	}
	lenses("run2 rejected", "4:Accept 4:Reject 8:Accept 8:Reject 12:Accept 12:Reject")
	if n := e.reject(t, reviewArgs{RunID: "run1"}); n != 3 {
		t.Fatalf("rejected %d hunks of run1, want 3", n)
	}
	lenses("run1 rejected", "")
}
