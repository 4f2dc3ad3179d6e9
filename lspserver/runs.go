package lspserver

import (
	"context"
	"fmt"
	"maps"
	"runtime/debug"
	"slices"
	"strings"
	"sync/atomic"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/agent/config"
	"github.com/agentls/agentls/internal/text"
	"github.com/agentls/agentls/tools"
)

// Agent runs in the editor. agentls.run validates its arguments, loads the
// configuration, replies with the run id at once and runs the agent on a
// goroutine the Server owns (goBackground), under the server-lifetime
// context (never the request's, which ends with the reply). A run:
//
//  1. creates its progress token and sends begin (progress.go);
//  2. waits for a slot: at most maxConcurrentRuns (default 4) runs work at
//     once; later ones wait in FIFO order, reported as "queued" in their
//     progress, and can be cancelled while waiting;
//  3. executes the run its agent.Session prepared (model, built-in tools,
//     the MCP tools ready at each turn), events forwarded as
//     agentls/runEvent (events.go);
//  4. passes each staged-change event to review (preview mode,
//     stagePreview) or to the editor (apply mode, apply.go) as the tool
//     call that made it returns;
//  5. ends: progress end, the final runEvent, window/showMessage with a
//     summary (for clients without our plugins), then forgetRun.

// agentRuns is the Server's state for agent runs.
type agentRuns struct {
	cfg       runConfig
	mcp       mcpState
	reg       runRegistry
	approvals sessionApprovals
}

// run is one agent run.
type run struct {
	id        string
	mode      string
	session   *agent.Session
	cancel    context.CancelFunc
	cancelled atomic.Bool
	token     string // progress token, "" if none (under runRegistry.mu)

	// Set by execute before the agent starts, read by onEvent on the
	// run's goroutines.
	events *eventStream
	prog   *runProgress
	ap     *applier // apply mode only
}

// stop cancels the run; it reports whether this call did it.
func (r *run) stop() bool {
	if !r.cancelled.CompareAndSwap(false, true) {
		return false
	}
	r.cancel()
	return true
}

// job is everything a run needs, prepared by runCommand: the session's
// run, built (model client, tools, policy) but not started.
type job struct {
	cfg      config.Config
	prepared *agent.SessionRun
	approver *editorApprover
}

// execute is the run's goroutine.
func (s *Server) execute(ctx context.Context, r *run, j job) {
	defer j.prepared.Close()
	defer r.session.Release(r.id) // a run that never executed (cancelled while queued, a panic)
	r.events = newEventStream(s, r.id)
	var prog *runProgress
	defer func() {
		// A bug must not leave the editor with a run that never ends.
		if p := recover(); p != nil {
			s.log.Error("agent run panicked", "run", r.id, "panic", p, "stack", string(debug.Stack()))
			s.runs.reg.remove(r)
			s.endRun(ctx, r, r.events, prog, agent.Outcome{RunID: r.id, Status: agent.StatusFailed,
				Err: fmt.Errorf("internal error in agentls: %v", p)}, 0, "")
		}
	}()
	prog = s.startProgress(ctx, r, "starting")
	r.prog, j.approver.progress = prog, prog
	release, err := s.runs.reg.acquire(ctx, j.cfg.MaxConcurrentRuns, func(running int) {
		prog.report(ctx, fmt.Sprintf("queued: %d agent runs are working; this one starts when one of them ends", running))
	})
	if err != nil { // cancelled while queued
		s.runs.reg.remove(r)
		s.endRun(ctx, r, r.events, prog, agent.Outcome{RunID: r.id, Status: agent.StatusCancelled}, 0, "")
		return
	}
	defer release()
	s.waitMCP(ctx, j.cfg.MCP.StartupTimeoutSeconds, prog)
	prog.report(ctx, "running")

	env := j.prepared.Env()
	if r.mode == config.ModeApply {
		r.ap = newApplier(s, r.id, env, r.events, prog, s.runs.cfg.options().ApplySettle)
	}
	out := j.prepared.Execute(ctx)
	s.runs.reg.remove(r)

	pending := len(env.Changes.Files())
	note := ""
	if r.ap != nil {
		applied, held := r.ap.summary()
		pending, note = s.handOver(r.id, env.Changes, r.events, out.Status, applied, held)
	} else if pending > 0 {
		note = fmt.Sprintf("%s pending review", plural(pending, "changed file"))
	} else {
		note = "no changes"
	}
	if n := s.planFinished(r, out); n != "" {
		note = n
	}
	s.endRun(ctx, r, r.events, prog, out, pending, note)
}

// onEvent is the agent's OnEvent for run r: events go to the editor as
// agentls/runEvent, tool calls to the progress, and staged changes to
// review (preview) or straight to the editor (apply mode).
func (s *Server) onEvent(ctx context.Context, r *run, ev agent.Event) {
	if ev.Kind == agent.EventStaged {
		if r.ap != nil {
			r.ap.staged(ctx, ev.Path)
			return
		}
		s.review.Stage(r.id, ev.Staged)
		s.saveSession(r.session)
		if ev.Staged.Pending() {
			r.events.send(RunEvent{Kind: kindProposal, URI: string(uri.File(ev.Path))})
		}
		return
	}
	r.events.agentEvent(ev, r.mode)
	switch {
	case ev.ParentRunID != "":
	case ev.Kind == agent.EventToolCall:
		r.prog.report(ctx, stepMessage(ev.Tool, ev.Args)) // stepwords.go
	case ev.Kind == agent.EventTodo:
		r.prog.report(ctx, agent.PlanProgress(ev.Todos))
	}
}

// decide passes review decisions to the sessions of their runs as inputs
// (a run still working applies them at its next step; the session's next
// run is told), then saves those sessions.
func (s *Server) decide(ds []agent.Decision) {
	var touched []*agent.Session
	for _, d := range ds {
		sess := s.sessionOfRun(d.RunID)
		if sess == nil {
			continue
		}
		if !d.Accepted {
			if content, _, err := s.docs.DiskText(d.Path); err == nil {
				d.Document = content
			}
		}
		sess.Decide(d)
		if !slices.Contains(touched, sess) {
			touched = append(touched, sess)
		}
	}
	for _, sess := range touched {
		s.saveSession(sess)
	}
}

// handOver ends an apply-mode run's changes: what the editor did not take
// becomes proposals for review, unless the run was cancelled (then it is
// dropped: a cancelled run changes nothing more). It returns the number of
// proposals left and the note for the final message.
func (s *Server) handOver(runID string, cs *tools.Changeset, events *eventStream, status agent.Status, applied int, held map[string]string) (int, string) {
	note := plural(applied, "file") + " changed in the editor"
	if len(held) == 0 {
		return 0, note
	}
	if status == agent.StatusCancelled {
		return 0, fmt.Sprintf("%s; %s not applied (run cancelled)", note, plural(len(held), "staged change"))
	}
	var reasons []string
	for _, path := range slices.Sorted(maps.Keys(held)) {
		why := held[path]
		f, ok := cs.Get(path)
		if !ok {
			continue
		}
		s.review.Stage(runID, f)
		events.send(RunEvent{Kind: kindProposal, URI: string(uri.File(path)), Applied: ptr(false)})
		reasons = append(reasons, s.docs.DisplayName(path)+": "+why)
	}
	return len(held), fmt.Sprintf("%s; %s not applied, pending review (%s)", note, plural(len(held), "change"), strings.Join(reasons, "; "))
}

// endRun reports the end of a run everywhere: progress end, the final
// runEvent, window/showMessage; then review is told the run is over.
func (s *Server) endRun(ctx context.Context, r *run, events *eventStream, prog *runProgress, out agent.Outcome, pending int, note string) {
	s.saveSession(r.session) // before the end is announced: a client may stop the server then
	msg, typ := endMessage(r.id, out, note)
	prog.end(ctx, msg)
	fallback := RunEvent{Kind: out.Status.String()}
	if out.Status == agent.StatusFailed && out.Err != nil {
		fallback.Error = out.Err.Error()
	}
	events.finish(fallback, pending)
	if err := s.core.Client().ShowMessage(s.ctx, &protocol.ShowMessageParams{Type: typ, Message: msg}); err != nil {
		s.log.Debug("showMessage not sent", "err", err)
	}
	s.log.Info("run ended", "run", r.id, "status", out.Status.String(), "turns", out.Turns, "toolCalls", out.ToolCalls,
		"tokens", out.Usage.TotalTokens, "pending", pending)
	s.review.ForgetRun(r.id)
}

// endMessage is the one-line summary of a run for showMessage and
// progress end.
func endMessage(id string, out agent.Outcome, note string) (string, protocol.MessageType) {
	suffix := ""
	if note != "" {
		suffix = "; " + note
	}
	switch out.Status {
	case agent.StatusFinished:
		answer := text.FirstLine(out.Answer)
		if answer == "" {
			answer = "(no answer)"
		}
		return fmt.Sprintf("Agent run %s finished: %s%s", id, text.Clip(answer, 200), suffix), protocol.MessageTypeInfo
	case agent.StatusFailed:
		reason := "unknown error"
		if out.Err != nil {
			reason = out.Err.Error()
		}
		return fmt.Sprintf("Agent run %s failed: %s%s", id, text.Clip(reason, 300), suffix), protocol.MessageTypeError
	default:
		return fmt.Sprintf("Agent run %s cancelled%s", id, suffix), protocol.MessageTypeInfo
	}
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}
