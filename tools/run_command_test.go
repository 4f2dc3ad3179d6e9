package tools

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentls/agentls/internal/testwait"
)

// fakeApprover answers with fixed decisions and records the requests.
type fakeApprover struct {
	mu       sync.Mutex
	decision Decision
	err      error
	asked    []ApprovalRequest
}

func (a *fakeApprover) Approve(_ context.Context, req ApprovalRequest) (Decision, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.asked = append(a.asked, req)
	return a.decision, a.err
}

func (a *fakeApprover) count() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return len(a.asked)
}

func runCmd(t *testing.T, ctx context.Context, env *Env, args map[string]any) (Result, error) {
	t.Helper()
	raw, _ := json.Marshal(args)
	return RunCommand().Call(ctx, env, raw)
}

func TestRunCommandApproval(t *testing.T) {
	root := newWorkspace(t, nil)
	env := newEnv(t, root, Policy{RunCommand: "ask"})
	res, _ := runCmd(t, context.Background(), env, map[string]any{"command": "touch ran"})
	mustErr(t, res, "approval", "not run")
	if _, err := os.Stat(filepath.Join(root, "ran")); err == nil {
		t.Fatal("ran without an approver")
	}

	deny := &fakeApprover{decision: Deny}
	env.Approver = deny
	res, _ = runCmd(t, context.Background(), env, map[string]any{"command": "touch ran"})
	mustErr(t, res, "denied")
	if deny.count() != 1 || deny.asked[0].Tool != "run_command" || deny.asked[0].Summary != "touch ran" {
		t.Fatalf("approval request %+v", deny.asked)
	}

	broken := &fakeApprover{err: errors.New("client went away")}
	env.Approver = broken
	res, _ = runCmd(t, context.Background(), env, map[string]any{"command": "touch ran"})
	mustErr(t, res, "could not ask", "client went away")

	once := &fakeApprover{decision: AllowOnce}
	env.Approver = once
	for range 2 {
		res, _ = runCmd(t, context.Background(), env, map[string]any{"command": "echo hi"})
		if got := mustOK(t, res); !strings.HasPrefix(got, "hi\nexit code 0") {
			t.Fatalf("got %q", got)
		}
	}
	if once.count() != 2 {
		t.Fatalf("allow once must ask every time: %d", once.count())
	}

	always := &fakeApprover{decision: AllowAlways}
	env.Approver = always
	for range 3 {
		res, _ = runCmd(t, context.Background(), env, map[string]any{"command": "true"})
		mustOK(t, res)
	}
	if always.count() != 1 {
		t.Fatalf("allow always must be remembered for the Env: asked %d times", always.count())
	}
	other := newEnv(t, root, Policy{RunCommand: "ask"})
	other.Approver = always
	res, _ = runCmd(t, context.Background(), other, map[string]any{"command": "true"})
	mustOK(t, res)
	if always.count() != 2 {
		t.Fatal("the answer is per Env: another run must ask again")
	}
}

func TestRunCommandBehaviour(t *testing.T) {
	root := newWorkspace(t, map[string]string{"marker.txt": "here\n"})
	env := newEnv(t, root, Policy{RunCommand: "ask"})
	env.Approver = &fakeApprover{decision: AllowAlways}

	// Runs in the workspace root, stdin is empty, combined output, exit code.
	res, err := runCmd(t, context.Background(), env, map[string]any{"command": "cat marker.txt; cat; echo err >&2; exit 3"})
	if err != nil {
		t.Fatal(err)
	}
	got := mustOK(t, res)
	if !strings.HasPrefix(got, "here\nerr\nexit code 3") {
		t.Fatalf("got %q", got)
	}

	// Output is cut to head + tail with a marker.
	res, _ = runCmd(t, context.Background(), env, map[string]any{"command": "seq 1 100000"})
	got = mustOK(t, res)
	if len(got) > cmdHeadBytes+cmdTailBytes+200 || !strings.Contains(got, "omitted") || !strings.HasPrefix(got, "1\n2\n") || !strings.Contains(got, "\n100000\nexit code 0") {
		t.Fatalf("truncation: %d bytes, head %q tail %q", len(got), got[:20], got[len(got)-40:])
	}
	res, _ = runCmd(t, context.Background(), env, map[string]any{"command": "seq 1 5000 | sed 's/.*/x/'"})
	if got = mustOK(t, res); !strings.Contains(got, "lines omitted") || strings.Count(got, "\n") > cmdMaxLines+3 {
		t.Fatalf("line cap: %d lines", strings.Count(got, "\n"))
	}

	// Timeout kills the whole process group, background children included.
	pidFile := filepath.Join(root, "child.pid")
	start := time.Now()
	res, _ = runCmd(t, context.Background(), env, map[string]any{"command": "sleep 60 & echo $! > child.pid; echo started; wait", "timeout_seconds": 1})
	mustErr(t, res, "timed out after 1s", "started")
	if time.Since(start) > 30*time.Second {
		t.Fatalf("timeout not enforced: %v", time.Since(start))
	}
	testwait.ProcessGone(t, pidFile)

	// Cancelling the run's context stops the command and is a Go error.
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := runCmd(t, ctx, env, map[string]any{"command": "sleep 60 & echo $! > child2.pid; wait"})
		done <- err
	}()
	testwait.File(t, filepath.Join(root, "child2.pid"))
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("cancel: %v", err)
	}
	testwait.ProcessGone(t, filepath.Join(root, "child2.pid"))
}

// The shell gets the same environment allowlist as MCP servers: the
// model's API key (or any other secret in agentls's environment) must not
// reach a command the model wrote, while PATH and HOME still do.
func TestRunCommandEnvironmentAllowlist(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "sk-test-secret-key-0123456789")
	t.Setenv("AGENTLS_TEST_PRIVATE", "private-value")
	t.Setenv("LC_TESTLOCALE", "kept")
	root := newWorkspace(t, nil)
	env := newEnv(t, root, Policy{RunCommand: "ask"})
	env.Approver = &fakeApprover{decision: AllowAlways}
	res, err := runCmd(t, context.Background(), env, map[string]any{"command": "env"})
	if err != nil {
		t.Fatal(err)
	}
	got := mustOK(t, res)
	for _, leaked := range []string{"OPENAI_API_KEY", "sk-test-secret-key", "AGENTLS_TEST_PRIVATE"} {
		if strings.Contains(got, leaked) {
			t.Fatalf("run_command environment contains %s:\n%s", leaked, got)
		}
	}
	for _, kept := range []string{"PATH=", "HOME=", "LC_TESTLOCALE=kept"} {
		if !strings.Contains(got, kept) {
			t.Fatalf("run_command environment lacks %s:\n%s", kept, got)
		}
	}
}
