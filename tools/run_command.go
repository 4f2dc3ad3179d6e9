package tools

import (
	"bytes"
	"context"
	_ "embed"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"
)

//go:embed descriptions/run_command.md
var runCommandDescription string

// Bounds of run_command.
const (
	cmdDefaultTimeout = 120 * time.Second // without Policy.CommandTimeout
	cmdMaxLines       = 2000
	cmdHeadBytes      = 10 << 10 // output kept from the start
	cmdTailBytes      = 40 << 10 // and from the end (errors are usually last)
)

type runCommandParams struct {
	Command        string `json:"command" jsonschema:"shell command"`
	TimeoutSeconds *int   `json:"timeout_seconds,omitempty" jsonschema:"default and maximum: the user's limit (120 unless configured)"`
}

// RunCommand is the run_command tool. It is registered only when the user
// sets tools.runCommand to "ask" (see Builtins), and every call is approved
// by the user through env.Approver.
func RunCommand() Tool {
	return New("run_command", runCommandDescription, false, runCommand)
}

func runCommand(ctx context.Context, env *Env, p runCommandParams) (Result, error) {
	if strings.TrimSpace(p.Command) == "" {
		return Errorf("command is empty"), nil
	}
	limit := env.Policy.CommandTimeout
	if limit <= 0 {
		limit = cmdDefaultTimeout
	}
	timeout := limit
	if p.TimeoutSeconds != nil && *p.TimeoutSeconds > 0 {
		timeout = min(time.Duration(*p.TimeoutSeconds)*time.Second, limit)
	}
	folders := env.View.Folders()
	if len(folders) == 0 {
		return Errorf("no workspace folder is open, so there is nowhere to run the command"), nil
	}
	if ok, res, err := env.approve(ctx, "run_command", p.Command); !ok {
		return res, err
	}
	cctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(cctx, "sh", "-c", p.Command)
	cmd.Dir = folders[0]
	// The same allowlist as MCP servers: the model's API key and other
	// secrets in agentls's environment never reach a command the model wrote.
	cmd.Env = ChildEnv(os.Environ(), nil)
	cmd.Stdin = nil // /dev/null
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	// Kill the whole process group: sh's children too, or a background
	// process would outlive the run and hold the output pipe open.
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 2 * time.Second
	out := &headTail{}
	cmd.Stdout, cmd.Stderr = out, out
	start := time.Now()
	err := cmd.Run()
	took := time.Since(start).Round(time.Millisecond)
	if cmd.Process != nil {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) // leftovers after sh exited
	}
	text := out.String()
	switch {
	case ctx.Err() != nil:
		return Result{}, ctx.Err()
	case errors.Is(cctx.Err(), context.DeadlineExceeded):
		hint := "try a narrower command or a larger timeout_seconds"
		if timeout == limit {
			hint = "that is the user's limit (tools.commandTimeoutSeconds); try a narrower or faster command"
		}
		return Errorf("command timed out after %v and was killed (with its child processes); %s\n%s", timeout, hint, text), nil
	}
	code := 0
	var exitErr *exec.ExitError
	switch {
	case errors.As(err, &exitErr):
		code = exitErr.ExitCode()
	case err != nil:
		return Errorf("could not run the command: %v", err), nil
	}
	if text == "" {
		text = "(no output)\n"
	}
	return Result{Text: fmt.Sprintf("%sexit code %d (%v)", text, code, took), Summary: fmt.Sprintf("ran %q: exit %d", oneLine(p.Command), code)}, nil
}

// approve asks the user (once per tool when they answer "always").
func (env *Env) approve(ctx context.Context, tool, summary string) (bool, Result, error) {
	if env.approvals.allowed(tool) {
		return true, Result{}, nil
	}
	if env.Approver == nil {
		return false, Errorf("%s needs the user's approval and there is no way to ask in this session; the command was not run", tool), nil
	}
	d, err := env.Approver.Approve(ctx, ApprovalRequest{Tool: tool, Summary: summary})
	if err != nil {
		if ctx.Err() != nil {
			return false, Result{}, ctx.Err()
		}
		return false, Errorf("could not ask the user to approve %s (%v); the command was not run", tool, err), nil
	}
	switch d {
	case AllowAlways:
		env.approvals.remember(tool)
		return true, Result{}, nil
	case AllowOnce:
		return true, Result{}, nil
	}
	return false, Errorf("the user denied running this command; do not retry it, continue without it or ask the user"), nil
}

func oneLine(s string) string {
	s = strings.ReplaceAll(s, "\n", " ")
	if len(s) > 80 {
		cut := 80
		for cut > 0 && !runeStart(s[cut]) {
			cut--
		}
		s = s[:cut] + "…"
	}
	return s
}

// headTail keeps the first cmdHeadBytes and the last cmdTailBytes written
// to it. The tail is compacted only when it doubles, so a command printing
// gigabytes costs amortised constant work per byte.
type headTail struct {
	head, tail []byte
	total      int
}

func (h *headTail) Write(p []byte) (int, error) {
	n := len(p)
	h.total += n
	if room := cmdHeadBytes - len(h.head); room > 0 {
		k := min(room, len(p))
		h.head = append(h.head, p[:k]...)
		p = p[k:]
	}
	h.tail = append(h.tail, p...)
	if len(h.tail) > 2*cmdTailBytes {
		h.tail = append(h.tail[:0], h.tail[len(h.tail)-cmdTailBytes:]...)
	}
	return n, nil
}

// String returns the kept output, valid UTF-8, at most cmdMaxLines lines,
// with a marker where output was dropped.
func (h *headTail) String() string {
	var b bytes.Buffer
	b.Write(h.head)
	tail := h.tail[max(0, len(h.tail)-cmdTailBytes):]
	if dropped := h.total - len(h.head) - len(tail); dropped > 0 {
		fmt.Fprintf(&b, "\n[... %d bytes of output omitted ...]\n", dropped)
	}
	b.Write(tail)
	s := strings.ToValidUTF8(b.String(), "\uFFFD")
	if lines := strings.Split(s, "\n"); len(lines) > cmdMaxLines {
		keep := cmdMaxLines / 2
		s = strings.Join(lines[:keep], "\n") + fmt.Sprintf("\n[... %d lines omitted ...]\n", len(lines)-2*keep) + strings.Join(lines[len(lines)-keep:], "\n")
	}
	if s != "" && !strings.HasSuffix(s, "\n") {
		s += "\n"
	}
	return s
}
