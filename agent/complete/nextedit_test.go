package complete

import (
	"strings"
	"testing"

	"github.com/agentls/agentls/agent/llm"
)

// TestApplyNextEdits: the model's edit_file calls apply in order, all or
// nothing; a call that names another file, another tool, bad JSON or
// text that is not there gives no suggestion.
func TestApplyNextEdits(t *testing.T) {
	const text = "def f(b):\n    return a + 1\n\nprint(f(a=1))\n"
	call := func(args string) llm.ToolCall { return llm.ToolCall{ID: "c", Name: "edit_file", Args: args} }
	out, err := applyNextEdits(text, "/w/f.py", "f.py", []llm.ToolCall{
		call(`{"path":"f.py","old_string":"return a + 1","new_string":"return b + 1"}`),
		call(`{"path":"/w/f.py","old_string":"f(a=1)","new_string":"f(b=1)"}`),
	})
	if err != nil || out != "def f(b):\n    return b + 1\n\nprint(f(b=1))\n" {
		t.Fatalf("applied = %q, %v", out, err)
	}
	if out, err := applyNextEdits(text, "/w/f.py", "f.py", nil); err != nil || out != text {
		t.Fatalf("no calls = %q, %v", out, err)
	}
	for name, calls := range map[string][]llm.ToolCall{
		"other file": {call(`{"path":"g.py","old_string":"return a","new_string":"return b"}`)},
		"other tool": {{ID: "c", Name: "write_file", Args: `{"path":"f.py","content":"x"}`}},
		"bad json":   {call(`{"path":`)},
		"no match":   {call(`{"path":"f.py","old_string":"return zzz","new_string":"return b"}`)},
		"second bad": {call(`{"path":"f.py","old_string":"return a + 1","new_string":"return b + 1"}`), call(`{"path":"f.py","old_string":"","new_string":"x"}`)},
	} {
		if _, err := applyNextEdits(text, "/w/f.py", "f.py", calls); err == nil {
			t.Errorf("%s: applied", name)
		} else if _, ok := err.(*errNoSuggestion); !ok {
			t.Errorf("%s: error %T %v, want errNoSuggestion", name, err, err)
		}
	}
}

// TestNextEditPrompt: the recent edits come oldest first, and a big file
// is cut to the lines around the last edit.
func TestNextEditPrompt(t *testing.T) {
	p := nextEditPrompt("f.py", "a\nb\n", 0, []string{"--- a/f.py\n+++ b/f.py\n-x\n+a\n", "-y\n+b\n"})
	if i, j := strings.Index(p, "+a"), strings.Index(p, "+b"); i < 0 || j < i || !strings.Contains(p, "The file now:\n```\na\nb\n```") {
		t.Fatalf("prompt:\n%s", p)
	}
	var b strings.Builder
	for i := range 5000 {
		b.WriteString("line " + strings.Repeat("x", 10) + " " + string(rune('a'+i%26)) + "\n")
	}
	big := b.String()
	p = nextEditPrompt("big.txt", big, 2500, nil)
	if len(p) > wholeFileBytes || !strings.Contains(p, "lines 2441 to 2560 of 5000") {
		t.Fatalf("big file prompt (%d bytes): %.200s", len(p), p)
	}
}
