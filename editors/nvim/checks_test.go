package nvim_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentls/agentls/agent/llm/llmtest"
)

// writeState stages "broken", answers, then (once a failed check is in
// the conversation) stages "fixed" and answers again.
func writeState(t *testing.T) *llmtest.Server {
	return llmtest.New(t, func(req *llmtest.ChatRequest) llmtest.Reply {
		switch {
		case req.Turns() == 0:
			return llmtest.ToolCalls(llmtest.Call{ID: "w1", Name: "write_file", Args: `{"path":"state.txt","content":"broken\n"}`})
		case req.Contains(`check "state" failed`) && !req.HasToolResult("w2"):
			return llmtest.ToolCalls(llmtest.Call{ID: "w2", Name: "write_file", Args: `{"path":"state.txt","content":"fixed\n"}`})
		}
		return llmtest.Text("Wrote state.txt.")
	})
}

// TestRunChecksInTheLog: the run log shows each check with its output and
// the end line says the checks passed; the user's file is not written and
// no scratch copy is left.
func TestRunChecksInTheLog(t *testing.T) {
	t.Parallel()
	srv := writeState(t)
	var cacheDir string
	r := runScript(t, "run_checks.lua", options{env: modelEnv(srv), files: map[string]string{"notes.txt": "notes\n"},
		setup: func(ws, dir string) { cacheDir = filepath.Join(dir, "cache") }})
	if got := r.str(t, "status"); got != "finished" {
		t.Fatalf("status %q", got)
	}
	var log []string
	r.fact(t, "log", &log)
	joined := strings.Join(log, "\n")
	for _, want := range []string{"  ✗ check state failed: exit code 1 (", "    │ not fixed yet", "  ✓ check state passed (", "finished · checks passed (state)"} {
		if !strings.Contains(joined, want) {
			t.Fatalf("run log lacks %q:\n%s", want, joined)
		}
	}
	var checks []map[string]any
	r.fact(t, "checks", &checks)
	if len(checks) != 1 || checks[0]["name"] != "state" || checks[0]["passed"] != true {
		t.Fatalf("run checks %v", checks)
	}
	if got := r.str(t, "disk_state"); got != "" {
		t.Fatalf("state.txt was written: %q", got)
	}
	said := false
	for _, n := range r.Notifications {
		said = said || strings.Contains(n.Msg, "checks passed (state)")
	}
	if !said {
		t.Fatalf("no message says the checks passed: %+v", r.Notifications)
	}
	// The server deletes views in the background and waits for that
	// before it exits, which may be after Neovim has.
	views := filepath.Join(cacheDir, "agentls", "views")
	left, _ := os.ReadDir(views)
	for end := time.Now().Add(10 * time.Second); len(left) != 0 && time.Now().Before(end); left, _ = os.ReadDir(views) {
		time.Sleep(50 * time.Millisecond)
	}
	if len(left) != 0 {
		t.Fatalf("proposal views left: %v", left)
	}
}

// TestRunChecksFailedMessage: a check still failing at the end is a
// warning that points at the log.
func TestRunChecksFailedMessage(t *testing.T) {
	t.Parallel()
	srv := writeState(t)
	env := modelEnv(srv)
	env["AGENTLS_TEST_ROUNDS"] = "0"
	r := runScript(t, "run_checks.lua", options{env: env, files: map[string]string{"notes.txt": "notes\n"}})
	var log []string
	r.fact(t, "log", &log)
	if joined := strings.Join(log, "\n"); !strings.Contains(joined, "finished · checks failed: state") || !strings.Contains(joined, "    │ not fixed yet") {
		t.Fatalf("run log:\n%s", joined)
	}
	warned := false
	for _, n := range r.Notifications {
		warned = warned || (strings.Contains(n.Msg, "checks failed: state (:AgentLog shows their output)") && n.Level == 3)
	}
	if !warned {
		t.Fatalf("no warning about the failed check: %+v", r.Notifications)
	}
}

// TestRunCheckThatCannotRunInTheLog: a check whose command is not
// installed shows as could not run (the shell's line, the PATH hint), not
// as failed, and the end message warns.
func TestRunCheckThatCannotRunInTheLog(t *testing.T) {
	t.Parallel()
	srv := writeState(t)
	env := modelEnv(srv)
	env["AGENTLS_TEST_CHECK"] = "definitely-not-installed-xyz --run"
	r := runScript(t, "run_checks.lua", options{env: env, files: map[string]string{"notes.txt": "notes\n"}})
	var log []string
	r.fact(t, "log", &log)
	joined := strings.Join(log, "\n")
	for _, want := range []string{"  ⚠ check state could not run: sh: 1: definitely-not-installed-xyz: not found\n    │ Not installed, or not on the PATH", "finished · could not run: state"} {
		if !strings.Contains(joined, want) {
			t.Fatalf("run log lacks %q:\n%s", want, joined)
		}
	}
	if strings.Contains(joined, "failed") {
		t.Fatalf("run log says failed:\n%s", joined)
	}
	warned := false
	for _, n := range r.Notifications {
		warned = warned || (strings.Contains(n.Msg, "could not run: state") && n.Level == 3)
	}
	if !warned {
		t.Fatalf("no warning about the check that could not run: %+v", r.Notifications)
	}
	if n := len(srv.Requests()); n != 2 {
		t.Fatalf("%d model calls: the check went back to the model", n)
	}
}
