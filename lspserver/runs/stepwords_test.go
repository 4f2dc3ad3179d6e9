package runs

import "testing"

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
