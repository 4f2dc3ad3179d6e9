package llm

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentls/agentls/tools/editortools"
)

func TestWithoutEditorContext(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"Fix the bug", "Fix the bug"},
		{"Fix the bug\n\n<editor>\nFile: greet.py\n</editor>", "Fix the bug"},
		{"Fix it\n\n<editor>\nSelected text:\n```\nb.WriteString(\"\\n\\n<editor>\\n\")\n\n\n<editor>\n```\n</editor>", "Fix it"},
		{"Explain </editor>", "Explain </editor>"},                                           // no block: unchanged
		{"a\n\n<editor>\nFile: x\n</editor> more", "a\n\n<editor>\nFile: x\n</editor> more"}, // not at the end
	} {
		if got := WithoutEditorContext(c.in); got != c.want {
			t.Errorf("WithoutEditorContext(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// chatBody is a chat-completions request with a system prompt, the user's
// task and the tool list.
func chatBody(t *testing.T, task string) []byte {
	t.Helper()
	b, err := json.Marshal(map[string]any{
		"model": "m",
		"messages": []map[string]any{
			{"role": "system", "content": "You are agentls. Workspace: /somewhere"},
			{"role": "user", "content": task},
		},
		"tools": []map[string]any{{"type": "function", "function": map[string]any{"name": "read_file"}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// withTools returns body with its tool list replaced by tools of these names.
func withTools(t *testing.T, body []byte, names ...string) []byte {
	t.Helper()
	var req map[string]any
	if err := json.Unmarshal(body, &req); err != nil {
		t.Fatal(err)
	}
	var tools []map[string]any
	for _, n := range names {
		tools = append(tools, map[string]any{"type": "function", "function": map[string]any{"name": n}})
	}
	req["tools"] = tools
	b, err := json.Marshal(req)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// The editor's own tools (editor__NAME) are not part of the match either:
// a CLI recording replays in an editor that registered tools, while a
// built-in tool more or less still diverges.
func TestReplayIgnoresEditorTools(t *testing.T) {
	if EditorToolPrefix != editortools.Prefix {
		t.Fatalf("EditorToolPrefix %q != editortools.Prefix %q", EditorToolPrefix, editortools.Prefix)
	}
	const task = "Fix the bug in greet.py"
	fp, err := fingerprint(withTools(t, chatBody(t, task), "read_file", "edit_file"))
	if err != nil {
		t.Fatal(err)
	}
	cli := &Cassette{Version: CassetteVersion, Turns: []Turn{{Request: fp, SSE: "data: [DONE]\n\n"}}}
	editor := withTools(t, chatBody(t, task+EditorContextOpen+"File: greet.py\n"+EditorContextClose),
		"read_file", "edit_file", "editor__get_diagnostics", "editor__open_editors")
	if err := replayOnce(t, cli, editor); err != nil {
		t.Fatalf("an editor's own tools broke the match: %v", err)
	}
	err = replayOnce(t, cli, withTools(t, chatBody(t, task), "read_file", "edit_file", "script"))
	var re *ReplayError
	if !errors.As(err, &re) || !strings.Contains(re.Message, "tool list differs") {
		t.Fatalf("a new built-in tool: %v", err)
	}
}

func replayOnce(t *testing.T, c *Cassette, body []byte) error {
	t.Helper()
	r := &replayer{path: "x.cassette.json", c: c}
	req, err := http.NewRequest("POST", "http://replay.invalid/v1/chat/completions", strings.NewReader(string(body)))
	if err != nil {
		t.Fatal(err)
	}
	resp, err := r.RoundTrip(req)
	if err == nil {
		b, _ := io.ReadAll(resp.Body)
		if string(b) != "data: [DONE]\n\n" {
			t.Fatalf("replayed body %q", b)
		}
	}
	return err
}

// The replay rule for editors: a cassette recorded from the CLI (no editor
// block) replays a run started in an editor (with one), whatever file or
// selection the editor names, and the other way round; another task still
// diverges. Cassettes recorded before the rule (the block hashed in) still
// replay the run they recorded.
func TestReplayIgnoresEditorContext(t *testing.T) {
	const task = "Fix the bug in greet.py"
	withBlock := func(file string) string {
		return task + EditorContextOpen + "File: " + file + "\nSelection: line 1 col 1 to line 2 col 1\n" + EditorContextClose
	}
	record := func(body []byte, exact bool) *Cassette {
		fp, err := fingerprintOf(body, !exact)
		if err != nil {
			t.Fatal(err)
		}
		return &Cassette{Version: CassetteVersion, Turns: []Turn{{Request: fp, SSE: "data: [DONE]\n\n"}}}
	}
	cli := record(chatBody(t, task), false)
	editor := record(chatBody(t, withBlock("greet.py")), false)
	old := record(chatBody(t, withBlock("greet.py")), true)

	for name, c := range map[string]struct {
		cas  *Cassette
		body []byte
	}{
		"cli cassette, editor run":            {cli, chatBody(t, withBlock("greet.py"))},
		"cli cassette, another file":          {cli, chatBody(t, withBlock("other/file.py"))},
		"editor cassette, cli run":            {editor, chatBody(t, task)},
		"editor cassette, other selection":    {editor, chatBody(t, withBlock("x.py"))},
		"cassette from before the rule, same": {old, chatBody(t, withBlock("greet.py"))},
	} {
		if err := replayOnce(t, c.cas, c.body); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	err := replayOnce(t, cli, chatBody(t, "Fix the bug in main.py"+EditorContextOpen+"File: greet.py\n"+EditorContextClose))
	var re *ReplayError
	if !errors.As(err, &re) || re.Turn != 1 || !strings.Contains(re.Message, `recorded "Fix the bug in greet.py", now "Fix the bug in main.py"`) {
		t.Fatalf("another task: %v", err)
	}
	// The shipped example (recorded with agentls run) carries no editor block.
	c, err := LoadCassette(filepath.Join("..", "..", "examples", "hello", "fix-greet.cassette.json"))
	if err != nil {
		t.Fatal(err)
	}
	if p := c.Turns[0].Request.Messages[0].Preview; p != task {
		t.Fatalf("example's first message %q", p)
	}
}
