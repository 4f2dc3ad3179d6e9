package nvim_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestGhostText types in insert mode on Neovim (0.7.2 in CI) with the
// replayed examples/hello cassette: the completion shows as an extmark at
// the cursor, <M-l> inserts it whole, typing its first character keeps
// the rest shown, <M-w> inserts one word, a key that does not match hides
// it, and leaving insert mode clears it.
func TestGhostText(t *testing.T) {
	t.Parallel()
	greet, err := os.ReadFile(filepath.Join("..", "..", "examples", "hello", "greet.py"))
	if err != nil {
		t.Fatal(err)
	}
	cassette, err := filepath.Abs(filepath.Join("..", "..", "examples", "hello", "fix-greet.cassette.json"))
	if err != nil {
		t.Fatal(err)
	}
	r := runScript(t, "ghost.lua", options{files: map[string]string{"greet.py": string(greet)},
		env: map[string]string{"AGENTLS_TEST_CASSETTE": cassette}})
	const completion = `return "Goodbye, " + name + "!"`
	if !r.boolean(t, "inlineProvider") {
		t.Fatal("the server offered no inlineCompletionProvider")
	}
	if r.boolean(t, "completionProvider") {
		t.Error("the server also offered completionProvider: the plugin must say it shows inline completions")
	}
	var ghost []struct {
		Row  int    `json:"row"`
		Col  int    `json:"col"`
		Pos  string `json:"pos"`
		Text string `json:"text"`
	}
	r.fact(t, "ghost", &ghost)
	lines := strings.Count(string(greet), "\n") + 2 // the blank line and the def
	if len(ghost) != 1 || ghost[0].Text != completion || ghost[0].Row != lines || ghost[0].Col != 4 || ghost[0].Pos != "overlay" {
		t.Errorf("ghost extmarks = %+v, want one %q overlaid at row %d col 4", ghost, completion, lines)
	}
	if got := r.str(t, "line_with_ghost"); got != "    " {
		t.Errorf("the ghost text reached the buffer before accepting: %q", got)
	}
	if got := r.str(t, "accepted"); got != "    "+completion {
		t.Errorf("line after <M-l> = %q, want %q", got, "    "+completion)
	}
	var cur []int
	r.fact(t, "cursor_after_accept", &cur)
	if len(cur) != 2 || cur[1] != len("    "+completion) {
		t.Errorf("cursor after accept = %v, want at the end of the line", cur)
	}
	var n int
	if r.fact(t, "ghosts_after_accept", &n); n != 0 {
		t.Errorf("%d ghost extmarks left after accepting it whole", n)
	}
	var after []string
	r.fact(t, "lines_after_accept", &after)
	if want := []string{"", "def farewell(name):", "    " + completion}; strings.Join(after, "\n") != strings.Join(want, "\n") {
		t.Errorf("buffer end = %q, want %q", after, want)
	}
	if got := r.str(t, "ghost_typed_through"); got != completion[1:] {
		t.Errorf("ghost after typing its first character = %q, want %q", got, completion[1:])
	}
	if got := r.str(t, "word"); got != "    return" {
		t.Errorf("line after <M-w> = %q, want only the first word", got)
	}
	if got := r.str(t, "ghost_after_word"); got != ` "Goodbye, " + name + "!"` {
		t.Errorf("ghost after <M-w> = %q, want the rest", got)
	}
	if r.fact(t, "ghosts_after_mismatch", &n); n != 0 {
		t.Errorf("%d ghost extmarks after typing a character that does not match", n)
	}
	if r.fact(t, "ghosts_before_leave", &n); n != 1 {
		t.Errorf("%d ghost extmarks after accepting a word, want the rest shown", n)
	}
	if r.fact(t, "ghosts_after_leave", &n); n != 0 {
		t.Errorf("%d ghost extmarks after leaving insert mode", n)
	}

	// On the wire: the capability, LSP 3.18 trigger kinds, the text sent
	// before each request, and the cancelled request.
	wire := readWire(t, filepath.Join(r.dir, "wire"))
	var init struct {
		Capabilities struct {
			TextDocument struct {
				InlineCompletion *struct{} `json:"inlineCompletion"`
			} `json:"textDocument"`
		} `json:"capabilities"`
	}
	if err := json.Unmarshal(byMethod(wire, "initialize")[0].Params, &init); err != nil || init.Capabilities.TextDocument.InlineCompletion == nil {
		t.Errorf("initialize lacks textDocument.inlineCompletion (%v)", err)
	}
	kinds := map[int]int{}
	ids := map[string]bool{}
	lastChange := -1
	for i, m := range wire {
		switch m.Method {
		case "textDocument/didChange":
			lastChange = i
		case "textDocument/inlineCompletion":
			var p struct {
				Context struct {
					TriggerKind int `json:"triggerKind"`
				} `json:"context"`
			}
			if err := json.Unmarshal(m.Params, &p); err != nil {
				t.Fatal(err)
			}
			kinds[p.Context.TriggerKind]++
			ids[string(m.ID)] = true
			if lastChange < 0 {
				t.Errorf("inlineCompletion request %s before any didChange", m.ID)
			}
		}
	}
	if kinds[2] == 0 || kinds[1] != 2 || len(kinds) != 2 {
		t.Errorf("trigger kinds sent = %v, want automatic (2) while typing and invoked (1) twice", kinds)
	}
	cancelled := 0
	for _, m := range byMethod(wire, "$/cancelRequest") {
		var p struct {
			ID json.RawMessage `json:"id"`
		}
		if err := json.Unmarshal(m.Params, &p); err == nil && ids[string(p.ID)] {
			cancelled++
		}
	}
	if cancelled == 0 {
		t.Error("no inlineCompletion request was cancelled, though one was replaced while running")
	}
}
