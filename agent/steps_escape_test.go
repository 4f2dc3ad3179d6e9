package agent

import (
	"encoding/json"
	"testing"
)

// Step phrases become progress text and permission titles on every face:
// what the model or an MCP server put in them is escaped.
func TestStepPhraseEscapes(t *testing.T) {
	for _, tc := range []struct {
		tool, args, want string
	}{
		{"read_file", `{"path":"main.go"}`, "reading main.go"},
		{"read_file", `{"path":"evil\u202eog.txt"}`, `reading evil\u202eog.txt`},
		{"run_command", `{"command":"ls \u001b]52;c;aGk=\u0007"}`, `running ls \x1b]52;c;aGk=\x07`},
		{"mcp__srv\u009b__tool\u2066", `{}`, `calling tool\u2066 (srv\u009b)`},
	} {
		if got := StepPhrase(tc.tool, json.RawMessage(tc.args), 80); got != tc.want {
			t.Errorf("StepPhrase(%s, %s) = %q, want %q", tc.tool, tc.args, got, tc.want)
		}
	}
}
