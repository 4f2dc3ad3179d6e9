package runs

import (
	"testing"

	"github.com/agentls/agentls/agent"
)

func TestStepMessage(t *testing.T) {
	for _, c := range []struct{ tool, args, want string }{
		{"read_file", `{"path": "main.go"}`, "reading main.go"},
		{"grep", `{"pattern": "func main"}`, "searching for func main"},
		{"edit_file", `{"path":"a/b.go","old_string":"x","new_string":"y"}`, "editing a/b.go"},
		{"list_dir", `{}`, "listing the workspace"},
		{"task", `{"description":"find the tests","prompt":"…"}`, "delegating: find the tests"},
		{"mcp__fs__read_text_file", `{"path":"x"}`, "calling read_text_file (fs)"},
		{"read_file", `"{not json"`, "reading a file"},
	} {
		if got := stepMessage(c.tool, []byte(c.args)); got != c.want {
			t.Errorf("stepMessage(%s, %s) = %q, want %q", c.tool, c.args, got, c.want)
		}
	}
}

// The end message joins the answer and the notes without ".;" (issue 31:
// "finished: …div.go.; 2 changed files").
func TestEndMessageJoinsNotes(t *testing.T) {
	for _, c := range []struct{ answer, note, want string }{
		{"Fixed the bug in div.go.", "2 changed files pending review (div.go, div_test.go)",
			"Agent run r1 finished: Fixed the bug in div.go; 2 changed files pending review (div.go, div_test.go)"},
		{"Should I also fix Mul?", "1 changed file pending review", "Agent run r1 finished: Should I also fix Mul? — 1 changed file pending review"},
		{"Done", "1 changed file pending review", "Agent run r1 finished: Done; 1 changed file pending review"},
		{"Fixed the bug in div.go.", "", "Agent run r1 finished: Fixed the bug in div.go."},
	} {
		if got, _ := endMessage("r1", agent.Outcome{Status: agent.StatusFinished, Answer: c.answer}, c.note); got != c.want {
			t.Errorf("endMessage(%q, %q) = %q, want %q", c.answer, c.note, got, c.want)
		}
	}
}
