package agent

import (
	"context"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/agentls/agentls/agent/config"
	"github.com/agentls/agentls/agent/llm"
	"github.com/agentls/agentls/internal/workspace"
)

// hostedRun prepares a run over a fresh workspace whose model runs script
// (past its end it answers "done").
func hostedRun(t *testing.T, m Model) (*SessionRun, string) {
	t.Helper()
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	dir := t.TempDir()
	r, err := NewSession("").Prepare(context.Background(), Setup{Config: config.Defaults(), View: workspace.New(workspace.Options{Folders: []string{dir}}),
		TranscriptDir: NoTranscript, Model: m}, RunRequest{RunID: "run-h", Prompt: "task"})
	if err != nil {
		t.Fatal(err)
	}
	return r, dir
}

// steps records the order of Host's steps as the face sees them.
type steps struct {
	mu  sync.Mutex
	log []string
}

func (s *steps) add(step string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.log = append(s.log, step)
}

func (s *steps) all() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.log)
}

// Host waits for the MCP servers within mcp.startupTimeoutSeconds, then
// executes, gives the slot back and returns the outcome with the files
// the run left staged.
func TestHostRunsTheSteps(t *testing.T) {
	var st steps
	m := script(
		calls(call("w1", "write_file", `{"path":"a.txt","content":"hello\n"}`)),
		func(d func(llm.Delta)) llm.Response { return reply(d, "wrote a.txt") })
	r, dir := hostedRun(t, &fakeModel{step: func(ctx context.Context, n int, req llm.Request, d func(llm.Delta)) (llm.Response, error) {
		st.add("model")
		return m.step(ctx, n, req, d)
	}})
	var slots RunSlots
	cfg := config.Defaults()
	cfg.MaxConcurrentRuns = 1
	cfg.MCP.StartupTimeoutSeconds = 7
	end := Host(context.Background(), r, Seating{Slots: &slots, Config: cfg,
		Queued: func(int) { st.add("queued") },
		AwaitMCP: func(_ context.Context, bound time.Duration) {
			if bound != 7*time.Second {
				t.Errorf("MCP wait bound %v, want mcp.startupTimeoutSeconds (7s)", bound)
			}
			st.add("mcp")
		}}, func() { st.add("running") })
	if got, want := st.all(), []string{"mcp", "running", "model", "model"}; !slices.Equal(got, want) {
		t.Errorf("steps %q, want %q", got, want)
	}
	if !end.Executed || end.Status != StatusFinished || end.FinalAnswer() != "wrote a.txt" || end.RunID != "run-h" {
		t.Errorf("hosted %+v, want run-h finished with its answer", end)
	}
	if want := []string{filepath.Join(dir, "a.txt")}; !slices.Equal(end.Pending, want) {
		t.Errorf("pending %q, want %q", end.Pending, want)
	}
	// The slot is free again: a limit of one lets the next run in at once.
	free, cancelWait := context.WithCancel(context.Background())
	defer cancelWait()
	release, err := slots.Acquire(free, 1, func(int) { t.Error("the slot was not given back"); cancelWait() })
	if err != nil {
		t.Fatal(err)
	}
	release()
}

// A run cancelled while it waits for its slot ends cancelled: it neither
// waits for the MCP servers nor executes, and holds no slot.
func TestHostCancelledWhileQueued(t *testing.T) {
	var st steps
	r, _ := hostedRun(t, &fakeModel{step: func(context.Context, int, llm.Request, func(llm.Delta)) (llm.Response, error) {
		st.add("model")
		return llm.Response{Text: "no"}, nil
	}})
	var slots RunSlots
	hold, err := slots.Acquire(context.Background(), 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cfg := config.Defaults()
	cfg.MaxConcurrentRuns = 1
	end := Host(ctx, r, Seating{Slots: &slots, Config: cfg,
		Queued: func(running int) {
			st.add("queued")
			if running != 1 {
				t.Errorf("queued behind %d runs, want 1", running)
			}
			cancel()
		},
		AwaitMCP: func(context.Context, time.Duration) { st.add("mcp") }}, func() { st.add("running") })
	if got, want := st.all(), []string{"queued"}; !slices.Equal(got, want) {
		t.Errorf("steps %q, want only %q", got, want)
	}
	if end.Executed || end.Status != StatusCancelled || end.RunID != "run-h" || end.Pending != nil {
		t.Errorf("hosted %+v, want run-h cancelled, not executed, nothing pending", end)
	}
	// The cancelled run took no slot: once the holder leaves, one is free.
	hold()
	free, cancelWait := context.WithCancel(context.Background())
	defer cancelWait()
	release, err := slots.Acquire(free, 1, func(int) { t.Error("the cancelled run holds a slot"); cancelWait() })
	if err != nil {
		t.Fatal(err)
	}
	release()
}

// A failed run gives its slot back too, and a Seat's Release after
// Execute (the face's deferred one) does not free a slot twice.
func TestHostFailedRunReleasesSlot(t *testing.T) {
	r, _ := hostedRun(t, nopModel{})
	var slots RunSlots
	cfg := config.Defaults()
	cfg.MaxConcurrentRuns = 1
	seat, err := Take(context.Background(), Seating{Slots: &slots, Config: cfg})
	if err != nil {
		t.Fatal(err)
	}
	end := seat.Execute(context.Background(), r)
	seat.Release()
	if end.Status != StatusFailed || end.Reason() != "model request failed: not called" {
		t.Errorf("hosted %v %q, want failed with the model's error", end.Status, end.Reason())
	}
	// One slot: the first Acquire gets it; a double release would let the
	// second in as well.
	first, err := slots.Acquire(context.Background(), 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer first()
	ctx, cancel := context.WithCancel(context.Background())
	queued := false
	if _, err := slots.Acquire(ctx, 1, func(int) { queued = true; cancel() }); err == nil || !queued {
		t.Error("a second run got the one slot: the failed run's slot was given back twice")
	}
}
