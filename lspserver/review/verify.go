package review

import (
	"context"
	"fmt"
	"time"

	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/agent/desk"
	"github.com/agentls/agentls/agent/proposal"
)

// Checking that an accepted edit landed: the rule, and the editors'
// behaviours it is made for, live with the desk (agent/desk/landing.go).
// The face sends the edit (accept.go), answers verifying:true when the
// check says the edit shows late, and tells the user when it never shows.

// landingBounds are the bounds of an accept's landing check (zero: the
// desk's defaults; tests shorten them).
func (v *Review) landingBounds() desk.LandingBounds {
	return desk.LandingBounds{Timeout: time.Duration(v.st.verifyWait.Load()), Grace: time.Duration(v.st.verifyGrace.Load())}
}

// confirmLater is the check of an accept answered with verifying:true. It
// runs on the server's context (ctx ends at exit) and owns w. When the
// edit shows in time its decisions go to OnDecided; otherwise the user is
// told, since the command's answer said applied.
func (v *Review) confirmLater(ctx context.Context, w *desk.Landing, plan proposal.AcceptPlan, runs map[string]map[string]int) {
	c := w.Confirm(ctx, runs)
	switch {
	case c.Shown:
		v.log.Debug("accept confirmed after the command's answer", "hunks", len(desk.PlanHunks(plan)))
		if f := v.st.decided.Load(); f != nil {
			(*f)(c.Decisions)
		}
		return
	case c.Stopped:
		return
	}
	msg := fmt.Sprintf("Agent: the accepted change to %s was not recorded: %s", desk.PlanFileNames(plan), c.Reason)
	if c.Back > 0 {
		msg += fmt.Sprintf("; %d change(s) are back in review", c.Back)
	}
	v.log.Warn("accept not confirmed", "files", desk.PlanFileNames(plan), "reason", c.Reason)
	if cl := v.core.Client(); cl != nil {
		if err := cl.ShowMessage(ctx, &protocol.ShowMessageParams{Type: protocol.MessageTypeWarning, Message: msg}); err != nil {
			v.log.Warn("show accept failure", "err", err)
		}
	}
}

// OnDecided sets the function that receives the decisions of accepts
// settled after the command's answer (confirmLater): the wiring passes
// them to the runs' sessions, as it does with the command's own. Call it
// before Serve.
func (v *Review) OnDecided(f func([]agent.Decision)) { v.st.decided.Store(&f) }
