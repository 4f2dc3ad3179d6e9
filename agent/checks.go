package agent

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/agentls/agentls/internal/text"
	"github.com/agentls/agentls/tools/lang"

	"github.com/agentls/agentls/agent/llm"
	"github.com/agentls/agentls/tools"
	openai "github.com/sashabaranov/go-openai"
)

// DefaultMaxCheckRounds is how many times failing checks send a run back
// to the model by default.
const DefaultMaxCheckRounds = 2

// runChecks runs the checks that apply to what the run changed, when the
// model has given its final answer, and reports whether the run goes on:
// a check failed, rounds are left, and the failures went to the model as
// a user message. Each result is an EventCheck and a transcript record;
// r.checks keeps the latest result of each check for the end. A check
// that could not run at all (no proposal view, its command not installed
// or not executable) is reported, never sent back: the model cannot fix
// it, and a round spent trying costs tokens and may "fix" working code.
func (r *runner) runChecks(ctx context.Context) (again bool, err error) {
	if !r.willCheck() || r.env.Changes == nil {
		return false, nil
	}
	r.between() // review decisions made meanwhile change what is checked
	changed := r.env.Changes.Touched()
	var failed []tools.CheckResult
	var failedChecks []tools.Check
	for _, c := range r.opts.Checks {
		if !c.Applies(r.env, changed) {
			continue
		}
		r.events.emit(Event{Kind: EventCheckStarted, Check: &tools.CheckResult{Name: c.Name}, Summary: c.Command})
		res, err := r.runCheck(ctx, c)
		if err != nil {
			return false, err
		}
		r.noteCheck(res)
		r.events.emit(Event{Kind: EventCheck, Check: &res})
		r.transcript.record("check", map[string]any{"name": res.Name, "command": c.Command, "passed": res.Passed, "exitCode": res.ExitCode,
			"seconds": res.Seconds, "notRun": res.NotRun, "inView": res.InView, "view": res.View, "output": res.Output})
		if !res.Passed && !res.NotRun {
			failed = append(failed, res)
			failedChecks = append(failedChecks, c)
		}
	}
	if len(failed) == 0 || r.checkRounds >= r.limits.MaxCheckRounds {
		return false, nil
	}
	r.checkRounds++
	r.conv.add(llm.Message{Role: openai.ChatMessageRoleUser, Content: r.checkFeedback(failedChecks, failed)}, kindNormal, "")
	return true, nil
}

// willCheck reports whether this run runs checks when it ends (it has
// some and may change files).
func (r *runner) willCheck() bool {
	return r.role == roleMain && r.opts.Mode != ModePlan && len(r.opts.Checks) > 0 && r.ctx != nil
}

// noteCheck keeps the latest result of each check, in first-run order.
func (r *runner) noteCheck(res tools.CheckResult) {
	for i := range r.checks {
		if r.checks[i].Name == res.Name {
			r.checks[i] = res
			return
		}
	}
	r.checks = append(r.checks, res)
}

// checkFeedback is the user message that sends failing checks back.
func (r *runner) checkFeedback(checks []tools.Check, results []tools.CheckResult) string {
	var b strings.Builder
	where := "the workspace"
	switch {
	case results[0].View == tools.ViewOverlay:
		where = "an overlay view of the workspace with your proposed changes applied"
	case results[0].InView:
		where = "a copy of the workspace with your proposed changes applied"
	}
	fmt.Fprintf(&b, "The project's checks ran on your changes (in %s) and %d failed:\n", where, len(results))
	for i, res := range results {
		status := fmt.Sprintf("exit code %d", res.ExitCode)
		if res.ExitCode == -1 {
			status = "timed out"
		}
		fmt.Fprintf(&b, "\n## check %q failed (%s, %.1fs): %s\n```\n%s```\n", res.Name, status, res.Seconds, checks[i].Command, res.Output)
	}
	fmt.Fprintf(&b, "\nFix the cause (the code, or the test if the test is what is wrong) with your tools, then give your final answer again: the checks run again then. This was check round %d of %d.", r.checkRounds, r.limits.MaxCheckRounds)
	return b.String()
}

// runCheck runs c, emitting EventCheckRunning every
// Limits.CheckProgressEvery until it ends.
func (r *runner) runCheck(ctx context.Context, c tools.Check) (tools.CheckResult, error) {
	done := make(chan struct{})
	var wg sync.WaitGroup
	if every := r.limits.CheckProgressEvery; every > 0 {
		began := time.Now()
		wg.Go(func() {
			t := time.NewTicker(every)
			defer t.Stop()
			for {
				select {
				case <-done:
					return
				case <-t.C:
					secs := time.Since(began).Seconds()
					r.events.emit(Event{Kind: EventCheckRunning, Check: &tools.CheckResult{Name: c.Name}, Seconds: secs,
						Summary: fmt.Sprintf("check %s running (%s)", c.Name, Elapsed(secs))})
				}
			}
		})
	}
	res, err := r.env.RunCheck(ctx, c)
	close(done)
	wg.Wait() // no running event after the result
	return res, err
}

// Elapsed words a duration in seconds the way every face shows it:
// tenths under a minute, then minutes and seconds.
func Elapsed(secs float64) string {
	if secs < 60 {
		return fmt.Sprintf("%.1fs", secs)
	}
	d := time.Duration(secs) * time.Second
	return fmt.Sprintf("%dm%02ds", int(d.Minutes()), int(d.Seconds())%60)
}

// CheckLine is the line every face shows for a check's result, with its
// elapsed time.
func CheckLine(c tools.CheckResult) string {
	switch {
	case c.NotRun:
		return fmt.Sprintf("check %s %s", c.Name, text.Clip(text.FirstLine(c.Output), 160))
	case c.Passed:
		return fmt.Sprintf("check %s passed in %s%s", c.Name, Elapsed(c.Seconds), viewNote(c))
	case c.ExitCode == -1:
		return fmt.Sprintf("check %s timed out after %s%s", c.Name, Elapsed(c.Seconds), viewNote(c))
	}
	return fmt.Sprintf("check %s failed (exit code %d) in %s%s", c.Name, c.ExitCode, Elapsed(c.Seconds), viewNote(c))
}

// viewNote names the kind of proposal view a check ran in (an overlay
// over the workspace, or the copy it falls back to), so a user whose
// kernel refuses the overlay learns why checks are slow.
func viewNote(c tools.CheckResult) string {
	switch c.View {
	case tools.ViewOverlay:
		return ", ran in an overlay view"
	case tools.ViewCopy:
		return ", ran in a copy"
	}
	return ""
}

// langServerEvent words a language server's start for every face.
func langServerEvent(st lang.ServerStatus) Event {
	ev := Event{Kind: EventLangServer, Server: st.Server, Starting: st.Starting, Err: st.Err}
	switch {
	case st.Starting:
		ev.Summary = "starting language server " + st.Server + "…"
	case st.Err != nil:
		ev.Seconds = st.Took.Seconds()
		ev.Summary = fmt.Sprintf("language server %s did not start (%s): %v", st.Server, Elapsed(ev.Seconds), st.Err)
	default:
		ev.Seconds = st.Took.Seconds()
		ev.Summary = fmt.Sprintf("language server %s ready (%s)", st.Server, Elapsed(ev.Seconds))
	}
	return ev
}
