package tools

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/agentls/agentls/internal/command"
)

// Check is one of the project's own commands (tests, linters, type
// checkers) that the agent runs on its proposal at the end of a run
// (configuration "checks"). Unlike run_command it needs no approval: the
// user configured it (a workspace file's checks need the user's trust).
type Check struct {
	Name    string
	Command string        // sh -c, in the run's command directory
	Timeout time.Duration // 0: DefaultCheckTimeout
	Paths   []string      // run only when a changed file matches one; none: always
}

// DefaultCheckTimeout bounds a check without a timeout of its own.
const DefaultCheckTimeout = 300 * time.Second

// Bounds of a check's output: the tail is kept (failures are reported
// last), so one failing check costs the model at most a few thousand
// tokens.
const (
	checkTailBytes = 16 << 10
	checkMaxLines  = 400
)

// CheckResult is how a check ended. Its JSON is the runEvent "check"
// payload (docs/protocol.md).
type CheckResult struct {
	Name     string  `json:"name"`
	Passed   bool    `json:"passed"`
	ExitCode int     `json:"exitCode"` // -1: did not exit by itself (timeout) or did not run
	Seconds  float64 `json:"seconds"`
	Output   string  `json:"output"` // the tail, ANSI escapes stripped
	// NotRun says the check could not run at all (no proposal view): the
	// model cannot fix that, so it is reported, never sent back.
	NotRun bool `json:"-"`
	// InView says it ran in the proposal view (else in the workspace).
	InView bool `json:"-"`
}

// Applies reports whether the check runs for a run that changed the
// files changed (absolute paths). A pattern with a "/" matches the path
// relative to its workspace folder, one without matches the base name
// ("*.py" is every Python file), as tools.secretPatterns do.
func (c Check) Applies(env *Env, changed []string) bool {
	if len(changed) == 0 {
		return false
	}
	if len(c.Paths) == 0 {
		return true
	}
	for _, abs := range changed {
		rel, base := env.folderRel(abs), filepath.Base(abs)
		for _, p := range c.Paths {
			target := base
			if strings.Contains(p, "/") {
				target = rel
			}
			if ok, _ := doublestar.Match(p, target); ok {
				return true
			}
		}
	}
	return false
}

// RunCheck runs one check where the run's commands run (the proposal view
// while changes are staged, and also while the editor has buffers open in
// the folder: in apply mode the run's changes are there, unsaved) with
// run_command's environment allowlist. A failure to run is a failed
// result; only ctx ending is an error.
func (env *Env) RunCheck(ctx context.Context, c Check) (CheckResult, error) {
	res := CheckResult{Name: c.Name, ExitCode: -1}
	timeout := c.Timeout
	if timeout <= 0 {
		timeout = DefaultCheckTimeout
	}
	dir, inView, err := env.CommandDir(ctx)
	if err != nil {
		if ctx.Err() != nil {
			return res, ctx.Err()
		}
		res.NotRun, res.Output = true, fmt.Sprintf("not run: %v\n", err)
		return res, nil
	}
	if !inView && env.buffersOpen(dir) {
		// Nothing staged (apply mode: the changes went to the editor) but
		// the editor has buffers open: the run's changes may sit there
		// unsaved, and a check of the disk would judge the old text. The
		// proposal view writes the buffers over the files; without one,
		// the check runs on the disk as before.
		if d, err := env.Proposal.Sync(ctx); err == nil {
			dir, inView = d, true
		} else if ctx.Err() != nil {
			return res, ctx.Err()
		}
	}
	res.InView = inView
	out, err := command.Run(ctx, command.Spec{
		Command: c.Command,
		Dir:     dir,
		Env:     ChildEnv(os.Environ(), nil),
		Timeout: timeout,
		Output:  command.Bounds{TailBytes: checkTailBytes, MaxLines: checkMaxLines},
	})
	res.Seconds = float64(out.Duration.Milliseconds()) / 1000
	res.Output = out.Output
	switch {
	case err != nil && ctx.Err() != nil:
		return res, ctx.Err()
	case err != nil:
		res.NotRun, res.Output = true, fmt.Sprintf("not run: %v\n", err)
	case out.TimedOut:
		res.Output += fmt.Sprintf("[killed after %v with its child processes: the check took longer than its timeoutSeconds]\n", timeout)
	default:
		res.ExitCode = out.ExitCode
		res.Passed = out.ExitCode == 0
	}
	return res, nil
}

// buffersOpen reports whether the editor has a buffer open inside folder.
func (env *Env) buffersOpen(folder string) bool {
	if env.Proposal == nil {
		return false
	}
	for _, p := range env.View.OpenPaths() {
		if rel, err := filepath.Rel(folder, p); err == nil && rel != ".." && !strings.HasPrefix(rel, "../") {
			return true
		}
	}
	return false
}
