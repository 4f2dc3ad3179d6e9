package nvim_test

import (
	"encoding/json"
	"strings"
	"testing"
)

// ghostMark is one ghost extmark as tests/ghost_render.lua records it.
type ghostMark struct {
	Row   int      `json:"row"`
	Col   int      `json:"col"`
	Pos   string   `json:"pos"`
	Text  string   `json:"text"`
	Lines []string `json:"lines"`
}

// TestGhostRender: where ghost text is drawn on Neovim 0.7 (after the
// line's end inside a line, over the cells after the cursor at its end,
// further lines as virtual lines with tabs expanded) and how <M-j>, <M-w>
// and <M-l> take it a line, a word, or the rest at a time.
func TestGhostRender(t *testing.T) {
	t.Parallel()
	r := runScript(t, "ghost_render.lua", options{})
	marks := func(key string) []ghostMark {
		var m []ghostMark
		r.fact(t, key, &m)
		return m
	}
	show := func(m []ghostMark) string { b, _ := json.Marshal(m); return string(b) }
	if m := marks("inside"); len(m) != 1 || m[0].Pos != "eol" || m[0].Text != ", y" || m[0].Row != 0 || m[0].Col != 6 {
		t.Errorf("inside a line: %s, want \", y\" at the line's end (eol)", show(m))
	}
	if m := marks("multi"); len(m) != 1 || m[0].Pos != "overlay" || m[0].Text != " # check" ||
		strings.Join(m[0].Lines, "|") != "    return x|    done()" {
		t.Errorf("at the end of a line: %s, want overlay \" # check\" and two virtual lines", show(m))
	}
	if m := marks("after_line"); len(m) != 1 || m[0].Text != "" || len(m[0].Lines) != 2 || m[0].Col != len("if ok: # check") {
		t.Errorf("after <M-j>: %s, want the two lines left below the cursor", show(m))
	}
	if m := marks("after_second_line"); len(m) != 1 || len(m[0].Lines) != 1 || m[0].Row != 2 {
		t.Errorf("after the second <M-j>: %s, want one line left", show(m))
	}
	var cur []int
	if r.fact(t, "cursor_second_line", &cur); len(cur) != 2 || cur[0] != 3 || cur[1] != len("\treturn x") {
		t.Errorf("cursor after the second <M-j> = %v, want the end of line 3", cur)
	}
	if m := marks("after_words"); len(m) != 1 || m[0].Text != "()" {
		t.Errorf("after two <M-w>: %s, want \"()\" left", show(m))
	}
	var lines []string
	r.fact(t, "lines", &lines)
	if want := "call(x, y)|if ok: # check|\treturn x|\tdone()"; strings.Join(lines, "|") != want {
		t.Errorf("buffer = %q, want %q", lines, want)
	}
	var left int
	if r.fact(t, "left", &left); left != 0 {
		t.Errorf("%d ghost extmarks left after leaving insert mode", left)
	}
}
