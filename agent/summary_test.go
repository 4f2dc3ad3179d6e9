package agent

import "testing"

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
