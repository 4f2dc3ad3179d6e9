package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentls/agentls/agent/llm/llmtest"
	"github.com/agentls/agentls/internal/scratch"
	"github.com/agentls/agentls/internal/testtree"
)

// userConfig writes the user's config file (XDG_CONFIG_HOME from cliEnv).
func userConfig(t *testing.T, json string) {
	t.Helper()
	writeFile(t, filepath.Join(os.Getenv("XDG_CONFIG_HOME"), "agentls", "config.json"), json, 0o644)
}

// viewsLeft lists what is left in the proposal views' directory.
func viewsLeft(t *testing.T) []string {
	t.Helper()
	scratch.WaitRemovals() // views are deleted in the background; main waits too
	entries, _ := os.ReadDir(filepath.Join(os.Getenv("XDG_CACHE_HOME"), "agentls", "views"))
	var out []string
	for _, e := range entries {
		out = append(out, e.Name())
	}
	return out
}

// writeTwice stages "broken", answers, then (told the check failed)
// stages "fixed" and answers again.
func writeTwice(t *testing.T) *llmtest.Server {
	return llmtest.New(t, func(req *llmtest.ChatRequest) llmtest.Reply {
		switch req.Turns() {
		case 0:
			return llmtest.ToolCalls(llmtest.Call{ID: "w1", Name: "write_file", Args: `{"path":"state.txt","content":"broken\n"}`})
		case 1:
			return llmtest.Text("Wrote it.")
		case 2:
			if !req.Contains(`check "state" failed (exit code 1`) || !req.Contains("not fixed yet") {
				return llmtest.Text("the check failure did not reach me")
			}
			return llmtest.ToolCalls(llmtest.Call{ID: "w2", Name: "write_file", Args: `{"path":"state.txt","content":"fixed\n"}`})
		}
		return llmtest.Text("Fixed it.")
	})
}

// agentls run prints each check and passes when the last round passes.
func TestRunPrintsChecks(t *testing.T) {
	srv := writeTwice(t)
	cliEnv(t, srv)
	userConfig(t, `{"checks": [{"name": "state", "command": "grep -q fixed state.txt || { echo not fixed yet; exit 1; }"}]}`)
	dir := t.TempDir()
	before := testtree.Take(t, dir)
	code, stdout, stderr := runCLI(t, "--dir", dir, "write state")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	for _, want := range []string{"✗ check state failed (exit code 1) in ", "    not fixed yet", "✓ check state passed in ", "agentls run: checks passed: state", "nothing was written"} {
		if !strings.Contains(stderr, want) {
			t.Fatalf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	if !strings.Contains(stdout, "+fixed") {
		t.Fatalf("stdout:\n%s", stdout)
	}
	testtree.Same(t, before, dir)
	if left := viewsLeft(t); len(left) != 0 {
		t.Fatalf("views left: %v", left)
	}
}

// A check that still fails at the end: exit status 3, and --apply writes
// nothing.
func TestRunFailingCheckExits3AndAppliesNothing(t *testing.T) {
	srv := llmtest.New(t, func(req *llmtest.ChatRequest) llmtest.Reply {
		if req.Turns() == 0 {
			return llmtest.ToolCalls(llmtest.Call{ID: "w1", Name: "write_file", Args: `{"path":"state.txt","content":"broken\n"}`})
		}
		return llmtest.Text("Wrote it.")
	})
	cliEnv(t, srv)
	userConfig(t, `{"checks": [{"name": "state", "command": "echo still broken; exit 4"}], "maxCheckRounds": 0}`)
	dir := t.TempDir()
	before := testtree.Take(t, dir)
	code, _, stderr := runCLI(t, "--dir", dir, "--apply", "write state")
	if code != 3 {
		t.Fatalf("exit %d, want 3\n%s", code, stderr)
	}
	for _, want := range []string{"✗ check state failed (exit code 4) in ", "    still broken", "checks failed: state", "nothing applied because a check still fails"} {
		if !strings.Contains(stderr, want) {
			t.Fatalf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	if len(srv.Requests()) != 2 {
		t.Fatalf("maxCheckRounds 0 still sent the run back: %d model calls", len(srv.Requests()))
	}
	testtree.Same(t, before, dir)
	if left := viewsLeft(t); len(left) != 0 {
		t.Fatalf("views left: %v", left)
	}
}

// A check whose command is not installed: agentls run says it could not
// run (the shell's line, the PATH hint), never "failed", does not send
// the run back, and --apply writes nothing, since the changes are
// unchecked (exit status 3).
func TestRunCheckThatCannotRunIsReportedNotSentBack(t *testing.T) {
	srv := llmtest.New(t, func(req *llmtest.ChatRequest) llmtest.Reply {
		if req.Turns() == 0 {
			return llmtest.ToolCalls(llmtest.Call{ID: "w1", Name: "write_file", Args: `{"path":"state.txt","content":"x\n"}`})
		}
		return llmtest.Text("Wrote it.")
	})
	cliEnv(t, srv)
	userConfig(t, `{"checks": [{"name": "state", "command": "definitely-not-installed-xyz --run"}]}`)
	dir := t.TempDir()
	before := testtree.Take(t, dir)
	code, _, stderr := runCLI(t, "--dir", dir, "--apply", "write state")
	if code != 3 {
		t.Fatalf("exit %d, want 3\n%s", code, stderr)
	}
	for _, want := range []string{"⚠ check state could not run: sh: 1: definitely-not-installed-xyz: not found\n", "    Not installed, or not on the PATH the check ran with (PATH=",
		"agentls run: checks could not run: state", "nothing applied because a check could not run"} {
		if !strings.Contains(stderr, want) {
			t.Fatalf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	if strings.Contains(stderr, "failed") {
		t.Fatalf("a check that could not run reported as failed:\n%s", stderr)
	}
	if len(srv.Requests()) != 2 {
		t.Fatalf("the check went back to the model: %d model calls", len(srv.Requests()))
	}
	testtree.Same(t, before, dir)
}

// triggerWriter is stderr that creates file once it has seen want: the
// test's way to act the moment agentls prints a line.
type triggerWriter struct {
	strings.Builder
	want, file string
	done       bool
}

func (w *triggerWriter) Write(p []byte) (int, error) {
	n, err := w.Builder.Write(p)
	if !w.done && strings.Contains(w.String(), w.want) {
		w.done = true
		_ = os.WriteFile(w.file, nil, 0o644)
	}
	return n, err
}

// A check says it is running when it starts, not only when it ends: a
// test suite that takes minutes must not look like a hung agentls. The
// check below passes only if its start line was printed while it ran.
func TestRunPrintsCheckStart(t *testing.T) {
	srv := llmtest.New(t, llmtest.Sequence(
		llmtest.ToolCalls(llmtest.Call{ID: "w1", Name: "write_file", Args: `{"path":"state.txt","content":"x\n"}`}),
		llmtest.Text("Wrote it."),
	))
	cliEnv(t, srv)
	marker := filepath.Join(t.TempDir(), "seen")
	userConfig(t, `{"checks": [{"name": "slow", "command": "for i in $(seq 200); do [ -f '`+marker+`' ] && exit 0; sleep 0.05; done; echo never announced; exit 1"}]}`)
	dir := t.TempDir()
	w := &triggerWriter{want: "→ check slow: for i in", file: marker}
	var out strings.Builder
	code := runMain([]string{"--dir", dir, "write state"}, strings.NewReader(""), &out, w)
	if code != 0 || !strings.Contains(w.String(), "✓ check slow passed") {
		t.Fatalf("exit %d; the check's start was not printed while it ran:\n%s", code, w.String())
	}
}
