package review

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/agentls/agentls/agent/proposal"
	"github.com/agentls/agentls/internal/text"
	"github.com/agentls/agentls/internal/workspace"
	"github.com/agentls/agentls/tools"
)

// An accept's Applied can land its plan in the store while the didChange
// hook is between updating the view and updating the store (Applied waits
// for the view to show the edit, not for docMu). The hook must notice
// (the store's revision moved) and not apply the editor's change a second
// time: here the accepted hunk inserts a line, which applied twice would
// show up as a duplicated line and a misplaced second hunk.
func TestDidChangeHookAfterAppliedLandedFirst(t *testing.T) {
	s, _, root := newReviewServer(t)
	path := filepath.Join(root, "a.txt")
	base := "a\nb\nc\nd\n"
	if err := os.WriteFile(path, []byte(base), 0o644); err != nil {
		t.Fatal(err)
	}
	s.view.Open(path, 1, base)
	s.Stage("run1", tools.StagedFile{Path: path, Base: base, Text: "a\nb\nnew\nc\nD\n"})
	store := s.state().store
	hunks := store.Select(proposal.Filter{Path: path})
	if len(hunks) != 2 {
		t.Fatalf("hunks = %+v", hunks)
	}
	plan, err := store.Accept(proposal.Filter{HunkID: hunks[0].ID}, text.UTF16)
	if err != nil || plan.Empty() {
		t.Fatalf("accept: %+v, %v", plan, err)
	}
	fe := plan.Files[0]

	// Applied runs inside the hook, right after the view took the change.
	applied := false
	defer s.view.Subscribe(func(ev workspace.Event) {
		if ev.Buffer && ev.Path == path && !applied {
			applied = true
			store.Applied(plan)
		}
	})()
	var changes []text.Change
	for i := len(fe.TextEdits) - 1; i >= 0; i-- {
		r := fe.TextEdits[i].Range
		changes = append(changes, text.Change{Range: &r, Text: fe.TextEdits[i].NewText})
	}
	if err := s.ChangeDocument(path, 2, changes, text.UTF16); err != nil {
		t.Fatal(err)
	}
	if !applied {
		t.Fatal("the view emitted no event: Applied never ran inside the hook")
	}

	snap, _ := s.view.Overlay(path)
	if want := "a\nb\nnew\nc\nd\n"; snap.Text != want {
		t.Fatalf("view = %q, want %q", snap.Text, want)
	}
	ps := store.List(path)
	if len(ps) != 1 || len(ps[0].Hunks) != 1 {
		t.Fatalf("proposals after the accept = %+v", ps)
	}
	p, h := ps[0], ps[0].Hunks[0]
	if p.Text != snap.Text || p.Version == nil || *p.Version != 2 {
		t.Fatalf("store has %q at version %v, the editor %q at 2", p.Text, p.Version, snap.Text)
	}
	if h.ID != hunks[1].ID || h.Status != proposal.StatusPending || p.Text[h.Start:h.End] != "d\n" || h.NewText != "D\n" {
		t.Fatalf("remaining hunk = %+v", h)
	}
}
