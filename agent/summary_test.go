package agent

import (
	"slices"
	"strings"
	"testing"
)

// The end message joins the answer and the notes without ".;" (issue 31:
// "finished: …div.go.; 2 changed files").
func TestEndSummaryJoinsNotes(t *testing.T) {
	for _, c := range []struct{ answer, note, want string }{
		{"Fixed the bug in div.go.", "2 changed files pending review (div.go, div_test.go)",
			"Agent run r1 finished: Fixed the bug in div.go; 2 changed files pending review (div.go, div_test.go)"},
		{"Should I also fix Mul?", "1 changed file pending review", "Agent run r1 finished: Should I also fix Mul? — 1 changed file pending review"},
		{"Done", "1 changed file pending review", "Agent run r1 finished: Done; 1 changed file pending review"},
		{"Fixed the bug in div.go.", "", "Agent run r1 finished: Fixed the bug in div.go."},
	} {
		if got, _ := EndSummary("r1", Outcome{Status: StatusFinished, Answer: c.answer}, c.note); got != c.want {
			t.Errorf("EndSummary(%q, %q) = %q, want %q", c.answer, c.note, got, c.want)
		}
	}
}

// TestEndNotes: a run's changes are named (at most three) when they await
// review; an apply-mode run hands what the editor did not take to review,
// in path order with the reasons, unless it was cancelled.
func TestEndNotes(t *testing.T) {
	base := func(p string) string { return p[strings.LastIndex(p, "/")+1:] }
	if got := PendingNote(nil, base); got != "no changes" {
		t.Errorf("PendingNote(none) = %q", got)
	}
	if got := PendingNote([]string{"/w/a.go", "/w/b.go", "/w/c.go", "/w/d.go"}, base); got != "4 changed files pending review (a.go, b.go, c.go, and 1 more)" {
		t.Errorf("PendingNote(four) = %q", got)
	}
	held := map[string]string{"/w/z.go": "edited meanwhile", "/w/a.go": "rejected"}
	paths, note := HandOver(StatusFinished, 2, held, base)
	if !slices.Equal(paths, []string{"/w/a.go", "/w/z.go"}) || note != "2 files changed in the editor; 2 changes not applied, pending review (a.go: rejected; z.go: edited meanwhile)" {
		t.Errorf("HandOver(finished) = %q, %q", paths, note)
	}
	paths, note = HandOver(StatusCancelled, 1, held, base)
	if paths != nil || note != "1 file changed in the editor; 2 staged changes not applied (run cancelled)" {
		t.Errorf("HandOver(cancelled) = %q, %q; a cancelled run must propose nothing", paths, note)
	}
	if paths, note = HandOver(StatusFinished, 0, nil, base); paths != nil || note != "0 files changed in the editor" {
		t.Errorf("HandOver(nothing held) = %q, %q", paths, note)
	}
}
