package vscode_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// ghostResult is what e2e/ghost.js records.
type ghostResult struct {
	OK                bool     `json:"ok"`
	Error             string   `json:"error"`
	Steps             []string `json:"steps"`
	Ghost             string   `json:"ghost"`
	LinesBeforeAccept []string `json:"linesBeforeAccept"`
	AcceptedLine      string   `json:"acceptedLine"`
	GhostAfterAccept  string   `json:"ghostAfterAccept"`
	WordLine          string   `json:"wordLine"`
	GhostAfterWord    string   `json:"ghostAfterWord"`
	FailShot          string   `json:"failShot"`
	FailGhost         string   `json:"failGhost"`
	FailText          string   `json:"failText"`
}

// TestVSCodeGhostText: in examples/hello with no model (its settings
// replay the cassette, whose one completion lspserver's
// TestExampleHelloGhostText checks), typing a new function at the end of
// greet.py shows the server's completion as ghost text; Tab inserts it,
// and Ctrl+Right inserts only its first word, the rest staying ghost.
func TestVSCodeGhostText(t *testing.T) {
	tl := findTools(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	tmp := t.TempDir()
	ws := filepath.Join(tmp, "hello")
	if err := os.CopyFS(ws, os.DirFS(filepath.Join("..", "..", "examples", "hello"))); err != nil {
		t.Fatal(err)
	}
	t.Setenv("OPENAI_API_KEY", "")
	t.Setenv("OPENAI_BASE_URL", "")
	t.Setenv("AGENTLS_MODEL", "")
	cs := startCodeServer(t, ctx, tl, tmp, ws, map[string]any{
		// Typed keys land as typed: no indentation added after the
		// colon, no suggest widget taking the Enter.
		"editor.autoIndent":                 "none",
		"editor.quickSuggestions":           map[string]string{"other": "off", "comments": "off", "strings": "off"},
		"editor.suggestOnTriggerCharacters": false,
		"editor.wordBasedSuggestions":       "off",
	})
	out := filepath.Join(tmp, "result.json")
	driver := exec.CommandContext(ctx, tl.node, filepath.Join("e2e", "ghost.js"))
	driver.Env = append(os.Environ(), "NODE_PATH="+tl.nodePath, "E2E_URL="+cs.url, "E2E_FOLDER="+ws,
		"E2E_OUT="+out, "E2E_SHOTS="+cs.shots, "CHROMIUM="+tl.chromium)
	driverOut, driverErr := driver.CombinedOutput()
	logs := func() string {
		serverText, _ := os.ReadFile(cs.serverLog)
		return fmt.Sprintf("driver: %v\n%s\ncode-server:\n%s\nserver log:\n%s", driverErr, driverOut, cs.out.String(), serverText)
	}
	// A check that fails with t.Errorf shows the logs too: a flake
	// under load is diagnosed from the run that had it.
	defer func() {
		if t.Failed() {
			t.Logf("%s", logs())
		}
	}()
	raw, err := os.ReadFile(out)
	if err != nil {
		t.Fatalf("no result from ghost.js: %v\n%s", err, logs())
	}
	var r ghostResult
	if err := json.Unmarshal(raw, &r); err != nil {
		t.Fatalf("bad result %s: %v", raw, err)
	}
	if !r.OK {
		t.Fatalf("ghost.js failed after steps %v (screenshot %s): %s\nghost %q\ntext:\n%s\n%s", r.Steps, r.FailShot, r.Error, r.FailGhost, r.FailText, logs())
	}
	const completion = `return "Goodbye, " + name + "!"`
	if r.Ghost != completion {
		t.Errorf("ghost text = %q, want %q", r.Ghost, completion)
	}
	if slices.ContainsFunc(r.LinesBeforeAccept, func(l string) bool { return strings.Contains(l, "Goodbye") }) {
		t.Errorf("the ghost text was in the buffer before accepting: %q", r.LinesBeforeAccept)
	}
	if r.AcceptedLine != "    "+completion {
		t.Errorf("line after Tab = %q, want %q", r.AcceptedLine, "    "+completion)
	}
	if r.GhostAfterAccept != "" {
		t.Errorf("ghost text left after Tab: %q", r.GhostAfterAccept)
	}
	if w := strings.TrimRight(r.WordLine, " "); w != "    return" {
		t.Errorf("line after Ctrl+Right = %q, want only the first word, %q", r.WordLine, "    return")
	}
	if !strings.Contains(r.GhostAfterWord, `"Goodbye, " + name + "!"`) || strings.Contains(r.GhostAfterWord, "return") {
		t.Errorf("ghost text after Ctrl+Right = %q, want the rest of the completion", r.GhostAfterWord)
	}
	orig, _ := os.ReadFile(filepath.Join("..", "..", "examples", "hello", "greet.py"))
	if disk, _ := os.ReadFile(filepath.Join(ws, "greet.py")); string(disk) != string(orig) {
		t.Errorf("greet.py on disk changed:\n%s", disk)
	}
}
