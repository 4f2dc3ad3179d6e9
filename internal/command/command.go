// Package command runs the shell commands agentls starts on the user's
// behalf (run_command, checks) the one way they are all run: sh -c in a
// given directory, with a given environment, stdin from /dev/null, started
// and ended by internal/childproc (its own process group, stopped whole on
// timeout or cancellation, so a background child neither outlives the
// command nor holds its output open), and with its output bounded while it
// is produced, so a command printing gigabytes costs constant memory.
package command

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"time"

	"github.com/agentls/agentls/internal/childproc"
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
	// Wrap, when set, rewrites the command before it starts (its path,
	// arguments, directory, namespace attributes): internal/overlay's
	// Layers.Wrap runs it in an overlay view. An error is a command that
	// could not run.
	Wrap func(*exec.Cmd) error
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

// Run runs spec and waits for it. It returns an error when the command
// could not be started, or ctx's error when ctx ended first (the process
// group is stopped either way; Result then holds what was captured).
func Run(ctx context.Context, spec Spec) (Result, error) {
	cctx, cancel := ctx, context.CancelFunc(func() {})
	if spec.Timeout > 0 {
		cctx, cancel = context.WithTimeout(ctx, spec.Timeout)
	}
	defer cancel()
	cmd := exec.Command("sh", "-c", spec.Command)
	cmd.Dir = spec.Dir
	cmd.Env = spec.Env
	if cmd.Env == nil {
		cmd.Env = []string{} // nil would inherit agentls's environment
	}
	cmd.Stdin = nil // /dev/null
	if spec.Wrap != nil {
		if err := spec.Wrap(cmd); err != nil {
			return Result{ExitCode: -1}, fmt.Errorf("could not run the command: %w", err)
		}
	}
	out := NewBuffer(spec.Output)
	cmd.Stdout, cmd.Stderr = out, out
	start := time.Now()
	res := Result{ExitCode: -1}
	g, err := childproc.StartCmd(cmd)
	if err != nil {
		return res, fmt.Errorf("could not run the command: %w", err)
	}
	select {
	case <-g.Exited():
	case <-cctx.Done():
		g.Stop()
	}
	err = g.Err()
	res.Duration = time.Since(start)
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
		// A descendant that left the group held the output open.
		res.ExitCode = g.ProcessState().ExitCode()
	default:
		return res, fmt.Errorf("could not run the command: %w", err)
	}
	return res, nil
}
