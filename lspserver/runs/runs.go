package runs

import (
	"context"
	"fmt"
	"log/slog"
	"runtime/debug"
	"slices"
	"sync"
	"time"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/agent/complete"
	"github.com/agentls/agentls/agent/config"
	"github.com/agentls/agentls/agent/mcpset"
	"github.com/agentls/agentls/agent/proposal"
	"github.com/agentls/agentls/agent/revert"
	"github.com/agentls/agentls/internal/text"
	"github.com/agentls/agentls/internal/workspace"
	"github.com/agentls/agentls/lspserver/core"
	"github.com/agentls/agentls/lspserver/docs"
	"github.com/agentls/agentls/tools"
	"github.com/agentls/agentls/tools/script"
)

// Agent runs in the editor. agentls.run validates its arguments, loads the
// configuration, replies with the run id at once and runs the agent on a
// goroutine the server owns (core.Server.Go), under the server-lifetime
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
//     Review.Stage) or to the editor (apply mode, apply.go) as the tool
//     call that made it returns;
//  5. ends: progress end, the final runEvent, window/showMessage with a
//     summary (for clients without our plugins), then forgetRun.

// Runs is the runs part of the server: agent runs and their
// configuration, MCP servers, approvals, sessions and plans, and the code
// actions that start runs. It feeds review through the Review interface
// and never imports it.
type Runs struct {
	core *core.Server
	docs *docs.Docs
	view *workspace.View
	log  *slog.Logger
	ctx  context.Context // server lifetime (core.Server.Context)
	// scripts bound the script programs of every run of this server
	// together.
	scripts *script.Slots

	review Review

	cfg       runConfig
	mcp       *mcpset.Set     // the MCP servers (mcp.go)
	mcpOnce   sync.Once       // the goroutine that closes them with the server
	reg       agent.RunTable  // runs in progress (found by id or progress token), their cancellation
	approvals agent.Approvals // "Allow for this session" answers (approve.go)

	editor editorToolsState // the editor's own tools (editortools.go)
	tasks  taskBook         // task comments of open documents (tasks.go)

	actionSets actionSets // code actions listed lazily, to resolve (resolve.go)

	lang     agent.LanguageServerSet // the workspace's language servers (lang.go)
	langOnce sync.Once               // the goroutine that closes them with the server
	sess     sessionsState           // conversations and their persistence (sessions.go)
	plans    agent.Plans             // finished plans awaiting approval (plan.go)
	// completionUsage reads the completion usage for agentls/models
	// (OnCompletionUsage); nil: none shown.
	completionUsage func() (model string, u complete.Usage, on bool)
	hist            revert.Index // runs whose landed changes can be reverted (history_index.go)
}

// Review is what runs need of the review part, wired by the root: where
// a preview run's staged changes go, and what is pending. Runs never see
// review's decisions except as agent.Decisions passed to Decide.
type Review interface {
	// Stage puts a preview run's staged (or restaged, or discarded)
	// change into review.
	Stage(runID string, f tools.StagedFile)
	// Drop removes runID's proposal for path, if any.
	Drop(runID, path string)
	// ForgetRun is called when a run ends; its pending hunks stay.
	ForgetRun(runID string)
	// RunOrigin records the document (a store path) and line a run was
	// started from, where the new files it proposes are also shown.
	RunOrigin(runID, path string, line uint32)
	// Problems records what the language server found in runID's
	// proposal for fp.Path (agentls/proposals lists fp.Outstanding).
	Problems(runID string, fp tools.FileProblems)
	// Pending is every proposal in review.
	Pending() []proposal.Proposal
	// PendingAt is every proposal in review for path.
	PendingAt(path string) []proposal.Proposal
	// SupersedeNew lets runID's proposal to create path replace those
	// earlier runs of sess left in review (a session's follow-up wrote
	// its own version of the new file); it returns the runs superseded.
	SupersedeNew(sess *agent.Session, path, runID string) []string
	// CodeActions are review's accept/reject actions for the hunks
	// overlapping r in the document key (core.DocKey) names.
	CodeActions(key string, r text.Range, lazy bool) []protocol.CommandOrCodeAction
	// IsPreviewDiagnostic reports whether d is one of review's previews.
	IsPreviewDiagnostic(d protocol.Diagnostic) bool
}

// New returns the runs part of c's session, on the documents of d, staging
// into rv.
func New(c *core.Server, d *docs.Docs, rv Review) *Runs {
	rs := &Runs{core: c, docs: d, view: d.View(), log: c.Log(), ctx: c.Context(), review: rv, scripts: script.NewSlots(0)}
	rs.plans.Dir, rs.plans.Log = rs.planDir, rs.log
	rs.newHistIndex()
	rs.cfg.live.Tell = rs.tellConfig
	rs.mcp = mcpset.New(rs.ctx, mcpset.Options{Logger: rs.log.With("component", "mcp"), OnState: rs.reportMCP})
	return rs
}

// run is one agent run.
type run struct {
	// ActiveRun is its entry in rs.reg (id, session, cancelling it).
	*agent.ActiveRun
	mode string

	// Set by execute before the agent starts, read by onEvent on the
	// run's goroutines.
	events *eventStream
	prog   *runProgress
	ap     *applier // apply mode only
}

// job is everything a run needs, prepared by runCommand: the session's
// run, built (model client, tools, policy) but not started.
type job struct {
	cfg      config.Config
	prepared *agent.SessionRun
	approver *editorApprover
}

// execute is the run's goroutine.
func (rs *Runs) execute(ctx context.Context, r *run, j job) {
	defer j.prepared.Close()
	defer r.Session.Release(r.ID) // a run that never executed (cancelled while queued, a panic)
	r.events = newEventStream(rs, r.ID)
	var prog *runProgress
	defer func() {
		// A bug must not leave the editor with a run that never ends.
		if p := recover(); p != nil {
			rs.log.Error("agent run panicked", "run", r.ID, "panic", p, "stack", string(debug.Stack()))
			rs.reg.Remove(r.ActiveRun)
			rs.endRun(ctx, r, r.events, prog, agent.Outcome{RunID: r.ID, Status: agent.StatusFailed,
				Err: fmt.Errorf("internal error in agentls: %v", p)}, 0, "")
		}
	}()
	prog = rs.startProgress(ctx, r, "starting")
	r.prog, j.approver.progress = prog, prog
	env := j.prepared.Env()
	end := agent.Host(ctx, j.prepared, agent.Seating{Slots: &rs.reg.RunSlots, Config: j.cfg,
		Queued: func(running int) {
			prog.report(ctx, fmt.Sprintf("queued: %d agent runs are working; this one starts when one of them ends", running))
		},
		AwaitMCP: func(ctx context.Context, bound time.Duration) {
			rs.mcp.AwaitForRun(ctx, bound, func(status string) { prog.report(ctx, status) })
		},
	}, func() {
		prog.report(ctx, "running")
		if r.mode == config.ModeApply {
			r.ap = newApplier(rs, r.ID, env, r.events, prog, rs.cfg.options().ApplySettle)
		}
	})
	rs.reg.Remove(r.ActiveRun)
	out, pending, note := end.Outcome, len(end.Pending), ""
	switch {
	case !end.Executed: // cancelled while queued
		rs.endRun(ctx, r, r.events, prog, out, 0, "")
		return
	case r.ap == nil:
		note = agent.PendingNote(end.Pending, rs.view.DisplayName)
	default:
		applied, held := r.ap.summary()
		pending, note = rs.handOver(r.ID, env.Changes, r.events, out.Status, applied, held)
		r.ap.recordFates()
	}
	if n := rs.planFinished(r, out); n != "" {
		note = n
	}
	rs.endRun(ctx, r, r.events, prog, out, pending, note)
}

// onEvent is the agent's OnEvent for run r: events go to the editor as
// agentls/runEvent, tool calls to the progress, and staged changes to
// review (preview) or straight to the editor (apply mode).
func (rs *Runs) onEvent(ctx context.Context, r *run, ev agent.Event) {
	if ev.Kind == agent.EventStaged {
		if r.ap != nil {
			r.ap.staged(ctx, ev.Path)
			return
		}
		rs.review.Stage(r.ID, ev.Staged)
		if ev.Staged.Pending() && (ev.Staged.Created || tools.Blank(ev.Staged.Base)) {
			rs.replaceEarlierNew(r.Session, ev.Path, r.ID)
		}
		rs.saveSession(r.Session)
		if ev.Staged.Pending() {
			r.events.send(RunEvent{Kind: kindProposal, URI: string(uri.File(ev.Path))})
		}
		return
	}
	if ev.Kind == agent.EventProblems && ev.ParentRunID == "" {
		rs.review.Problems(r.ID, ev.Problems)
	}
	if ev.Kind == agent.EventCheckStarted {
		// Progress only (the check event with its result follows): the
		// editor's status shows the check running, not the last tool step.
		r.prog.report(ctx, "running check "+ev.Check.Name)
		return
	}
	r.events.agentEvent(ev, r.mode)
	switch {
	case ev.ParentRunID != "":
	case ev.Kind == agent.EventCheck && ev.Check != nil:
		// Otherwise "running check NAME" would stay on after the check, and
		// a client without our plugins would never learn how it went, how
		// long it took, or why it could not run.
		r.prog.report(ctx, agent.CheckLine(*ev.Check))
	case ev.Kind == agent.EventCheckRunning, ev.Kind == agent.EventLangServer:
		r.prog.report(ctx, ev.Summary)
	case ev.Kind == agent.EventToolCall:
		r.prog.report(ctx, stepMessage(ev.Tool, ev.Args)) // stepwords.go
	case ev.Kind == agent.EventTodo:
		r.prog.report(ctx, agent.PlanProgress(ev.Todos))
	}
}

// Decide passes review decisions to the sessions of their runs as inputs
// (a run still working applies them at its next step; the session's next
// run is told), then saves those sessions.
func (rs *Runs) Decide(ds []agent.Decision) {
	rs.Queue(ds)
	rs.Record(ds)
}

// Queue passes rejections whose reason the user is still asked to the
// runs still working (agent.Session.Queue); Record follows with the
// reason.
func (rs *Runs) Queue(ds []agent.Decision) { agent.QueueDecisions(ds, rs.sessionOfRun) }

// Record tells the sessions' next runs about review decisions already
// queued (agent.RecordDecisions), a rejection with the file as it is on
// disk, and saves those sessions.
func (rs *Runs) Record(ds []agent.Decision) {
	ds = slices.Clone(ds)
	for i, d := range ds {
		if d.Accepted {
			continue
		}
		if content, _, err := rs.docs.DiskText(d.Path); err == nil {
			ds[i].Document = content
		}
	}
	for _, sess := range agent.RecordDecisions(ds, rs.sessionOfRun) {
		rs.saveSession(sess)
	}
	// Revert snapshots last: the session (what the next run is told) must
	// not wait for this file I/O.
	for _, d := range ds {
		if sess := rs.sessionOfRun(d.RunID); sess != nil && d.Accepted {
			rs.recordLanded(d.RunID, sess.ID(), d.Path, d.LandedBefore, d.LandedAfter, d.Created)
		}
	}
}

// handOver puts what the editor did not take of an apply-mode run into
// review (agent.HandOver); it returns the number of proposals left and
// the note for the final message.
func (rs *Runs) handOver(runID string, cs *tools.Changeset, events *eventStream, status agent.Status, applied int, held map[string]string) (int, string) {
	paths, note := agent.HandOver(status, applied, held, rs.view.DisplayName)
	for _, path := range paths {
		if f, ok := cs.Get(path); ok {
			rs.review.Stage(runID, f)
			events.send(RunEvent{Kind: kindProposal, URI: string(uri.File(path)), Applied: core.Ptr(false)})
		}
	}
	return len(paths), note
}

// endRun reports the end of a run everywhere: progress end, the final
// runEvent, window/showMessage; then review is told the run is over.
func (rs *Runs) endRun(ctx context.Context, r *run, events *eventStream, prog *runProgress, out agent.Outcome, pending int, note string) {
	rs.saveSession(r.Session) // before the end is announced: a client may stop the server then
	answer := rs.writeAnswer(r, out)
	msg, tone := agent.EndSummary(r.ID, out, note)
	if answer != "" {
		what := "answer"
		if r.mode == ModePlan {
			what = "plan"
		}
		msg += fmt.Sprintf(" (the whole %s: %s)", what, answer)
	}
	prog.end(ctx, msg)
	fallback := RunEvent{Kind: out.Status.String()}
	if out.Status == agent.StatusFailed && out.Err != nil {
		fallback.Error = out.Err.Error()
	}
	answerURI := ""
	if answer != "" {
		answerURI = string(uri.File(answer))
	}
	events.finish(fallback, pending, answerURI)
	if err := rs.core.Client().ShowMessage(rs.ctx, &protocol.ShowMessageParams{Type: messageType(tone), Message: msg}); err != nil {
		rs.log.Debug("showMessage not sent", "err", err)
	}
	rs.showAnswer(r, answer)
	rs.log.Info("run ended", append(out.LogAttrs(), "pending", pending)...)
	rs.review.ForgetRun(r.ID)
}

// messageType shows a summary's tone as the LSP's message type.
func messageType(t agent.Tone) protocol.MessageType {
	switch t {
	case agent.ToneError:
		return protocol.MessageTypeError
	case agent.ToneWarning:
		return protocol.MessageTypeWarning
	}
	return protocol.MessageTypeInfo
}
