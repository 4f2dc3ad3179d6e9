package acpserver

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	acp "github.com/coder/acp-go-sdk"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/internal/text"
	"github.com/agentls/agentls/tools"
)

// End-of-turn review. With checks configured, asking about each change as
// it is staged would put to the person (and, once allowed, write) code
// the checks have not judged yet: the model's first attempt, which the
// checks then fail and the model fixes in a second change. So a turn
// whose session has checks holds its staged changes: they sit in the
// proposal store (seen by the run's commands and checks through the
// proposal view, by session/load and by LSP editors), the checks run at
// the run's end and send failures back to the model as over LSP, and only
// when the run finished with no check failing is each file asked about
// once, with its final diff and the checks' results. When a check still
// fails, or the run stopped before its checks could pass, nothing is
// asked or written: the changes stay pending, and this connection does not
// ask about them at the next prompt either (reviewPending), since that
// would put failing code to the person all the same.
//
// Without checks each change is still asked about at once: there is no
// verdict to wait for, and an early answer (a rejection with its reason)
// steers the rest of the run, as in the ACP agents people know.

// heldChange is one file a turn staged a change to, waiting for its end.
type heldChange struct{ runID, path string }

// holdsChanges reports whether a turn with that many configured checks,
// in mode, holds its changes for the end of the turn.
func holdsChanges(checks int, mode string) bool {
	return checks > 0 && mode != modePlan
}

// holdChange notes a staged change for the end of the turn.
func (te *turnEvents) holdChange(runID, path string) {
	if h := (heldChange{runID, path}); !slices.Contains(te.held, h) {
		te.held = append(te.held, h)
	}
}

// reviewHeld asks about the turn's held changes now that its run is over,
// or keeps them pending when its checks did not pass. It returns what the
// turn's last message should add ("" nothing).
func (te *turnEvents) reviewHeld(out agent.Outcome) string {
	ss := te.ss
	var files []heldChange
	for _, h := range te.held {
		if p, ok := ss.srv.review.Proposal(h.runID, h.path); ok && p.HasPending() {
			files = append(files, h)
		}
	}
	if len(files) == 0 {
		return ""
	}
	failing, _ := tools.Unpassed(out.Checks) // one that could not run judged nothing: the person reads why with the change
	if out.Status != agent.StatusFinished || len(failing) > 0 {
		ss.holdPending(files)
		why := "the run stopped before its checks passed"
		if len(failing) > 0 {
			why = "checks still fail (" + strings.Join(failing, ", ") + ")"
		}
		return fmt.Sprintf("agentls: %s, so nothing was asked about or written: %s stay pending in the session (%s). Ask for a fix, or review them from an editor connected over LSP.",
			why, text.Plural(len(files), "changed file"), ss.displayList(files))
	}
	summary := checkSummary(out.Checks)
	for _, h := range files {
		if te.ctx.Err() != nil {
			break
		}
		p, ok := ss.srv.review.Proposal(h.runID, h.path)
		if !ok {
			continue
		}
		id := ss.nextToolID("review")
		ss.update(te.ctx, acp.StartToolCall(id, "Review "+ss.display(h.path),
			acp.WithStartKind(acp.ToolKindEdit), acp.WithStartStatus(acp.ToolCallStatusPending),
			acp.WithStartContent([]acp.ToolCallContent{diffContent(p.Path, p.Text, p.Result(), p.Created && p.Text == ""), acp.ToolContent(acp.TextBlock(summary))}),
			acp.WithStartLocations([]acp.ToolCallLocation{{Path: p.Path, Line: acp.Ptr(firstLine(p))}})))
		res := ss.reviewChange(te.ctx, id, h.runID, h.path, summary)
		status := acp.ToolCallStatusCompleted
		if res.written == 0 && !res.pending {
			status = acp.ToolCallStatusFailed
		}
		ss.update(te.ctx, acp.UpdateToolCall(id, acp.WithUpdateStatus(status),
			acp.WithUpdateContent([]acp.ToolCallContent{acp.ToolContent(acp.TextBlock(res.note))})))
	}
	if errors.Is(context.Cause(te.ctx), agent.ErrWallClock) {
		return fmt.Sprintf("agentls: the run stopped: %v: no answer about its changes within maxWallClockSeconds; what was not decided stays pending in the session.", agent.ErrWallClock)
	}
	return ""
}

// checkSummary is what the checks said about the turn's final changes,
// for each file's permission request.
func checkSummary(cs []tools.CheckResult) string {
	if len(cs) == 0 {
		return "No configured check applies to these changes."
	}
	var b strings.Builder
	b.WriteString("Checks on the turn's final changes:")
	for _, c := range cs {
		switch {
		case c.Passed:
			b.WriteString("\n✓ " + agent.CheckLine(c))
		case c.NotRun:
			b.WriteString("\n⚠ " + agent.CheckLine(c))
		}
	}
	return b.String()
}

// holdPending remembers changes held because their checks did not pass,
// so that this connection's next prompt does not ask about them.
func (ss *session) holdPending(files []heldChange) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if ss.held == nil {
		ss.held = map[heldChange]bool{}
	}
	for _, h := range files {
		ss.held[h] = true
	}
}

// isHeld reports whether runID's change to path was held by failing
// checks.
func (ss *session) isHeld(runID, path string) bool {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	return ss.held[heldChange{runID, path}]
}

// displayList names the files, at most three.
func (ss *session) displayList(files []heldChange) string {
	return strings.Join(text.FirstOf(len(files), 3, func(i int) string { return ss.display(files[i].path) }), ", ")
}
