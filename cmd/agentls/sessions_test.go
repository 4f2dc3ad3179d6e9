package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/agentls/agentls/agent/llm/llmtest"
)

// agentls run saves its session; --continue and --session go on with it
// (the model sees the earlier conversation and the change still pending),
// and agentls sessions lists it.
func TestRunContinueSession(t *testing.T) {
	var mu sync.Mutex
	var second *llmtest.ChatRequest
	srv := llmtest.New(t, func(req *llmtest.ChatRequest) llmtest.Reply {
		if !strings.Contains(req.LastUser(), "Rename") {
			mu.Lock()
			second = req
			mu.Unlock()
			return llmtest.Text("Noted.")
		}
		switch {
		case !req.HasToolResult("r1"):
			return llmtest.ToolCalls(llmtest.Call{ID: "r1", Name: "read_file", Args: `{"path":"a.txt"}`})
		case !req.HasToolResult("e1"):
			return llmtest.ToolCalls(llmtest.Call{ID: "e1", Name: "edit_file", Args: `{"path":"a.txt","old_string":"old","new_string":"new"}`})
		}
		return llmtest.Text("Renamed.")
	})
	cliEnv(t, srv)
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "a.txt"), "old name\n", 0o644)

	code, _, stderr := runCLI(t, "--dir", dir, "Rename old to new")
	if code != 0 {
		t.Fatalf("first run: %d\n%s", code, stderr)
	}
	m := regexp.MustCompile(`session ([0-9a-f]+) \(continue with: agentls run --dir (\S+) --session ([0-9a-f]+) PROMPT\)`).FindStringSubmatch(stderr)
	if m == nil {
		t.Fatalf("no session id and continue command on stderr:\n%s", stderr)
	}
	id := m[1]
	// The printed command works from any directory: it names the workspace.
	if fi1, err1 := os.Stat(m[2]); err1 != nil || m[3] != id {
		t.Fatalf("continue command names dir %q (%v) and session %q, want %s and %s", m[2], err1, m[3], dir, id)
	} else if fi2, _ := os.Stat(dir); !os.SameFile(fi1, fi2) {
		t.Fatalf("continue command names dir %q, want %s", m[2], dir)
	}

	code, _, stderr = runCLI(t, "--dir", dir, "--continue", "What did you change?")
	if code != 0 {
		t.Fatalf("--continue: %d\n%s", code, stderr)
	}
	mu.Lock()
	req := second
	mu.Unlock()
	if req == nil || !req.HasToolResult("r1") || !strings.Contains(req.LastUser(), "still awaiting review") || !strings.Contains(req.LastUser(), "What did you change?") {
		t.Fatalf("the continued run's request: %+v", req)
	}
	if !strings.Contains(stderr, "session "+id) {
		t.Fatalf("--continue used another session:\n%s", stderr)
	}
	if code, _, stderr = runCLI(t, "--dir", dir, "--session", id, "And now?"); code != 0 {
		t.Fatalf("--session: %d\n%s", code, stderr)
	}
	if code, _, stderr = runCLI(t, "--dir", dir, "--session", "0123456789ab", "x"); code != 2 || !strings.Contains(stderr, "no session") {
		t.Fatalf("unknown --session: %d\n%s", code, stderr)
	}

	var out, errb bytes.Buffer
	if code := run([]string{"sessions", "--dir", dir}, strings.NewReader(""), &out, &errb); code != 0 {
		t.Fatalf("agentls sessions: %d\n%s", code, errb.String())
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 2 || !strings.HasPrefix(lines[1], id) || !strings.Contains(lines[1], "Rename old to new") || !strings.Contains(lines[1], " 3 ") {
		t.Fatalf("agentls sessions:\n%s", out.String())
	}
}

// --continue with nothing saved is a usage error naming the directory.
func TestRunContinueWithoutSession(t *testing.T) {
	srv := llmtest.New(t, func(*llmtest.ChatRequest) llmtest.Reply { return llmtest.Text("x") })
	cliEnv(t, srv)
	dir := t.TempDir()
	if code, _, stderr := runCLI(t, "--dir", dir, "--continue", "x"); code != 2 || !strings.Contains(stderr, "no saved session") {
		t.Fatalf("--continue without sessions: %d\n%s", code, stderr)
	}
}

// Listing is read-only: `agentls sessions` on workspaces with nothing saved
// creates no directory (issue 19: it left an empty one per workspace), and
// an unreadable session file is skipped, not renamed.
func TestSessionsListingCreatesNothing(t *testing.T) {
	state := cliEnv(t, nil)
	for i := 0; i < 3; i++ {
		var out, errb bytes.Buffer
		if code := run([]string{"sessions", "--dir", t.TempDir()}, strings.NewReader(""), &out, &errb); code != 0 || out.Len() != 0 ||
			!strings.Contains(errb.String(), "no saved session") {
			t.Fatalf("agentls sessions: %d %q %q", code, out.String(), errb.String())
		}
	}
	var found []string
	filepath.WalkDir(state, func(p string, d os.DirEntry, err error) error {
		if p != state {
			found = append(found, p)
		}
		return nil
	})
	if len(found) != 0 {
		t.Fatalf("listing created %v", found)
	}

	// A workspace with a corrupted session file: listed without it, the file left alone.
	srv := llmtest.New(t, func(*llmtest.ChatRequest) llmtest.Reply { return llmtest.Text("Hello.") })
	cliEnv(t, srv)
	t.Setenv("XDG_STATE_HOME", state)
	dir := t.TempDir()
	if code, _, stderr := runCLI(t, "--dir", dir, "say hello"); code != 0 {
		t.Fatalf("run: %d\n%s", code, stderr)
	}
	matches, _ := filepath.Glob(filepath.Join(state, "agentls", "sessions", "*", "*.json"))
	if len(matches) != 1 {
		t.Fatalf("session files: %v", matches)
	}
	bad := filepath.Join(filepath.Dir(matches[0]), "0123456789abcdef.json")
	writeFile(t, bad, "{not json", 0o600)
	var out, errb bytes.Buffer
	if code := run([]string{"sessions", "--dir", dir}, strings.NewReader(""), &out, &errb); code != 0 ||
		!strings.Contains(out.String(), "say hello") || strings.Contains(out.String(), "0123456789abcdef") {
		t.Fatalf("agentls sessions: %d\n%s\n%s", code, out.String(), errb.String())
	}
	if _, err := os.Stat(bad); err != nil {
		t.Fatalf("the unreadable file was moved: %v", err)
	}
	if !strings.Contains(errb.String(), "0123456789abcdef") {
		t.Fatalf("the unreadable file is not reported:\n%s", errb.String())
	}
}
