// Package command runs the shell commands agentls starts on the user's
// behalf (run_command, checks) the one way they are all run: sh -c in a
// given directory, with a given environment, stdin from /dev/null, in a
// process group of its own that is killed whole on timeout or
// cancellation (a background child must not outlive the command or hold
// its output open), and with its output bounded while it is produced, so a
// command printing gigabytes costs constant memory.
package command

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"syscall"
	"time"
)

// Spec is one command to run.
type Spec struct {
	// Command is the shell command line (sh -c).
	Command string
	// Dir is the working directory.
	Dir string
	// Env is the whole environment of the command (nothing is inherited).
	Env []string
	// Timeout bounds the command; 0 leaves it to ctx.
	Timeout time.Duration
	// Output bounds what is kept of stdout and stderr (interleaved as
	// written).
	Output Bounds
}

// Result is how a command ended.
type Result struct {
	// ExitCode is the command's exit status; -1 when it did not exit by
	// itself (killed on timeout or by a signal).
	ExitCode int
	// TimedOut reports that Spec.Timeout killed it.
	TimedOut bool
	// Duration is the wall time from start to the end of its output.
	Duration time.Duration
	// Output is what Spec.Output kept, valid UTF-8 without terminal escape
	// sequences, with a marker where output was dropped.
	Output string
	// Bytes is how much output the command wrote in all.
	Bytes int64
}

// waitDelay bounds the wait for the output pipes after the shell is gone:
// a process that left the group (setsid) and kept them open is not waited
// for longer.
const waitDelay = time.Second

// Run runs spec and waits for it. It returns an error when the command
// could not be started, or ctx's error when ctx ended first (the process
// group is killed either way; Result then holds what was captured).
func Run(ctx context.Context, spec Spec) (Result, error) {
	cctx, cancel := ctx, context.CancelFunc(func() {})
	if spec.Timeout > 0 {
		cctx, cancel = context.WithTimeout(ctx, spec.Timeout)
	}
	defer cancel()
	cmd := exec.CommandContext(cctx, "sh", "-c", spec.Command)
	cmd.Dir = spec.Dir
	cmd.Env = spec.Env
	if cmd.Env == nil {
		cmd.Env = []string{} // nil would inherit agentls's environment
	}
	cmd.Stdin = nil // /dev/null
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = waitDelay
	out := NewBuffer(spec.Output)
	cmd.Stdout, cmd.Stderr = out, out
	start := time.Now()
	err := cmd.Run()
	res := Result{ExitCode: -1, Duration: time.Since(start)}
	if cmd.Process != nil {
		// Leftovers of a shell that exited on its own (a background job).
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
	res.Output, res.Bytes = out.String(), out.Total()
	if ctx.Err() != nil {
		return res, ctx.Err()
	}
	if errors.Is(cctx.Err(), context.DeadlineExceeded) {
		res.TimedOut = true
		return res, nil
	}
	var exitErr *exec.ExitError
	switch {
	case err == nil:
		res.ExitCode = 0
	case errors.As(err, &exitErr):
		res.ExitCode = exitErr.ExitCode() // -1 when a signal ended it
	case errors.Is(err, exec.ErrWaitDelay):
		res.ExitCode = cmd.ProcessState.ExitCode()
	default:
		return res, fmt.Errorf("could not run the command: %w", err)
	}
	return res, nil
}
