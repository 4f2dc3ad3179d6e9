package acpserver

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/agent/desk"
	"github.com/agentls/agentls/internal/text"
)

// End-of-turn review (the rules: agent/desk turn.go). With checks
// configured a turn holds its staged changes: they sit in the proposal
// store (seen by the run's commands and checks through the proposal view,
// by session/load and by LSP editors), the checks run at the run's end
// and send failures back to the model, and desk.EndOfTurn says whether
// each file is then asked about once (session/request_permission, with
// its final diff and the checks' results), written unasked (apply mode,
// "allow always"), or kept pending; kept ones are not asked about at this
// connection's next prompts either (reviewPending).

// heldChange is one file a turn holds for its end.
type heldChange = desk.Held

// reviewHeld asks about the turn's held changes now that its run is over,
// or keeps them pending. It returns what the turn's last message should
// add ("" nothing).
func (te *turnEvents) reviewHeld(out agent.Outcome) string {
	ss := te.ss
	files := ss.srv.review.StillPending(te.held)
	if len(files) == 0 {
		return ""
	}
	ss.mu.Lock()
	asks := !desk.WritesUnasked(ss.effectiveMode(), ss.autoAllow)
	ss.mu.Unlock()
	v := desk.EndOfTurn(out, asks)
	if v.Do == desk.Keep {
		ss.holdPending(files)
		return fmt.Sprintf("agentls: %s, so nothing was asked about or written: %s stay pending in the session (%s). Ask for a fix, or review them from an editor connected over LSP.",
			v.Why(), text.Plural(len(files), "changed file"), ss.displayList(files))
	}
	summary := desk.CheckSummary(out.Checks)
	for _, h := range files {
		if te.ctx.Err() != nil {
			break
		}
		p, ok := ss.srv.review.Proposal(h.RunID, h.Path)
		if !ok {
			continue
		}
		ss.askPending(te.ctx, ss.nextToolID("review"), "Review "+ss.display(h.Path), p, summary)
	}
	if errors.Is(context.Cause(te.ctx), agent.ErrWallClock) {
		return fmt.Sprintf("agentls: the run stopped: %v: no answer about its changes within maxWallClockSeconds; what was not decided stays pending in the session.", agent.ErrWallClock)
	}
	return ""
}

// holdPending remembers changes kept pending because their checks did
// not pass, so that this connection's next prompt does not ask about them
// (desk.Desk.EarlierPending).
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

// isHeld reports whether h was kept pending by its checks.
func (ss *session) isHeld(h heldChange) bool {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	return ss.held[h]
}

// displayList names the files, at most three.
func (ss *session) displayList(files []heldChange) string {
	return strings.Join(text.FirstOf(len(files), 3, func(i int) string { return ss.display(files[i].Path) }), ", ")
}
