package agent

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/agentls/agentls/tools"
)

// stuckTool blocks until the test ends, ignoring its context, like a read
// blocked in the kernel (a FIFO, a hung network mount).
func stuckTool(t *testing.T, readOnly bool) (*testTool, <-chan struct{}) {
	release := make(chan struct{})
	entered := make(chan struct{}, 1)
	t.Cleanup(func() { close(release) })
	return &testTool{name: "stuck", readOnly: readOnly, fn: func(context.Context, json.RawMessage) (tools.Result, error) {
		entered <- struct{}{}
		<-release
		return tools.Result{Text: "too late"}, nil
	}}, entered
}

// Cancel during a tool that never returns still ends the run, with a
// terminal event (issue 10: a FIFO read kept the run, its slot and the
// CLI alive after agentls.cancel).
func TestCancelEndsRunWithStuckTool(t *testing.T) {
	for _, readOnly := range []bool{true, false} {
		tool, entered := stuckTool(t, readOnly)
		log := &eventLog{}
		ctx, cancel := context.WithCancel(context.Background())
		go func() { <-entered; cancel() }()
		out := Run(ctx, newOpts(script(calls(call("c1", "stuck", `{}`))), log, tool))
		cancel()
		if out.Status != StatusCancelled {
			t.Fatalf("readOnly=%v: status %v (%v), want cancelled", readOnly, out.Status, out.Err)
		}
		log.check(t, "run1")
	}
}

// The wall clock ends a run whose tool ignores cancellation.
func TestWallClockEndsRunWithStuckTool(t *testing.T) {
	tool, _ := stuckTool(t, true)
	log := &eventLog{}
	opts := newOpts(script(calls(call("c1", "stuck", `{}`))), log, tool)
	opts.Limits.WallClock = 20e6
	out := Run(context.Background(), opts)
	if out.Status != StatusFailed || !errors.Is(out.Err, ErrWallClock) {
		t.Fatalf("status %v err %v, want wall clock", out.Status, out.Err)
	}
	log.check(t, "run1")
}
