package revert

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const before = "a\nb\nc\nd\ne\nf\ng\nh\n"

// The run changed lines b and g; the user since changed line c (next to
// b's change? no: one line apart) and line g itself.
func TestUndoKeepsTheUsersLines(t *testing.T) {
	after := "a\nB\nc\nd\ne\nf\nG\nh\n"
	f := File{Path: "/w/x", Before: before, After: after}

	r, err := Undo(f, after, true)
	if err != nil || !r.Changed || r.Text != before || r.Conflict != "" {
		t.Fatalf("unchanged since: %+v %v", r, err)
	}

	user := "a\nB\nc\nd\nE!\nf\nG2\nh\n" // user edited e (untouched by the run) and g (the run's)
	r, err = Undo(f, user, true)
	if err != nil {
		t.Fatal(err)
	}
	if want := "a\nb\nc\nd\nE!\nf\nG2\nh\n"; r.Text != want || r.Reverted != 1 || r.Kept != 1 || !strings.Contains(r.Conflict, "1 of 2") {
		t.Fatalf("user edits: %+v, want b restored, E! and G2 kept", r)
	}

	r, _ = Undo(f, before, true)
	if r.Changed || r.Conflict != "already as before the run" {
		t.Fatalf("already reverted: %+v", r)
	}
	if _, err := Undo(f, "", false); !errors.Is(err, ErrGone) {
		t.Fatalf("deleted file: %v", err)
	}
}

func TestUndoCreatedFile(t *testing.T) {
	f := File{Path: "/w/new.txt", After: "hi\n", Created: true}
	if r, _ := Undo(f, "hi\n", true); !r.Delete || !r.Changed {
		t.Fatalf("unchanged new file: %+v", r)
	}
	if r, _ := Undo(f, "hi\nmine\n", true); r.Delete || r.Changed || r.Conflict == "" {
		t.Fatalf("changed new file must stay: %+v", r)
	}
	if r, _ := Undo(f, "", false); r.Changed || r.Conflict != "already deleted" {
		t.Fatalf("deleted new file: %+v", r)
	}
}

// Lines the user added or changed next to the run's lines are kept and do
// not block the revert; only the run's own lines (or lines typed between
// them) do. CRLF text and multi-byte characters survive.
func TestUndoInsertionsAndEncodings(t *testing.T) {
	b := "α\r\n😀 one\r\n二\r\n"
	a := "α\r\n😀 ONE\r\n二\r\n"
	f := File{Path: "/w/x", Before: b, After: a}
	r, _ := Undo(f, "α\r\n😀 ONE\r\nnew line\r\n二\r\n", true)
	if want := "α\r\n😀 one\r\nnew line\r\n二\r\n"; r.Text != want || r.Kept != 0 || r.Reverted != 1 {
		t.Fatalf("insertion below the change: %+v, want %q", r, want)
	}
	r, _ = Undo(f, "x\r\n"+a+"tail\r\n", true)
	if want := "x\r\n" + b + "tail\r\n"; r.Text != want {
		t.Fatalf("edits away from the change: %q, want %q", r.Text, want)
	}
}

// The revert merges per line: the user's edits conflict with a change of
// the run only on the run's own lines (or between two of them).
func TestUndoMergesPerLine(t *testing.T) {
	const leftAlone = "1 of 1 changes left alone: you changed those lines after the run"
	for _, tc := range []struct {
		name, before, after, current string
		want                         string // the file after the revert
		conflict                     string // "" when the run's change was undone
	}{
		{"user added a line below the run's line", "a\nb\n", "a\nb\nc\n", "a\nb\nc\nd\n", "a\nb\nd\n", ""},
		{"user added a line above the run's line", "a\nb\n", "a\nb\nc\n", "a\nb\nx\nc\n", "a\nb\nx\n", ""},
		{"user added lines on both sides of a changed line", "a\nb\nc\n", "a\nB\nc\n", "a\nup\nB\ndown\nc\n", "a\nup\nb\ndown\nc\n", ""},
		{"user changed the run's own line", "a\nb\n", "a\nb\nc\n", "a\nb\nC\n", "a\nb\nC\n", leftAlone},
		{"user typed between two of the run's lines", "a\nb\n", "a\nb\nc1\nc2\n", "a\nb\nc1\nx\nc2\n", "a\nb\nc1\nx\nc2\n", leftAlone},
		{"user changed the line next to the run's", "a\nb\n", "a\nb\nc\n", "a\nB\nc\n", "a\nB\n", ""},
		{"user deleted the line next to the run's", "a\nb\n", "a\nb\nc\n", "a\nc\n", "a\n", ""},
		{"run deleted a line, user changed its neighbour", "a\nb\nc\n", "a\nc\n", "a\nC\n", "a\nb\nC\n", ""},
		{"run deleted a line, user typed where it was", "a\nb\nc\n", "a\nc\n", "a\nx\nc\n", "a\nx\nc\n", leftAlone},
		{"no final newline: user appended a line", "a\nb", "a\nb\nc", "a\nb\nc\nd", "a\nb\nd", ""},
		{"no final newline: user appended a line and a newline", "a\nb", "a\nb\nc", "a\nb\nc\nd\n", "a\nb\nd\n", ""},
		{"no final newline: run changed the last line", "a\nb", "a\nB", "x\na\nB", "x\na\nb", ""},
		{"no final newline: user changed the run's last line", "a\nb", "a\nb\nc", "a\nb\nC", "a\nb\nC", leftAlone},
		{"run added the final newline, user appended a line", "a\nb", "a\nb\n", "a\nb\nc\n", "a\nb\nc", ""},
		{"CRLF: user added a line below the run's line", "a\r\nb\r\n", "a\r\nb\r\nc\r\n", "a\r\nb\r\nc\r\nd\r\n", "a\r\nb\r\nd\r\n", ""},
		{"CRLF, no final newline: user appended a line", "a\r\nb", "a\r\nb\r\nc", "a\r\nb\r\nc\r\nd", "a\r\nb\r\nd", ""},
		{"CRLF: user changed the run's own line", "a\r\nb\r\n", "a\r\nb\r\nc\r\n", "a\r\nb\r\nC\r\n", "a\r\nb\r\nC\r\n", leftAlone},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := Undo(File{Path: "/w/x", Before: tc.before, After: tc.after}, tc.current, true)
			if err != nil {
				t.Fatal(err)
			}
			if r.Text != tc.want || r.Conflict != tc.conflict || r.Changed != (tc.want != tc.current) {
				t.Fatalf("got %q (changed %v, conflict %q), want %q (conflict %q)", r.Text, r.Changed, r.Conflict, tc.want, tc.conflict)
			}
			if tc.conflict == "" && (r.Reverted != 1 || r.Kept != 0) || tc.conflict != "" && (r.Reverted != 0 || r.Kept != 1) {
				t.Fatalf("reverted %d, kept %d", r.Reverted, r.Kept)
			}
		})
	}
}

func TestStoreRecordLoadRevertAndBounds(t *testing.T) {
	s := NewStore(t.TempDir())
	if err := s.Record("run1", "sess", File{Path: "/w/a", Before: "1\n", After: "2\n"}); err != nil {
		t.Fatal(err)
	}
	if err := s.Record("run1", "", File{Path: "/w/a", Before: "2\n", After: "3\n"}); err != nil {
		t.Fatal(err)
	}
	snap, err := s.Load("run1")
	if err != nil || len(snap.Files) != 1 || snap.Files[0].Before != "1\n" || snap.Files[0].After != "3\n" || snap.SessionID != "sess" {
		t.Fatalf("snapshot %+v %v: the first Before and the last After", snap, err)
	}
	if fi, _ := os.Stat(filepath.Join(s.dir, "run1.json")); fi.Mode().Perm() != 0o600 {
		t.Fatalf("snapshot mode %v", fi.Mode())
	}
	if err := s.MarkReverted("run1"); err != nil {
		t.Fatal(err)
	}
	if snap, _ := s.Load("run1"); !snap.Reverted {
		t.Fatal("not marked reverted")
	}
	if _, err := s.Load("nope"); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("unknown run: %v", err)
	}
	for _, bad := range []string{"../x", "a/b", ""} {
		if _, err := s.Load(bad); err == nil || errors.Is(err, os.ErrNotExist) {
			t.Fatalf("run id %q accepted: %v", bad, err)
		}
	}
	big := strings.Repeat("x", MaxSnapshotBytes)
	if err := s.Record("run2", "", File{Path: "/w/big", Before: big, After: big + "y"}); err != nil {
		t.Fatal(err)
	}
	if snap, _ := s.Load("run2"); len(snap.Files) != 0 || len(snap.TooLarge) != 1 {
		t.Fatalf("oversized change kept: %d files, too large %v", len(snap.Files), snap.TooLarge)
	}
}

// Two accepts of one run in one file with the user's edit between them:
// the revert undoes both of the run's changes and keeps the user's line,
// which a single first-Before/last-After pair would have taken away.
func TestUndoKeepsTheUsersEditsBetweenLandings(t *testing.T) {
	s := NewStore(t.TempDir())
	first := "a\nB\nc\nd\ne\nf\ng\nh\n" // the run changed b
	typed := "a\nB\nc\nD mine\ne\nf\ng\nh\n"
	second := "a\nB\nc\nD mine\ne\nf\nG\nh\n" // the run changed g, accepted after the user typed d
	if err := s.Record("run1", "", File{Path: "/w/x", Before: before, After: first}); err != nil {
		t.Fatal(err)
	}
	if err := s.Record("run1", "", File{Path: "/w/x", Before: typed, After: second}); err != nil {
		t.Fatal(err)
	}
	snap, err := s.Load("run1")
	if err != nil || len(snap.Files) != 1 || len(snap.Files[0].Earlier) != 1 {
		t.Fatalf("snapshot %+v %v: want the first landing kept as an earlier step", snap, err)
	}
	f := snap.Files[0]
	r, err := Undo(f, second, true)
	if want := "a\nb\nc\nD mine\ne\nf\ng\nh\n"; err != nil || r.Text != want || !r.Changed || r.Reverted != 2 || r.Kept != 0 || r.Conflict != "" {
		t.Fatalf("revert: %+v %v, want %q (both changes undone, the user's line kept)", r, err, want)
	}
	// The user changed the first landing's line too: that change stays,
	// the other is undone.
	r, _ = Undo(f, "a\nB2\nc\nD mine\ne\nf\nG\nh\n", true)
	if want := "a\nB2\nc\nD mine\ne\nf\ng\nh\n"; r.Text != want || r.Reverted != 1 || r.Kept != 1 || !strings.Contains(r.Conflict, "1 of 2") {
		t.Fatalf("partly: %+v, want %q", r, want)
	}
	if r, _ := Undo(f, "a\nb\nc\nD mine\ne\nf\ng\nh\n", true); r.Changed || r.Conflict != "already as before the run" {
		t.Fatalf("already reverted: %+v", r)
	}
}

// A file the run created, then changed again after the user edited it:
// the later change is undone, the file (holding the user's text) stays.
func TestUndoCreatedFileWithLaterLanding(t *testing.T) {
	f := File{Path: "/w/n", Created: true, Earlier: []Step{{Before: "", After: "one\n"}}, Before: "one\nmine\n", After: "one\nmine\ntwo\n"}
	r, err := Undo(f, "one\nmine\ntwo\n", true)
	if err != nil || r.Delete || r.Text != "one\nmine\n" || r.Reverted != 1 || r.Kept != 1 {
		t.Fatalf("%+v %v", r, err)
	}
	// Without the user's line the creation is undone too: deleted.
	g := File{Path: "/w/n", Created: true, Earlier: []Step{{Before: "", After: "one\n"}}, Before: "one\n ", After: "one\n two\n"}
	if r, _ := Undo(g, "one\n two\n", true); r.Delete {
		t.Fatalf("a file the user changed was deleted: %+v", r)
	}
}

// InStateDir keeps snapshots under <state dir>/reverts, and without a
// state directory records nothing and has nothing to revert.
func TestInStateDir(t *testing.T) {
	if st := InStateDir(""); st != nil {
		t.Fatalf("InStateDir(\"\") = %v, want nil", st)
	}
	if _, err := InStateDir("").Open("r1"); !errors.Is(err, ErrNothing) {
		t.Fatalf("Open on no store = %v, want ErrNothing", err)
	}
	dir := t.TempDir()
	if got := InStateDir(dir).Dir(); got != filepath.Join(dir, "reverts") {
		t.Fatalf("Dir = %q", got)
	}
}
