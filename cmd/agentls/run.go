package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/agent/config"
	"github.com/agentls/agentls/agent/desk"
	"github.com/agentls/agentls/agent/llm"
	"github.com/agentls/agentls/agent/revert"
	"github.com/agentls/agentls/internal/redact"
	"github.com/agentls/agentls/internal/safetext"
	"github.com/agentls/agentls/internal/text"
	"github.com/agentls/agentls/internal/workspace"
	"github.com/agentls/agentls/tools"
)

const runUsage = `usage: agentls run [--dir DIR] [--apply | --plan] [--model NAME] [--allow-commands]
                   [--trust-workspace] [--record FILE | --replay FILE]
                   [--continue | --session ID] PROMPT | -

Runs one agent task on the files in DIR (default: the current directory).
PROMPT is the task in words; - reads it from standard input instead (for
a long task: agentls run - < task.md). A prompt over 192,000 bytes is
refused (exit status 2).
Model text and tool activity stream to stderr; the final answer and a
unified diff of the proposed changes go to stdout. Nothing is written
unless --apply is given.

--record FILE saves the model's responses of the run to FILE; --replay FILE
serves them again instead of calling a model (no model configuration,
API key or network needed), failing with an error that names the turn
when the run asks something the recording does not hold.

--plan runs in plan mode: the agent may only read and search, keeps a
todo list, and answers with a plan; nothing is changed. Carry the plan out
by continuing its session (the command to do so is printed at the end).

Every run belongs to a session, saved under $XDG_STATE_HOME/agentls (the
same sessions the editor sees, see 'agentls sessions'): --continue goes on
with the latest session of DIR, --session ID with that one; the model then
sees the earlier conversation, what was accepted or rejected (and why),
and how the files changed since. Changes not applied stay pending in the
session, for the editor to review.

Checks (the "checks" configuration: the project's tests and linters) run
on the proposal at the end of a run that changed files, in a scratch copy
of DIR with the changes applied; each result is printed, and failing ones
go back to the model to fix (at most maxCheckRounds times); one whose
command is not installed could not run and does not. With checks still
failing, or not run, at the end, --apply writes nothing.

Exit status: 0 the run finished (and its checks passed), 1 it failed or was
cancelled (or --apply could not write everything), 2 bad usage or
configuration, 3 it finished but a check still fails or could not run.

flags:
`

// runFlags are the parsed arguments of `agentls run`.
type runFlags struct {
	dir, model, prompt   string
	record, replay       string
	apply, allowCommands bool
	trustWorkspace       bool
	plan                 bool   // --plan
	cont                 bool   // --continue
	session              string // --session
}

// runFlagSet is run's flags, shared by parsing, help and completion.
func runFlagSet(f *runFlags) *flag.FlagSet {
	fs := flag.NewFlagSet("agentls run", flag.ContinueOnError)
	fs.StringVar(&f.dir, "dir", ".", "workspace `directory` the agent works in")
	fs.BoolVar(&f.apply, "apply", false, "write the proposed changes to disk")
	fs.StringVar(&f.model, "model", "", "model `name`, overriding the configuration")
	fs.BoolVar(&f.allowCommands, "allow-commands", false, "offer run_command; without a terminal to ask on, allow every command")
	fs.BoolVar(&f.trustWorkspace, "trust-workspace", false, trustWorkspaceUsage)
	fs.StringVar(&f.record, "record", "", "save the model's responses to `file` (a cassette)")
	fs.StringVar(&f.replay, "replay", "", "answer from the cassette `file` instead of a model")
	fs.BoolVar(&f.plan, "plan", false, "plan only: read-only tools, the answer is a plan to approve")
	fs.BoolVar(&f.cont, "continue", false, "continue the latest session of --dir")
	fs.StringVar(&f.session, "session", "", "continue the session `ID` (agentls sessions lists them)")
	return fs
}

// parseRunFlags accepts flags before and after the prompt words. It
// returns an exit code >= 0 when the command should stop.
func parseRunFlags(args []string, stdin io.Reader, stdout, stderr io.Writer) (runFlags, int) {
	var f runFlags
	fs := runFlagSet(&f)
	usage := func(w io.Writer) { fmt.Fprint(w, runUsage); printFlags(w, fs) }
	words, code := parseInterleaved(fs, args, usage, stdout, stderr)
	if code >= 0 {
		return f, code
	}
	if len(words) == 1 && words[0] == "-" {
		p, err := readPrompt(stdin)
		if err != nil {
			fmt.Fprintf(stderr, "agentls run: %v\n", err)
			return f, 2
		}
		words = []string{p}
	}
	var err error
	f.prompt, f.model, err = agent.CheckAsk(strings.Join(words, " "), f.model)
	switch {
	case errors.Is(err, agent.ErrNoPrompt):
		// One line: the whole help would bury what is missing.
		fmt.Fprintln(stderr, "agentls run: missing PROMPT (usage: agentls run [flags] PROMPT, or - to read it from standard input; see agentls help run)")
		return f, 2
	case errors.Is(err, agent.ErrBadModelName):
		fmt.Fprintf(stderr, "agentls run: --model: %v\n", err)
		return f, 2
	case err != nil:
		fmt.Fprintf(stderr, "agentls run: %v\n", err)
		return f, 2
	}
	if f.plan && f.apply {
		fmt.Fprintln(stderr, "agentls run: --plan changes nothing, so it cannot be used with --apply")
		return f, 2
	}
	if f.cont && f.session != "" {
		fmt.Fprintln(stderr, "agentls run: --continue and --session cannot be used together")
		return f, 2
	}
	if f.record != "" && f.replay != "" {
		fmt.Fprintln(stderr, "agentls run: --record and --replay cannot be used together")
		return f, 2
	}
	for _, p := range []*string{&f.record, &f.replay} { // relative to the shell's directory, not --dir
		if *p != "" {
			abs, err := filepath.Abs(*p)
			if err != nil {
				fmt.Fprintf(stderr, "agentls run: %v\n", err)
				return f, 2
			}
			*p = abs
		}
	}
	return f, -1
}

// readPrompt reads `agentls run -`'s prompt from standard input, at most
// one byte over agent.MaxPromptBytes: an endless pipe is refused, not
// held in memory.
func readPrompt(stdin io.Reader) (string, error) {
	if stdin == nil {
		return "", errors.New("no standard input to read the prompt from")
	}
	b, err := io.ReadAll(io.LimitReader(stdin, agent.MaxPromptBytes+1))
	if err != nil {
		return "", fmt.Errorf("reading the prompt from standard input: %w", err)
	}
	if len(b) > agent.MaxPromptBytes {
		return "", fmt.Errorf("%w: standard input holds more than %d bytes; say what to do and let the agent read the files it needs", agent.ErrPromptTooLarge, agent.MaxPromptBytes)
	}
	if !utf8.Valid(b) {
		return "", errors.New("the prompt on standard input is not UTF-8 text")
	}
	return string(b), nil
}

// runMain runs one agent task headless (`agentls run`) and returns the exit
// status.
func runMain(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return runMainContext(context.Background(), args, stdin, stdout, stderr)
}

// runMainContext is runMain under parent: cancelling it cancels the run
// as Ctrl-C does.
func runMainContext(parent context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	f, code := parseRunFlags(args, stdin, stdout, stderr)
	if code >= 0 {
		return code
	}
	dir, cfg, err, ok := loadWorkspace("run", f.dir, f.trustWorkspace, stdin, stderr)
	if !ok {
		return 2
	}
	if err != nil {
		fmt.Fprintf(stderr, "agentls run: configuration: %v\n", err)
		return 2
	}
	if f.model != "" {
		cfg.Model.Name = f.model
	}
	if f.record != "" || f.replay != "" {
		cfg.Model.Record, cfg.Model.Replay = f.record, f.replay
	}
	if f.allowCommands {
		cfg.Tools.RunCommand = config.RunCommandAsk
	}
	logger := slog.New(redact.Handler(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn})))
	view := workspace.New(workspace.Options{Folders: []string{dir}, Logger: logger})
	p := &progress{w: stderr, dir: dir}
	cs, code := openCLISession(f, dir, logger, stderr)
	if code >= 0 {
		return code
	}
	langServers := agent.NewLanguageManager(cfg, logger)
	defer langServers.Close()
	prepared, err := cs.session.Prepare(parent, agent.Setup{
		Config:   cfg,
		View:     view,
		Approver: newTermApprover(stdin, stderr, f.allowCommands),
		Logger:   logger,
		Lang:     langServers,
	}, agent.RunRequest{Prompt: f.prompt, OnEvent: p.event, Proposals: cs.states(), Mode: planMode(f.plan), Model: f.model})
	if err != nil {
		fmt.Fprintf(stderr, "agentls run: %v\n", err)
		return 2
	}
	defer prepared.Close()

	ctx, stop := signalContext(parent, stderr)
	defer stop()
	closeMCP := startRunMCP(ctx, cfg, dir, prepared.Registry(), logger, stderr)
	defer closeMCP()
	out := prepared.Execute(ctx)
	p.endLine()
	if replayFailed(out) {
		return discardReplay(out, prepared.TranscriptPath(), stderr)
	}
	if path := prepared.TranscriptPath(); path != "" {
		fmt.Fprintf(stderr, "agentls: transcript %s\n", path)
	}
	defer fmt.Fprintln(stderr, usageLine(out))
	if prepared.TranscriptPath() != "" {
		// Deferred: among the last lines, right above the usage line, where
		// someone who just watched the run looks for what to do next.
		defer fmt.Fprintf(stderr, "agentls: see this run as a page: agentls report %s\n", prepared.ID())
	}
	if out.Problems > 0 {
		fmt.Fprintf(stderr, "agentls run: the proposal introduces %d problem(s) the language server still reports\n", out.Problems)
	}
	// On a terminal the answer was just streamed to stderr; printing it to
	// the same screen again on stdout would show it twice.
	echo := !(isTerminal(stdout) && isTerminal(stderr))
	code, written := finishRun(out, prepared.Env().Changes, view, f.apply, echo, stdout, stderr)
	// What was written is the run's to take back, even when other files
	// could not be written (exit status 1): only those stay pending.
	if len(written) > 0 {
		recordApplied(prepared.ID(), cs.session.ID(), prepared.TranscriptPath(), prepared.Env().Changes, written, stderr)
		fmt.Fprintf(stderr, "agentls: run %s (take it back with: agentls revert --dir %s %s)\n", prepared.ID(), safetext.ShellQuote(dir), prepared.ID())
	}
	cs.save(prepared.Env().Changes, written, cfg, stderr)
	if f.plan && out.Status == agent.StatusFinished {
		fmt.Fprintf(stderr, "agentls run: that was a plan; to carry it out (as proposals, or with --apply):\n  agentls run --dir %s --session %s %q\n",
			safetext.ShellQuote(dir), cs.session.ID(), "Carry out your plan.")
	}
	return code
}

// replayFailed says whether a --replay run failed because its cassette
// cannot answer it (another prompt, other files).
func replayFailed(out agent.Outcome) bool {
	var re *llm.ReplayError
	return out.Status == agent.StatusFailed && errors.As(out.Err, &re)
}

// discardReplay ends a run whose cassette did not match: a replay is a
// demonstration or a test, and what it did before diverging is not a run
// of the user's, so neither its transcript nor its session is kept (a
// newcomer who mistyped the demo's prompt found a stray session in the
// editor). It returns the exit status, 1.
func discardReplay(out agent.Outcome, transcript string, stderr io.Writer) int {
	if transcript != "" {
		if err := os.Remove(transcript); err != nil && !errors.Is(err, fs.ErrNotExist) {
			fmt.Fprintf(stderr, "agentls: warning: %v\n", err)
		}
		_ = os.Remove(filepath.Dir(transcript)) // the runs directory, when this run made it (only if empty)
	}
	fmt.Fprintf(stderr, "agentls run: failed: %s\n", redact.Text(fmt.Sprint(out.Err)))
	fmt.Fprintln(stderr, "agentls run: the recording does not answer this run; nothing was written or saved (no session, no transcript)")
	return 1
}

func planMode(plan bool) string {
	if plan {
		return agent.ModePlan
	}
	return ""
}

// finishRun prints the answer and the diff, applies the changes when asked
// (only after a finished run) and returns the exit status and the files it
// wrote. echoAnswer false leaves the answer out of stdout (it was streamed
// to the same terminal already).
func finishRun(out agent.Outcome, cs *tools.Changeset, view *workspace.View, apply, echoAnswer bool, stdout, stderr io.Writer) (code int, written []string) {
	answered := echoAnswer && out.FinalAnswer() != ""
	if answered {
		fmt.Fprintln(stdout, strings.TrimRight(out.Answer, "\n"))
	}
	diff := cs.UnifiedDiff()
	if diff != "" {
		if answered {
			fmt.Fprintln(stdout)
		}
		fmt.Fprint(stdout, diff)
	}
	// The CLI never asks: with --apply it writes on its own, so the
	// core's end-of-turn rule decides as for any face that does.
	end := desk.EndOfTurn(out, false)
	failing, notRun := end.Failing, end.NotRun
	if len(out.Checks) > 0 && out.Status == agent.StatusFinished {
		switch {
		case len(failing) > 0:
			fmt.Fprintf(stderr, "agentls run: checks failed: %s\n", strings.Join(failing, ", "))
		case len(notRun) == 0:
			fmt.Fprintf(stderr, "agentls run: checks passed: %s\n", checkNames(out.Checks))
		}
		if len(notRun) > 0 {
			fmt.Fprintf(stderr, "agentls run: checks could not run: %s (see above; the changes are unchecked)\n", strings.Join(notRun, ", "))
		}
	}
	switch out.Status {
	case agent.StatusFailed:
		fmt.Fprintf(stderr, "agentls run: failed: %s\n", redact.Text(fmt.Sprint(out.Err)))
	case agent.StatusCancelled:
		fmt.Fprintln(stderr, "agentls run: cancelled")
	}
	if out.Status != agent.StatusFinished {
		if apply && diff != "" {
			fmt.Fprintln(stderr, "agentls run: nothing applied because the run did not finish")
		}
		return 1, nil
	}
	if end.Do == desk.Keep {
		// A check that could not run did not fail, but it did not pass
		// either: --apply writes only what the configured checks passed.
		switch {
		case apply && diff != "" && len(failing) > 0:
			fmt.Fprintln(stderr, "agentls run: nothing applied because a check still fails")
		case apply && diff != "":
			fmt.Fprintln(stderr, "agentls run: nothing applied because a check could not run")
		case diff != "":
			fmt.Fprintln(stderr, "agentls run: nothing was written")
		}
		return 3, nil
	}
	if !apply {
		if diff == "" {
			fmt.Fprintln(stderr, "agentls run: no changes proposed; nothing was written")
		} else {
			fmt.Fprintf(stderr, "agentls run: nothing was written; run again with --apply to write the changes to %d file(s)\n", len(cs.Files()))
		}
		return 0, nil
	}
	if diff == "" {
		fmt.Fprintln(stderr, "agentls run: no changes to apply")
		return 0, nil
	}
	written, errs := applyChanges(cs, view)
	for _, err := range errs {
		fmt.Fprintf(stderr, "agentls run: %v\n", err)
	}
	fmt.Fprintf(stderr, "agentls run: applied changes to %d of %d file(s)\n", len(written), len(cs.Files()))
	if len(errs) > 0 {
		return 1, written
	}
	return 0, written
}

// usageLine is the run's last line: tokens in (cached) / out, the model,
// and the cost when model.pricing is set.
func usageLine(out agent.Outcome) string {
	u := out.Usage
	line := fmt.Sprintf("agentls: %s tokens in (%s cached) / %s out", text.Thousands(u.PromptTokens), text.Thousands(u.CachedTokens), text.Thousands(u.CompletionTokens))
	if out.Model != "" {
		line += " · " + out.Model
	}
	if out.CostUSD != nil {
		line += fmt.Sprintf(" · $%.4f", *out.CostUSD)
	}
	return line
}

// recordApplied completes the run's transcript (the file it wrote, when
// it wrote one) with the fate of the changes it wrote (applied, the CLI's
// accept), for `agentls report`. It also keeps a revert snapshot of each
// of those files (what the run replaced), so `agentls revert RUN_ID` can
// take the run back.
func recordApplied(runID, sessionID, transcript string, cs *tools.Changeset, written []string, stderr io.Writer) {
	store := revert.NewStore("")
	for _, p := range written {
		f, ok := cs.Get(p)
		if !ok || !f.Pending() {
			continue
		}
		fate := agent.Fate{RunID: runID, Path: p, Fate: agent.FateAccepted, Reason: "applied with agentls run --apply"}
		if transcript != "" { // the file the run wrote: no directory listing per file
			_ = agent.RecordFateAt(transcript, fate)
		} else {
			_ = agent.RecordFate("", fate)
		}
		if _, err := store.Keep(runID, sessionID, revert.File{Path: p, Before: f.Base, After: f.Text, Created: f.Created}); err != nil {
			fmt.Fprintf(stderr, "agentls: warning: this run cannot be reverted: %v\n", err)
		}
	}
}

// progress shows a run on stderr: streamed text as it comes, one line per
// tool call and result.
type progress struct {
	w       io.Writer
	midLine bool
	dir     string // the workspace folder, to show paths relative to it
}

// rel shows path relative to the workspace folder when inside it.
func (p *progress) rel(path string) string {
	if r, err := filepath.Rel(p.dir, path); err == nil && !strings.HasPrefix(r, "..") {
		return r
	}
	return path
}

func (p *progress) event(ev agent.Event) {
	if ev.ParentRunID != "" {
		p.subEvent(ev)
		return
	}
	switch ev.Kind {
	case agent.EventTodo:
		p.endLine()
		fmt.Fprintf(p.w, "☰ plan: %s\n", agent.PlanProgress(ev.Todos))
		for _, t := range ev.Todos {
			mark := "[ ]"
			switch t.Status {
			case agent.TodoInProgress:
				mark = "[~]"
			case agent.TodoCompleted:
				mark = "[x]"
			}
			fmt.Fprintf(p.w, "    %s %s\n", mark, t.Content)
		}
	case agent.EventCheckStarted:
		p.endLine()
		fmt.Fprintf(p.w, "→ check %s: %s\n", ev.Check.Name, text.Clip(ev.Summary, 140))
	case agent.EventCheckRunning:
		p.endLine()
		fmt.Fprintf(p.w, "  … %s\n", ev.Summary)
	case agent.EventLangServer:
		p.endLine()
		mark := "✓"
		switch {
		case ev.Starting:
			mark = "→"
		case ev.Err != nil:
			mark = "⚠"
		}
		fmt.Fprintf(p.w, "%s %s\n", mark, ev.Summary)
	case agent.EventCheck:
		p.endLine()
		c := ev.Check
		switch {
		case c.NotRun:
			// Its output is the reason and a hint, not a log to tail.
			first, rest, _ := strings.Cut(c.Output, "\n")
			fmt.Fprintf(p.w, "⚠ check %s %s\n", c.Name, first)
			fmt.Fprint(p.w, indent(lastLines(rest, 30), "    "))
			return
		case c.Passed:
			fmt.Fprintf(p.w, "✓ %s\n", agent.CheckLine(*c))
		default:
			fmt.Fprintf(p.w, "✗ %s\n", agent.CheckLine(*c))
		}
		if !c.Passed {
			fmt.Fprint(p.w, indent(lastLines(c.Output, 30), "    "))
		}
	case agent.EventProblems:
		p.endLine()
		if ev.Problems.Introduced > 0 {
			fmt.Fprintf(p.w, "  ⚠ %s introduces %d problem(s)\n", p.rel(ev.Path), ev.Problems.Introduced)
			for i, it := range ev.Problems.Items {
				if i == 5 {
					fmt.Fprintf(p.w, "    … and %d more\n", ev.Problems.Introduced-5)
					break
				}
				fmt.Fprintf(p.w, "    %s:%d: %s\n", p.rel(ev.Path), it.Range.Start.Line+1, text.Clip(it.Message, 160))
			}
		}
	case agent.EventText:
		fmt.Fprint(p.w, ev.Text)
		p.midLine = !strings.HasSuffix(ev.Text, "\n")
	case agent.EventToolCall:
		p.endLine()
		fmt.Fprintf(p.w, "→ %s %s\n", ev.Tool, text.Clip(compactJSON(ev.Args), 160))
	case agent.EventToolResult:
		mark := "✓"
		if ev.IsError {
			mark = "✗"
		}
		msg := ev.Summary
		if ev.IsError && strings.TrimSpace(ev.Text) != "" {
			msg = ev.Text // failures in full: the model sees all of it, so should the user
		}
		fmt.Fprintf(p.w, "  %s %s\n", mark, wrap(strings.TrimSpace(msg), 96, "    "))
	}
}

// subEvent shows a sub-agent's (task tool) steps indented under the
// parent's task call; its streamed text is left out, as parallel
// sub-agents would interleave it.
func (p *progress) subEvent(ev agent.Event) {
	switch ev.Kind {
	case agent.EventStarted:
		p.endLine()
		fmt.Fprintf(p.w, "  ⤷ sub-agent %s started: %s\n", ev.RunID, text.Clip(ev.Summary, 80))
	case agent.EventToolCall:
		p.endLine()
		fmt.Fprintf(p.w, "    [%s] → %s %s\n", ev.RunID, ev.Tool, text.Clip(compactJSON(ev.Args), 140))
	case agent.EventFinished, agent.EventFailed, agent.EventCancelled:
		p.endLine()
		fmt.Fprintf(p.w, "  ⤶ sub-agent %s %s\n", ev.RunID, ev.Kind)
	}
}

// checkNames lists the checks' names.
func checkNames(cs []tools.CheckResult) string {
	names := make([]string, len(cs))
	for i, c := range cs {
		names[i] = c.Name
	}
	return strings.Join(names, ", ")
}

// lastLines keeps the last n lines of s (a check's output, whole in the
// run's transcript), marking what it drops.
func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) <= n {
		return strings.Join(lines, "\n") + "\n"
	}
	return fmt.Sprintf("[… %d lines above]\n", len(lines)-n) + strings.Join(lines[len(lines)-n:], "\n") + "\n"
}

// indent prefixes every line of s.
func indent(s, prefix string) string {
	if s == "" || s == "\n" {
		return ""
	}
	return prefix + strings.ReplaceAll(strings.TrimRight(s, "\n"), "\n", "\n"+prefix) + "\n"
}

func (p *progress) endLine() {
	if p.midLine {
		fmt.Fprintln(p.w)
		p.midLine = false
	}
}

func compactJSON(raw json.RawMessage) string {
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		return string(raw)
	}
	return b.String()
}

// wrap breaks s into lines of at most width runes at spaces (a longer word
// stays whole), keeping s's own line breaks; continuation lines start with
// indent. Nothing is dropped.
func wrap(s string, width int, indent string) string {
	var b strings.Builder
	for i, line := range strings.Split(s, "\n") {
		if i > 0 {
			b.WriteString("\n" + indent)
		}
		n := 0
		for j, word := range strings.Fields(line) {
			w := utf8.RuneCountInString(word)
			if j > 0 && n+1+w > width {
				b.WriteString("\n" + indent)
				n = 0
			} else if j > 0 {
				b.WriteByte(' ')
				n++
			}
			b.WriteString(word)
			n += w
		}
	}
	return b.String()
}
