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
	"github.com/agentls/agentls/internal/text"
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
	// NotRun says the check could not run at all: no proposal view, or
	// its command is not installed or not executable (couldNotRun). The
	// model cannot fix that, so it is reported, never sent back, and it
	// is neither passed nor failed; Output then starts "could not run: ".
	NotRun bool `json:"-"`
	// InView says it ran in the proposal view (else in the workspace).
	InView bool `json:"-"`
	// View is the kind of proposal view it ran in: "overlay" or "copy";
	// "" in the workspace or when it did not run.
	View string `json:"view,omitempty"`
}

// Where says where the check ran ("ran in an overlay view of the
// workspace …", "ran in a copy …", "ran in the workspace folder").
func (r CheckResult) Where() string { return whereOf(r.InView, r.View) }

// Unpassed names the checks that failed and, apart, those that could not
// run (which neither passed nor failed): what every face tells the user
// and what decides whether a run's changes may be written.
func Unpassed(cs []CheckResult) (failing, notRun []string) {
	for _, c := range cs {
		switch {
		case c.NotRun:
			notRun = append(notRun, c.Name)
		case !c.Passed:
			failing = append(failing, c.Name)
		}
	}
	return failing, notRun
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
		rel, base := env.Rel(abs), filepath.Base(abs)
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
	place, err := env.CommandPlace(ctx)
	if err != nil {
		if ctx.Err() != nil {
			return res, ctx.Err()
		}
		res.NotRun, res.Output = true, fmt.Sprintf("could not run: %v\n", err)
		return res, nil
	}
	if !place.InView && env.buffersOpen(place.Dir) {
		// Nothing staged (apply mode: the changes went to the editor) but
		// the editor has buffers open: the run's changes may sit there
		// unsaved, and a check of the disk would judge the old text. The
		// proposal view writes the buffers over the files; without one,
		// the check runs on the disk as before.
		if pl, err := env.Proposal.Enter(ctx); err == nil {
			place = pl
		} else if ctx.Err() != nil {
			return res, ctx.Err()
		}
	}
	defer place.Done()
	res.InView, res.View = place.InView, place.View
	out, err := command.Run(ctx, command.Spec{
		Command: c.Command,
		Dir:     place.Dir,
		Wrap:    place.Wrap,
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
		res.NotRun, res.Output = true, fmt.Sprintf("could not run: %v\n", err)
	case out.TimedOut:
		res.Output += fmt.Sprintf("[killed after %v with its child processes: the check took longer than its timeoutSeconds]\n", timeout)
	case couldNotStart(out.ExitCode, out.Output) != "":
		res.NotRun, res.ExitCode = true, out.ExitCode
		res.Output = notRunReport(out.ExitCode, couldNotStart(out.ExitCode, out.Output), out.Output, childPath())
	default:
		res.ExitCode = out.ExitCode
		res.Passed = out.ExitCode == 0
	}
	return res, nil
}

// couldNotStart returns the shell's own complaint when a check's command
// never started: sh exits 127 when it cannot find a command and 126 when
// it cannot execute one, and says so on a line of its own ("sh: 1: go:
// not found", bash's "sh: line 1: go: command not found", "sh: 1:
// ./t.sh: Permission denied"). Both the status and the line are needed:
// a test suite may exit 127 itself, and its failure is the model's to fix.
// A line from a nested script ("./run.sh: line 3: go: not found") also
// counts when the status is the shell's: the tool is missing all the same.
func couldNotStart(exitCode int, output string) string {
	if exitCode != 126 && exitCode != 127 {
		return ""
	}
	lines := strings.Split(strings.TrimRight(output, "\n"), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		l := strings.TrimSpace(lines[i])
		for _, says := range []string{"not found", "No such file or directory", "Permission denied", "cannot execute", "Is a directory", "Exec format error"} {
			if strings.Contains(l, says) && strings.Contains(l, ": ") {
				return l
			}
		}
	}
	return ""
}

// notRunReport is a could-not-run check's output: the shell's line
// (control characters escaped, so it stays one line in every client), a
// hint at the usual cause, then the whole of what the command printed
// when that was more than the line.
// Editors started from a desktop launcher, and code-server's extension
// host, often run agentls without the PATH of the user's shell, so the
// hint names the PATH the check had.
func notRunReport(exitCode int, line, output, path string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "could not run: %s\n", escapeLine(text.Clip(line, 300)))
	if exitCode == 127 {
		fmt.Fprintf(&b, "Not installed, or not on the PATH the check ran with (PATH=%s): an editor started from a launcher may lack your shell's PATH. Install the tool, start the editor from a shell, or give the command's full path in the check.\n", text.Clip(path, 400))
	} else {
		b.WriteString("Not executable: make it so (chmod +x), or run it through its interpreter (\"sh ./script\").\n")
	}
	if rest := strings.TrimSpace(output); rest != "" && rest != line {
		fmt.Fprintf(&b, "output:\n%s", output)
	}
	return b.String()
}

// escapeLine writes s's control characters as \xNN: a file name in the
// shell's complaint may hold any byte, and the line goes into one-line
// messages (showMessage, progress, the CLI's stderr).
func escapeLine(s string) string {
	var b strings.Builder
	for _, r := range s {
		if r < 0x20 || r == 0x7f {
			fmt.Fprintf(&b, "\\x%02x", r)
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// childPath is the PATH a check runs with (ChildEnv keeps agentls's own).
func childPath() string {
	for _, kv := range ChildEnv(os.Environ(), nil) {
		if v, ok := strings.CutPrefix(kv, "PATH="); ok {
			return v
		}
	}
	return "(unset)"
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
