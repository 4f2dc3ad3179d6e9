package main

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agentls/agentls/agent/llm/llmtest"
	"github.com/agentls/agentls/internal/testwait"
	"github.com/agentls/agentls/lspserver/lsptest"
)

func TestMain(m *testing.M) { os.Exit(lsptest.RunMain(m)) }

// The first signal cancels, the second exits at once.
func TestSignalContext(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		exited := make(chan int, 1)
		exitNow = func(code int) { exited <- code }
		var stderr testwait.Buffer
		ctx, stop := signalContext(context.Background(), &stderr)
		if err := syscall.Kill(os.Getpid(), sig); err != nil {
			t.Fatal(err)
		}
		<-ctx.Done()
		if err := syscall.Kill(os.Getpid(), sig); err != nil {
			t.Fatal(err)
		}
		if code := <-exited; code != 130 {
			t.Fatalf("%v: second signal exited with %d", sig, code)
		}
		stop()
		exitNow = os.Exit
		if s := stderr.String(); !strings.Contains(s, "cancelling the run") || !strings.Contains(s, "exiting without cleanup") {
			t.Fatalf("%v: stderr %q", sig, s)
		}
	}
}

// The built binary, in a workspace holding a FIFO: grep over it must not
// hang (it blocked forever before, and the CLI then ignored SIGINT), and
// SIGINT during the next model call ends the run cleanly with a non-zero
// status and the cancellation reported.
func TestRunSIGINTWithFIFOInWorkspace(t *testing.T) {
	bin := lsptest.BuildBinary(t)
	ws := t.TempDir()
	writeFile(t, filepath.Join(ws, "a.txt"), "needle\n", 0o644)
	if err := syscall.Mkfifo(filepath.Join(ws, "pipe.txt"), 0o644); err != nil {
		t.Fatal(err)
	}
	hang := llmtest.NewHang()
	srv := llmtest.New(t, func(req *llmtest.ChatRequest) llmtest.Reply {
		if !req.HasToolResult("g1") {
			return llmtest.ToolCalls(llmtest.Call{ID: "g1", Name: "grep", Args: `{"pattern":"needle"}`})
		}
		return llmtest.Text("thinking about it").HangAfter(1, hang)
	})
	state := cliEnv(t, srv)
	cmd := exec.Command(bin, "run", "--dir", ws, "find the needle")
	cmd.Env = append(os.Environ(), "XDG_STATE_HOME="+state)
	var stderr testwait.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	waited := make(chan error, 1)
	go func() { waited <- cmd.Wait() }()
	// A hang guard, not a timing assertion: without it a regression would
	// hang the suite instead of failing this test.
	select {
	case <-hang.Started():
	case err := <-waited:
		t.Fatalf("agentls run exited early (%v):\n%s", err, stderr.String())
	case <-time.After(2 * time.Minute):
		_ = cmd.Process.Kill()
		<-waited
		t.Fatalf("the run never reached its second model call (grep hung on the FIFO?):\n%s", stderr.String())
	}
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	err := testwait.Recv(t, waited, "waited")
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 1 {
		t.Fatalf("exit: %v, want status 1\n%s", err, stderr.String())
	}
	if s := stderr.String(); !strings.Contains(s, "cancelling the run") || !strings.Contains(s, "agentls run: cancelled") {
		t.Fatalf("stderr:\n%s", s)
	}
	testwait.Recv(t, hang.Disconnected(), "the model server to see the connection close")
}
