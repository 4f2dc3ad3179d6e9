package lifetime

import (
	"context"
	"log/slog"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/agentls/agentls/internal/testwait"
)

func TestMain(m *testing.M) { testwait.VerifyTestMain(m) }

// guard bounds waits that must end; it catches hangs and is no timing
// assertion.
const guard = 20 * time.Second

func newGroup(t *testing.T) (*Group, *testwait.Buffer) {
	t.Helper()
	var logs testwait.Buffer
	return New(slog.New(slog.NewTextHandler(&logs, nil))), &logs
}

func TestEnterRefusedAfterClose(t *testing.T) {
	g, _ := newGroup(t)
	leave, ok := g.Enter()
	if !ok {
		t.Fatal("Enter refused before Close")
	}
	leave()
	leave() // a second call must not count twice
	g.Close()
	if _, ok := g.Enter(); ok {
		t.Fatal("Enter accepted after Close")
	}
	if !g.Closing() {
		t.Fatal("Closing is false after Close")
	}
	if g.Context().Err() == nil {
		t.Fatal("Close did not cancel the lifetime context")
	}
	if !g.Wait() {
		t.Fatal("Wait gave up with nothing running")
	}
}

// Stop waits for the handlers first, then for the background goroutines,
// including one a handler started while the server was already exiting.
func TestStopWaitsHandlersThenTheirTasks(t *testing.T) {
	g, _ := newGroup(t)
	leave, _ := g.Enter()
	stopped := make(chan bool)
	go func() { stopped <- g.Stop() }()
	for !g.Closing() {
		time.Sleep(time.Millisecond)
	}
	release := make(chan struct{})
	ended := make(chan struct{})
	g.Go("late cleanup", func(ctx context.Context) {
		<-release
		close(ended)
	})
	leave()
	select {
	case <-stopped:
		t.Fatal("Stop returned while a task started by a handler was running")
	case <-time.After(50 * time.Millisecond):
	}
	close(release)
	select {
	case ok := <-stopped:
		if !ok {
			t.Fatal("Stop gave up although everything ended")
		}
	case <-time.After(guard):
		t.Fatal("Stop did not return")
	}
	select {
	case <-ended:
	default:
		t.Fatal("Stop returned before the task ended")
	}
}

func TestWaitGivesUpAfterBound(t *testing.T) {
	g, logs := newGroup(t)
	g.bound = 10 * time.Millisecond
	stuck := make(chan struct{})
	defer close(stuck)
	g.Go("stuck", func(context.Context) { <-stuck }) // ignores cancellation
	if g.Stop() {
		t.Fatal("Stop reported success with a task still running")
	}
	if !strings.Contains(logs.String(), "gave up waiting at exit") || !strings.Contains(logs.String(), "background tasks") {
		t.Fatalf("no give-up log naming the background tasks:\n%s", logs)
	}

	never := make(chan struct{})
	if g.Await("connection", never) {
		t.Fatal("Await reported success for a channel never closed")
	}
	if !strings.Contains(logs.String(), "what=connection") {
		t.Fatalf("no give-up log naming the connection:\n%s", logs)
	}
}

func TestGoRecoversPanic(t *testing.T) {
	g, logs := newGroup(t)
	g.Go("boom", func(context.Context) { panic("kaboom") })
	if !g.Stop() {
		t.Fatal("Stop gave up after a panicking task")
	}
	if s := logs.String(); !strings.Contains(s, "background task panicked") || !strings.Contains(s, "task=boom") || !strings.Contains(s, "kaboom") {
		t.Fatalf("panic not logged with its task:\n%s", s)
	}
}

// A goroutine started while exiting still runs (with the context
// cancelled) and is awaited: cleanup handed to it is not dropped.
func TestGoAfterCloseRunsAndIsAwaited(t *testing.T) {
	g, _ := newGroup(t)
	g.Close()
	ran := make(chan error, 1)
	g.Go("cleanup", func(ctx context.Context) { ran <- ctx.Err() })
	if !g.Wait() {
		t.Fatal("Wait gave up")
	}
	select {
	case err := <-ran:
		if err == nil {
			t.Fatal("the task's context was not cancelled")
		}
	default:
		t.Fatal("Wait returned before the task ran")
	}
}

func TestWaitProcessExit(t *testing.T) {
	// A process that has exited and been reaped is gone.
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), guard)
	defer cancel()
	if !WaitProcessExit(ctx, cmd.Process.Pid, time.Millisecond) {
		t.Fatal("an exited process was not seen gone")
	}

	// This process is alive: the wait ends with its context.
	ctx2, cancel2 := context.WithCancel(context.Background())
	cancel2()
	if WaitProcessExit(ctx2, os.Getpid(), time.Millisecond) {
		t.Fatal("a live process was reported gone")
	}
}
