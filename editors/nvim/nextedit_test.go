package nvim_test

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"github.com/agentls/agentls/agent/llm/llmtest"
)

// renameFollower answers the server's next-edit requests (one tool,
// edit_file) like a model that follows a parameter rename: when f's
// parameter and the name it returns differ, an edit_file call renaming
// the use; else no edit. Agent requests get a plain answer.
func renameFollower(t *testing.T) *llmtest.Server {
	param := regexp.MustCompile(`def f\((\w+)\):`)
	use := regexp.MustCompile(`return (\w+) \+ 1`)
	return llmtest.New(t, func(req *llmtest.ChatRequest) llmtest.Reply {
		if len(req.Tools) != 1 || req.Tools[0].Function.Name != "edit_file" {
			return llmtest.Text("done")
		}
		u := req.LastUser()
		if i := strings.Index(u, "The file now"); i >= 0 {
			u = u[i:]
		}
		p, q := param.FindStringSubmatch(u), use.FindStringSubmatch(u)
		if p == nil || q == nil || p[1] == q[1] {
			return llmtest.Text("No edit follows.")
		}
		args, _ := json.Marshal(map[string]string{"path": "f.py",
			"old_string": "return " + q[1] + " + 1", "new_string": "return " + p[1] + " + 1"})
		return llmtest.ToolCalls(llmtest.Call{ID: "n1", Name: "edit_file", Args: string(args)})
	})
}

// TestNextEditKey: with completion.nextEdit on, a rename typed in insert
// mode brings a next-edit suggestion, shown with a hint naming <M-n>;
// <M-n> in insert mode (cursor on the renamed line, not the suggestion's)
// accepts it and stays in insert mode; a rename in normal mode and <M-n>
// from the first line accept the second; with no suggestion <M-n> changes
// nothing.
func TestNextEditKey(t *testing.T) {
	t.Parallel()
	srv := renameFollower(t)
	r := runScript(t, "nextedit.lua", options{env: modelEnv(srv),
		files: map[string]string{"f.py": "def f(a):\n    return a + 1\n"}})
	if !r.boolean(t, "mapped_n") || !r.boolean(t, "mapped_i") {
		t.Fatal("<M-n> is not mapped in normal and insert mode")
	}
	if got := r.str(t, "hint"); !strings.Contains(got, "next edit: <M-n>") {
		t.Errorf("the suggestion's hint = %q, want it to name the key", got)
	}
	var row int
	if r.fact(t, "suggestion_row", &row); row != 1 {
		t.Errorf("suggestion at row %d, want 1", row)
	}
	if got := r.str(t, "after_insert_accept"); got != "def f(b):\n    return b + 1" {
		t.Errorf("buffer after <M-n> in insert mode = %q", got)
	}
	if got := r.str(t, "mode_after_insert_accept"); got != "i" {
		t.Errorf("mode after <M-n> = %q, want insert mode kept", got)
	}
	var cur []int
	if r.fact(t, "cursor_after_insert_accept", &cur); len(cur) != 2 || cur[0] != 1 || cur[1] != 7 {
		t.Errorf("cursor after <M-n> = %v, want where it was (1, 7)", cur)
	}
	if got := r.str(t, "after_normal_accept"); got != "def f(c):\n    return c + 1" {
		t.Errorf("buffer after <M-n> in normal mode = %q", got)
	}
	if !r.boolean(t, "unchanged_without_suggestion") || r.str(t, "final") != "def f(c):\n    return c + 1" {
		t.Errorf("<M-n> without a suggestion changed the buffer: %q", r.str(t, "final"))
	}
	n := 0
	for _, req := range srv.Requests() {
		if len(req.Tools) == 1 && req.Tools[0].Function.Name == "edit_file" {
			n++
		}
	}
	if n < 2 {
		t.Errorf("%d next-edit requests reached the model, want one per rename at least", n)
	}
}
