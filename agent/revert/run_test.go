package revert

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agentls/agentls/internal/workspace"
)

// TestRun: the revert every face sends is worked out here once: the
// changes to land, the conflicts (partly reverted first, then left
// alone), the note when nothing is to be done, and the errors as people
// read them.
func TestRun(t *testing.T) {
	read := func(texts map[string]string) func(string) (Current, error) {
		return func(p string) (Current, error) {
			s, ok := texts[p]
			return Current{Text: s, Exists: ok}, nil
		}
	}
	if _, err := Run(nil, "r1", read(nil), true); !errors.Is(err, ErrNoState) {
		t.Fatalf("Run without a state directory = %v, want ErrNoState", err)
	}
	st := NewStore(t.TempDir())
	_, err := Run(st, "0123456789ab", read(nil), true)
	if !errors.Is(err, ErrNothing) || !strings.Contains(err.Error(), "run 0123456789ab has no accepted or applied changes to revert") || !strings.Contains(err.Error(), "no applied changes") {
		t.Fatalf("Run of an unknown run = %v, want ErrNothing naming the run", err)
	}
	for _, f := range []File{
		{Path: "/w/a", Before: "one\ntwo\nthree\n", After: "one\nTWO\nthree\n"},
		{Path: "/w/b", Before: "x\ny\n", After: "X\ny\nY\n"},
		{Path: "/w/new", After: "created\n", Created: true},
		{Path: "/w/gone", Before: "g\n", After: "G\n"},
	} {
		if _, err := st.Keep("r1", "s1", f); err != nil {
			t.Fatal(err)
		}
	}
	now := map[string]string{
		"/w/a":   "one\nTWO\nthree\n",
		"/w/b":   "X!\ny\nY\n", // the user changed the run's first line since
		"/w/new": "created\n",
	}

	// An editor that cannot delete files leaves the created one alone.
	rv, err := Run(st, "r1", read(now), false)
	if err != nil {
		t.Fatal(err)
	}
	if rv.RunID != "r1" || rv.SessionID != "s1" || rv.Files != 4 || rv.Note != "" {
		t.Fatalf("Run = %+v", rv)
	}
	paths := func(rs []Result) []string {
		var out []string
		for _, r := range rs {
			out = append(out, r.Path+": "+r.Conflict)
		}
		return out
	}
	if got := paths(rv.Done()); !slices.Equal(got, []string{"/w/a: ", "/w/b: 1 of 2 changes left alone: you changed those lines after the run"}) {
		t.Fatalf("Done = %q", got)
	}
	if rv.Changes[0].Text != "one\ntwo\nthree\n" || rv.Changes[1].Text != "X!\ny\n" {
		t.Fatalf("texts = %q, %q", rv.Changes[0].Text, rv.Changes[1].Text)
	}
	want := []string{
		"/w/b: 1 of 2 changes left alone: you changed those lines after the run",
		"/w/gone: the file no longer exists (deleted or renamed after the run)",
		"/w/new: the run created this file; the editor cannot delete files (resource operations), so delete it yourself",
	}
	if got := paths(rv.Conflicts()); !slices.Equal(got, want) {
		t.Fatalf("Conflicts =\n%q\nwant\n%q", got, want)
	}

	// On disk: the created file is deleted; a change that fails to land
	// is left alone with its error, the others stay done.
	rv, err = Run(st, "r1", read(now), true)
	if err != nil {
		t.Fatal(err)
	}
	if len(rv.Changes) != 3 || !rv.Changes[2].Delete {
		t.Fatalf("changes = %+v, want a, b and the created file deleted", rv.Changes)
	}
	rv.Land(func(c Change) error {
		if c.Path == "/w/a" {
			return errors.New("not written: the file changed on disk meanwhile")
		}
		return nil
	})
	if got := paths(rv.Done()); len(got) != 2 || got[0] != "/w/b: 1 of 2 changes left alone: you changed those lines after the run" || got[1] != "/w/new: " {
		t.Fatalf("Done after a failed landing = %q", got)
	}
	if got := paths(rv.Left); !slices.Contains(got, "/w/a: not written: the file changed on disk meanwhile") {
		t.Fatalf("Left = %q, want a.txt with its error", got)
	}

	// Nothing left to change: said so, with why each file stays.
	rv, err = Run(st, "r1", read(map[string]string{"/w/a": "one\ntwo\nthree\n", "/w/b": "x\ny\n"}), true)
	if err != nil || len(rv.Changes) != 0 || rv.Note != "nothing to revert" || len(rv.Conflicts()) != 4 {
		t.Fatalf("Run with everything as before = %+v, %v", rv, err)
	}

	// A run reverted before: no error, nothing to do, and said so.
	if err := st.MarkReverted("r1"); err != nil {
		t.Fatal(err)
	}
	rv, err = Run(st, "r1", read(now), true)
	if err != nil || len(rv.Changes)+len(rv.Left) != 0 || rv.Note != "run r1 was already reverted; nothing was done" {
		t.Fatalf("Run of a reverted run = %+v, %v", rv, err)
	}
}

// TestInView: an editor's revert reads the open buffer (and its version,
// which the edit must land on) before the disk, and a file in neither is
// gone, not empty: a revert must not write the run's Before into a file
// the user deleted.
func TestInView(t *testing.T) {
	dir := t.TempDir()
	disk, open, gone := filepath.Join(dir, "disk.txt"), filepath.Join(dir, "open.txt"), filepath.Join(dir, "gone.txt")
	for _, p := range []string{disk, open} {
		if err := os.WriteFile(p, []byte("on disk\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	view := workspace.New(workspace.Options{Folders: []string{dir}})
	view.Open(open, 7, "in the buffer\n")
	read := InView(view)
	if c, err := read(open); err != nil || !c.Exists || c.Text != "in the buffer\n" || c.Version == nil || *c.Version != 7 {
		t.Fatalf("open file = %+v, %v; want the buffer at version 7", c, err)
	}
	if c, err := read(disk); err != nil || !c.Exists || c.Text != "on disk\n" || c.Version != nil {
		t.Fatalf("closed file = %+v, %v; want the disk, no version", c, err)
	}
	if c, err := read(gone); err != nil || c.Exists {
		t.Fatalf("missing file = %+v, %v; want gone", c, err)
	}
	if _, err := read("/elsewhere/x.txt"); err == nil {
		t.Fatal("a file outside the workspace was read")
	}
	// PlanRun over InView: the gone file is left as gone.
	snap := Snapshot{RunID: "r", Files: []File{{Path: gone, Before: "a\n", After: ""}}}
	if p := PlanRun(snap, read); len(p.Changes) != 0 || len(p.Left) != 1 || !strings.Contains(p.Left[0].Conflict, "no longer exists") {
		t.Fatalf("plan of a deleted file = %+v, want it left alone as gone", p)
	}
}

// TestIndexOffered: on a line, the newest runs whose lines are there now,
// at most MaxOffered, newest first; none where no run's lines are.
func TestIndexOffered(t *testing.T) {
	st := NewStore(t.TempDir())
	text := "a\nb\nc\nd\n"
	runs := []string{"r1", "r2", "r3", "r4"}
	for i, id := range runs { // each run changed line i; r4 changed line 0 too
		before := strings.Replace(text, string(rune('a'+i))+"\n", "old\n", 1)
		f := File{Path: "/w/f", Before: before, After: text}
		if id == "r4" {
			f.Before = strings.Replace(text, "a\n", "old\n", 1)
		}
		if _, err := st.Keep(id, "s", f); err != nil {
			t.Fatal(err)
		}
	}
	x := &Index{Store: func() *Store { return st }, Runs: func() []string { return runs }, Go: func(f func()) { go f() }}
	for _, id := range runs {
		x.Landed(id)
	}
	read := func() (string, bool) { return text, true }
	if got := x.Offered("/w/f", 0, 0, read); !slices.Equal(got, []string{"r4", "r1"}) {
		t.Fatalf("Offered on line 0 = %v, want r4 then r1", got)
	}
	if got := x.Offered("/w/f", 0, 3, read); !slices.Equal(got, []string{"r4", "r3"}) {
		t.Fatalf("Offered on lines 0-3 = %v, want the newest two", got)
	}
	if got := x.Offered("/w/f", 2, 2, read); !slices.Equal(got, []string{"r3"}) {
		t.Fatalf("Offered on line 2 = %v, want r3", got)
	}
	if got := x.Offered("/w/f", 2, 2, func() (string, bool) { return "x\n", true }); got != nil {
		t.Fatalf("Offered where the run's lines were replaced = %v", got)
	}
}
