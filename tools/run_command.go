package tools

import (
	"context"
	_ "embed"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/agentls/agentls/internal/command"
	"github.com/agentls/agentls/internal/safetext"
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
	if len(env.View.Folders()) == 0 {
		return Errorf("no workspace folder is open, so there is nowhere to run the command"), nil
	}
	if ok, res, err := env.approve(ctx, "run_command", p.Command); !ok {
		return res, err
	}
	place, err := env.CommandPlace(ctx)
	if err != nil {
		if ctx.Err() != nil {
			return Result{}, ctx.Err()
		}
		return Errorf("%v; the command was not run (running it on the workspace would test the old files, not your staged changes)", err), nil
	}
	defer place.Done()
	inView := place.InView
	res, err := command.Run(ctx, command.Spec{
		Command: p.Command,
		Dir:     place.Dir,
		Wrap:    place.Wrap,
		// The same allowlist as MCP servers: the model's API key and other
		// secrets in agentls's environment never reach a command the model wrote.
		Env:     ChildEnv(os.Environ(), nil),
		Timeout: timeout,
		Output:  command.Bounds{HeadBytes: cmdHeadBytes, TailBytes: cmdTailBytes, MaxLines: cmdMaxLines},
	})
	if err != nil {
		if ctx.Err() != nil {
			return Result{}, ctx.Err()
		}
		return Errorf("%v", err), nil
	}
	where := place.Where()
	if res.TimedOut {
		hint := "try a narrower command or a larger timeout_seconds"
		if timeout == limit {
			hint = "that is the user's limit (tools.commandTimeoutSeconds); try a narrower or faster command"
		}
		return Errorf("command timed out after %v and was killed (with its child processes); %s; %s\n%s", timeout, hint, where, res.Output), nil
	}
	text := res.Output
	if text == "" {
		text = "(no output)\n"
	}
	took := res.Duration.Round(time.Millisecond)
	summary := fmt.Sprintf("ran %q: exit %d", oneLine(p.Command), res.ExitCode)
	if inView {
		summary += " (in the proposal view)"
	}
	return Result{Text: fmt.Sprintf("%sexit code %d (%v); %s", text, res.ExitCode, took, where), Summary: summary}, nil
}

// approve asks the user (once per tool when they answer "always").
func (env *Env) approve(ctx context.Context, tool, summary string) (bool, Result, error) {
	if env.approvals.allowed(tool) {
		return true, Result{}, nil
	}
	if env.Approver == nil {
		return false, Errorf("%s needs the user's approval and there is no way to ask in this session; the command was not run", tool), nil
	}
	// The summary is the model's command, shown to the user to decide on
	// (a terminal, a showMessageRequest, a permission title): escaped, so
	// ESC sequences or a bidi override cannot show another command than
	// the one that would run.
	d, err := env.Approver.Approve(ctx, ApprovalRequest{Tool: tool, Summary: safetext.Text(summary)})
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
