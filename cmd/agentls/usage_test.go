package main

import (
	"strings"
	"testing"

	"github.com/agentls/agentls/agent/llm/llmtest"
)

// agentls run ends with one line of usage: tokens in (cached) / out, the
// model, and the cost when model.pricing is set; --model picks the model
// and --continue keeps it.
func TestRunPrintsUsageAndKeepsModel(t *testing.T) {
	srv := llmtest.New(t, llmtest.Always(llmtest.Text("hello").CachedUsage(12345, 2000, 67)))
	cliEnv(t, srv)
	ws := t.TempDir()
	code, _, stderr := runCLI(t, "--dir", ws, "--model", "picked-model", "hi")
	if code != 0 {
		t.Fatalf("code %d: %s", code, stderr)
	}
	lines := strings.Split(strings.TrimSpace(stderr), "\n")
	if got := lines[len(lines)-1]; got != "agentls: 12,345 tokens in (2,000 cached) / 67 out · picked-model" {
		t.Fatalf("last line %q", got)
	}
	code, _, stderr = runCLI(t, "--dir", ws, "--continue", "again")
	if code != 0 {
		t.Fatalf("code %d: %s", code, stderr)
	}
	reqs := srv.Requests()
	if got := reqs[len(reqs)-1].Model; got != "picked-model" {
		t.Fatalf("--continue used model %q, want the session's picked-model", got)
	}
	if !strings.HasSuffix(strings.TrimSpace(stderr), "· picked-model") {
		t.Fatalf("usage line of the follow-up: %q", stderr)
	}
}
