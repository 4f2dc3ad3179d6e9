//go:build linux

package agent

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agentls/agentls/agent/llm"
	scripttool "github.com/agentls/agentls/tools/script"
)

// scriptChildren lists the pids of this process's children that are
// script interpreters (the test binary started with the child marker).
func scriptChildren(t *testing.T) []int {
	t.Helper()
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	var out []int
	for _, st := range stats {
		b, err := os.ReadFile(st)
		if err != nil {
			continue // gone meanwhile
		}
		// pid (comm) state ppid …: comm may hold spaces, so cut at the last ')'.
		i := bytes.LastIndexByte(b, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(string(b[i+1:]))
		if len(f) < 2 || f[1] != strconv.Itoa(os.Getpid()) {
			continue
		}
		env, err := os.ReadFile(filepath.Join(filepath.Dir(st), "environ"))
		if err != nil || !bytes.Contains(env, []byte("AGENTLS_SCRIPT_CHILD=")) {
			continue
		}
		pid, _ := strconv.Atoi(filepath.Base(filepath.Dir(st)))
		out = append(out, pid)
	}
	return out
}

// TestCancelParentKillsSubAgentScript: a sub-agent's script that never
// ends runs in its interpreter process; cancelling the parent run kills
// that process (it is gone when Run returns), ends the sub-agent and the
// run as cancelled, and leaves no goroutine behind (TestMain's goleak).
func TestCancelParentKillsSubAgentScript(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	if n := scriptChildren(t); len(n) > 0 {
		t.Fatalf("script interpreters before the test: %v", n)
	}
	args, _ := json.Marshal(map[string]string{"code": "x = 0\nwhile True:\n  x += 1\n"})
	m := &fakeModel{step: func(ctx context.Context, _ int, req llm.Request, d func(llm.Delta)) (llm.Response, error) {
		if isSub(req) {
			return reply(d, "", call("loop", "script", string(args))), nil
		}
		return reply(d, "", call("t1", "task", `{"description":"spin","prompt":"run forever"}`)), nil
	}}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	log := &eventLog{}
	seen := make(chan []int, 1)
	log.hook = func(e Event) {
		if e.Kind != EventToolCall || e.Tool != "script" || e.ParentRunID != "run1" {
			return
		}
		go func() {
			defer cancel()
			for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
				if pids := scriptChildren(t); len(pids) > 0 {
					seen <- pids
					return
				}
			}
			seen <- nil
		}()
	}
	opts := agentOpts(t, m, log, t.TempDir())
	// A program that would run for hours under its step bound; only the
	// cancellation can stop it in time.
	opts.ScriptLimits = scripttool.Limits{Steps: 1 << 40, WallClock: 10 * time.Minute}
	start := time.Now()
	out := Run(ctx, opts)
	took := time.Since(start)
	if out.Status != StatusCancelled {
		t.Fatalf("outcome = %+v", out)
	}
	pids := <-seen
	if len(pids) == 0 {
		t.Fatal("the sub-agent's script never ran in an interpreter process")
	}
	for _, pid := range pids {
		if _, err := os.Stat(fmt.Sprintf("/proc/%d", pid)); err == nil {
			t.Errorf("script interpreter %d still exists after the run was cancelled", pid)
		}
	}
	if left := scriptChildren(t); len(left) > 0 {
		t.Fatalf("script interpreters left: %v", left)
	}
	var subEnd EventKind = -1
	for _, e := range log.all() {
		if e.ParentRunID != "" && (e.Kind == EventCancelled || e.Kind == EventFailed || e.Kind == EventFinished) {
			subEnd = e.Kind
		}
	}
	if subEnd != EventCancelled {
		t.Fatalf("sub-agent ended with %v, want cancelled", subEnd)
	}
	t.Logf("cancelled after %v", took)
}
