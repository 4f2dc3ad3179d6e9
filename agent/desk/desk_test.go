package desk_test

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/agentls/agentls/agent/desk"
	"github.com/agentls/agentls/agent/proposal"
	"github.com/agentls/agentls/internal/text"
	"github.com/agentls/agentls/internal/workspace"
	"github.com/agentls/agentls/tools"
)

// setup returns a desk, a view over a temporary folder and a file in it
// holding content.
func setup(t *testing.T, content string) (*desk.Desk, *workspace.View, string) {
	t.Helper()
	dir := t.TempDir()
	path := filepath.Join(dir, "a.txt")
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	v := workspace.New(workspace.Options{Folders: []string{dir}})
	return desk.New(nil), v, path
}

func only(t *testing.T, d *desk.Desk, runID, path string) proposal.Proposal {
	t.Helper()
	p, ok := d.Proposal(runID, path)
	if !ok {
		t.Fatalf("no proposal of %s for %s; store: %+v", runID, path, d.Store().List(""))
	}
	return p
}

// A run staged against the disk text while the user typed above in the
// editor: the proposal is rebased onto the buffer, at its version.
func TestStageRebasesOntoOpenBuffer(t *testing.T) {
	base := "one\ntwo\nthree\n"
	d, v, path := setup(t, base)
	v.Open(path, 3, "zero\n"+base)
	src := desk.ViewSource(v, true)
	d.Stage(src, "r1", tools.StagedFile{Path: path, Base: base, Text: "one\nTWO\nthree\n"})
	p := only(t, d, "r1", path)
	if p.Text != "zero\n"+base || p.Result() != "zero\none\nTWO\nthree\n" {
		t.Fatalf("proposal text %q result %q", p.Text, p.Result())
	}
	if p.Version == nil || *p.Version != 3 {
		t.Fatalf("version = %v, want 3", p.Version)
	}
	if len(p.Hunks) != 1 || p.Hunks[0].OldText != "two\n" || p.Hunks[0].NewText != "TWO\n" {
		t.Fatalf("hunks = %+v", p.Hunks)
	}
}

// Without editor buffers (ACP), an overlay is read like the file; the
// typing reaches the proposal through Closed (a disk change) or Resync.
func TestStageFollowsDiskChanges(t *testing.T) {
	base := "a\nb\n"
	d, v, path := setup(t, base)
	src := desk.ViewSource(v, false)
	d.Stage(src, "r1", tools.StagedFile{Path: path, Base: base, Text: "a\nB\n"})
	if err := os.WriteFile(path, []byte("top\na\nb\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	v.Invalidate(path)
	d.Closed(src, path)
	if p := only(t, d, "r1", path); p.Result() != "top\na\nB\n" || p.Version != nil {
		t.Fatalf("after the disk change: result %q version %v", p.Result(), p.Version)
	}
	// A discarded entry drops the proposal.
	d.Stage(src, "r1", tools.StagedFile{Path: path})
	if _, ok := d.Proposal("r1", path); ok || d.Tracks(path) {
		t.Fatalf("discarded entry left %+v", d.Store().List(""))
	}
}

// Typing through Change moves the hunks with the exact edits; a change
// over a hunk conflicts it.
func TestChangeRebasesAndConflicts(t *testing.T) {
	base := "one\ntwo\nthree\n"
	d, v, path := setup(t, base)
	v.Open(path, 1, base)
	src := desk.ViewSource(v, true)
	d.Stage(src, "r1", tools.StagedFile{Path: path, Base: base, Text: "one\nTWO\nthree\n"})
	change := func(version int32, line uint32, endChar uint32, s string) {
		t.Helper()
		r := text.Range{Start: text.Position{Line: line}, End: text.Position{Line: line, Character: endChar}}
		cs := []text.Change{{Range: &r, Text: s}}
		if err := d.Change(src, path, version, cs, text.UTF16, func() error { return v.Change(path, version, cs, text.UTF16) }); err != nil {
			t.Fatal(err)
		}
	}
	change(2, 0, 0, "zero\n")
	p := only(t, d, "r1", path)
	if p.Result() != "zero\none\nTWO\nthree\n" || p.Hunks[0].Start != len("zero\none\n") || p.Hunks[0].Status != proposal.StatusPending {
		t.Fatalf("after typing above: %q %+v", p.Result(), p.Hunks)
	}
	change(3, 2, 3, "deux")
	if p := only(t, d, "r1", path); p.Hunks[0].Status != proposal.StatusConflicted {
		t.Fatalf("typing over the hunk left it %s", p.Hunks[0].Status)
	}
}

// Reject with a reason: the decision carries the reason, the hunk count,
// the text the run's remaining hunks make and the document as it is now.
func TestRejectWithReason(t *testing.T) {
	base := "a\nb\nc\nd\ne\n"
	d, v, path := setup(t, base)
	src := desk.ViewSource(v, false)
	d.Stage(src, "r1", tools.StagedFile{Path: path, Base: base, Text: "A\nb\nc\nd\nE\n"})
	hunks := only(t, d, "r1", path).Hunks
	if len(hunks) != 2 {
		t.Fatalf("hunks = %+v", hunks)
	}
	n, ds := d.Reject(src, "keep e", proposal.Filter{RunID: "r1", Path: path, HunkID: hunks[1].ID},
		proposal.Filter{RunID: "r1", Path: path, HunkID: hunks[1].ID}) // the same hunk twice counts once
	if n != 1 || len(ds) != 1 {
		t.Fatalf("rejected %d, decisions %+v", n, ds)
	}
	dec := ds[0]
	if dec.Accepted || dec.Reason != "keep e" || dec.Hunks != 1 || dec.Document != base || dec.RunID != "r1" || dec.Path != path {
		t.Fatalf("decision = %+v", dec)
	}
	if dec.Remaining == nil || *dec.Remaining != "A\nb\nc\nd\ne\n" {
		t.Fatalf("remaining = %v", dec.Remaining)
	}
	// Rejecting the last hunk leaves nothing remaining.
	_, ds = d.Reject(src, "", proposal.Filter{RunID: "r1"})
	if len(ds) != 1 || ds[0].Remaining != nil || ds[0].Hunks != 1 {
		t.Fatalf("last reject = %+v", ds)
	}
}

// The document changed behind the desk's back between a plan and its
// check: Plan notices, resyncs and computes the edit on the current text.
func TestPlanRecomputesOnStaleDocument(t *testing.T) {
	base := "one\ntwo\nthree\n"
	d, v, path := setup(t, base)
	v.Open(path, 1, base)
	src := desk.ViewSource(v, true)
	d.Stage(src, "r1", tools.StagedFile{Path: path, Base: base, Text: "one\nTWO\nthree\n"})
	r := text.Range{Start: text.Position{Line: 0}, End: text.Position{Line: 0}}
	if err := v.Change(path, 2, []text.Change{{Range: &r, Text: "zero\n"}}, text.UTF16); err != nil { // the hook bypassed
		t.Fatal(err)
	}
	plan, err := d.Plan(src, proposal.Filter{}, text.UTF16)
	if err != nil || len(plan.Files) != 1 {
		t.Fatalf("plan = %+v, %v", plan, err)
	}
	fe := plan.Files[0]
	if fe.Before != "zero\n"+base || fe.Expected != "zero\none\nTWO\nthree\n" || fe.Version == nil || *fe.Version != 2 {
		t.Fatalf("file edit = before %q expected %q version %v", fe.Before, fe.Expected, fe.Version)
	}
	runs := d.PlanRuns(plan)
	if runs[path]["r1"] != 1 {
		t.Fatalf("plan runs = %v", runs)
	}
	ds := d.Settle(plan, runs)
	if len(ds) != 1 || !ds[0].Accepted || ds[0].Applied != fe.Expected || ds[0].LandedBefore != fe.Before || ds[0].LandedAfter != fe.Expected || ds[0].Remaining != nil {
		t.Fatalf("decisions = %+v", ds)
	}
	if d.Tracks(path) && len(d.Store().List(path)) != 0 {
		t.Fatalf("store after settle: %+v", d.Store().List(path))
	}
}

// A file deleted under a proposal that does not create it is never
// planned back into existence: the accept fails as changing.
func TestPlanRefusesDeletedFile(t *testing.T) {
	base := "x\n"
	d, v, path := setup(t, base)
	src := desk.ViewSource(v, false)
	d.Stage(src, "r1", tools.StagedFile{Path: path, Base: base, Text: "y\n"})
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	v.Invalidate(path)
	plan, err := d.Plan(src, proposal.Filter{RunID: "r1"}, text.UTF8)
	if err == nil && !plan.Empty() {
		t.Fatalf("planned %+v for a deleted file", plan)
	}
	if _, ok := d.Proposal("r1", path); !ok {
		t.Fatal("the proposal left review")
	}
}

// The problem book places each problem on the hunk whose proposed lines
// hold it.
func TestHunkProblemNotes(t *testing.T) {
	base := "a\nb\nc\nd\ne\n"
	d, v, path := setup(t, base)
	v.Open(path, 1, base)
	src := desk.ViewSource(v, true)
	d.Stage(src, "r1", tools.StagedFile{Path: path, Base: base, Text: "A\nb\nc\nd\nE\n"})
	p := d.Store().ListLSP(path, text.UTF16)[0] // hunk ranges, as the faces list them
	d.RecordProblems("r1", tools.FileProblems{Path: path, Outstanding: []tools.Problem{
		{Range: text.Range{Start: text.Position{Line: 4}}, Message: "E undefined"},
	}})
	if !d.AnyProblems(map[string]bool{"r1": true}, path) || d.AnyProblems(map[string]bool{"r2": true}, path) {
		t.Fatal("AnyProblems wrong")
	}
	notes := d.HunkProblemNotes(p)
	if len(notes) != 1 || notes[p.Hunks[1].ID] != "Introduces 1 problem(s): line 5: E undefined" {
		t.Fatalf("notes = %q (hunks %+v)", notes, p.Hunks)
	}
}

// Origins are kept while their runs have something in review: past the
// bound, runs with nothing left are forgotten, not the others.
func TestOriginsBounded(t *testing.T) {
	base := "x\n"
	d, v, path := setup(t, base)
	d.Stage(desk.ViewSource(v, false), "kept", tools.StagedFile{Path: path, Base: base, Text: "y\n"})
	d.SetOrigin("kept", "/w/main.go", 7)
	for i := range 100 {
		d.SetOrigin(fmt.Sprintf("done%d", i), "/w/other.go", 1)
	}
	if o, ok := d.Origin("kept"); !ok || o != (desk.Origin{Path: "/w/main.go", Line: 7}) {
		t.Fatalf("origin of kept = %+v, %v", o, ok)
	}
	if got := d.StartedFrom("/w/main.go"); len(got) != 1 || got["kept"] != 7 {
		t.Fatalf("started from main.go = %v", got)
	}
	if n := len(d.StartedFrom("/w/other.go")); n > 65 {
		t.Fatalf("%d origins of finished runs kept", n)
	}
}

// A new file is shown in the documents its runs started from, leaves them
// when its proposal is decided, and never shows in itself.
func TestShowNewFile(t *testing.T) {
	d, _, _ := setup(t, "x\n")
	d.SetOrigin("r1", "/w/main.go", 3)
	d.SetOrigin("r2", "/w/util.go", 0)
	d.SetOrigin("self", "/w/new.go", 0)
	created := []proposal.Proposal{{RunID: "r1", Path: "/w/new.go"}, {RunID: "r2", Path: "/w/new.go"}, {RunID: "self", Path: "/w/new.go"}, {RunID: "unknown", Path: "/w/new.go"}}
	if got := d.ShowNewFile("/w/new.go", created); !slices.Equal(got, []string{"/w/main.go", "/w/util.go"}) {
		t.Fatalf("shown again = %q, want main.go and util.go", got)
	}
	if got := d.NewFilesShownIn("/w/main.go"); !slices.Equal(got, []string{"/w/new.go"}) {
		t.Fatalf("main.go shows %q", got)
	}
	if got := d.NewFilesShownIn("/w/new.go"); len(got) != 0 {
		t.Fatalf("the new file shows itself: %q", got)
	}
	d.ShowNewFile("/w/b.go", created[:1])
	if got := d.NewFilesShownIn("/w/main.go"); !slices.Equal(got, []string{"/w/b.go", "/w/new.go"}) {
		t.Fatalf("main.go shows %q, want b.go and new.go sorted", got)
	}
	// r2's proposal was decided: util.go no longer shows it, and must be
	// shown again (without it); main.go still does, and may have changed.
	if got := d.ShowNewFile("/w/new.go", created[:1]); !slices.Equal(got, []string{"/w/main.go", "/w/util.go"}) {
		t.Fatalf("shown again = %q", got)
	}
	if got := d.NewFilesShownIn("/w/util.go"); len(got) != 0 {
		t.Fatalf("util.go still shows %q", got)
	}
	// All decided: it leaves main.go too, and b.go stays.
	if got := d.ShowNewFile("/w/new.go", nil); !slices.Equal(got, []string{"/w/main.go"}) {
		t.Fatalf("shown again = %q, want main.go", got)
	}
	if got := d.NewFilesShownIn("/w/main.go"); !slices.Equal(got, []string{"/w/b.go"}) {
		t.Fatalf("main.go shows %q, want b.go", got)
	}
	if got := d.ShowNewFile("/w/never.go", nil); len(got) != 0 {
		t.Fatalf("a file shown nowhere: shown again %q", got)
	}
}
