package review

import (
	"context"
	"fmt"
	"time"

	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/agent/desk"
	"github.com/agentls/agentls/agent/proposal"
	"github.com/agentls/agentls/internal/workspace"
)

// Checking that an accepted edit landed.
//
// An editor's applied:true is not enough: Neovim 0.7 silently skips an edit
// for a buffer newer than its version yet answers applied:true, and some
// VS Code versions apply a stale version. So an accept counts only once
// every document that was open when the edit went out shows it: the store
// saw the document become the expected text (Store.Landed, which stays
// true when the user typed on after the edit), or the buffer holds it. For
// files that were not open the editor's word is taken: their edit went to
// a buffer the server cannot see.
//
// Editors differ in when they send the edit's didChange. VS Code sends it
// before its answer to workspace/applyEdit; Neovim 0.7 debounces it
// (150 ms); eglot (Emacs 30), and by the same design Helix, kak-lsp and
// some Neovim configurations, send it only once the request that caused
// the edit (here agentls.accept) has its answer: eglot from an idle timer,
// which never runs while eglot-execute waits. Waiting inside the command
// could never succeed for those. The rule is about behaviour, never a
// client's name:
//
//   - The command waits for the landing at most verifyGrace (500 ms) after
//     the editor's answer. An edit that shows within it is settled in the
//     answer, as it always was: VS Code and Neovim see no change.
//   - An edit that does not show within the grace is answered with
//     applied:true and verifying:true, and checked on after the answer
//     (confirmLater) until verifyTimeout (2 s) after that answer (eglot
//     sends it from a 0.5 s idle timer that starts then). When it shows,
//     the accept is settled then: the store lets the hunks
//     go, and the decisions go to OnDecided (the runs' sessions: the next
//     run is told, the fate goes into the run's transcript, the revert
//     snapshot is kept). The store already announced the change when the
//     didChange landed it (agentls/proposalsChanged, code lens refresh,
//     preview diagnostics).
//   - When it never shows, the accept fails exactly as one that failed
//     inside the command (the hunks stay pending, or conflicted if the
//     user's typing reached them, with the reason as lastError) and the
//     user is told with window/showMessage (Warning): the command's answer
//     said applied, and clients only warn on applied:false. An edit that
//     shows after the bound (eglot whose user typed on for 2 s without a
//     pause) is then the user's own edit: the hunks it makes are resolved
//     and leave review, but nothing records them as accepted (no fate, no
//     revert snapshot).
//   - A session whose edits showed late once skips the grace from then on
//     (the editor evidently sends its didChange after the answer): an
//     eglot user waits half a second on the first accept only.
//   - Only a document that becomes exactly the expected text counts. A
//     didChange that brings another text (an editor that applied
//     something else, or dropped the edit and sent the user's typing) is
//     rebased as the user's edit and never recorded as accepted;
//     hunks it reached turn conflicted as for any user edit. The user's
//     typing after the edit, sent in the same didChange, is fine: the store
//     lands the plan at the content change that produced its result
//     (proposal.Store.DocumentChangedLSP) and rebases the rest.
//   - While an accept is being verified its hunks are in flight: another
//     accept of them, or of another hunk of a file whose edit has not
//     shown yet, is a conflict ("still being applied"); reject leaves them.

const (
	// defaultVerifyTimeout bounds the wait for every open document of an
	// applied edit to show it: from the editor's answer within the
	// command, and from the command's answer once it said verifying.
	defaultVerifyTimeout = 2 * time.Second
	// defaultVerifyGrace bounds the part of that wait the command's answer
	// waits for: Neovim 0.7's debounced didChange (150 ms) fits in it.
	defaultVerifyGrace = 500 * time.Millisecond
)

// landing is what checkLanding found.
type landing int

const (
	landingNow       landing = iota // the edit shows: settle it in the answer
	landingLate                     // not yet: answer, and confirmLater
	landingMissing                  // the bound passed without it showing
	landingCancelled                // the command was cancelled
)

// planWatch wakes an accept's check whenever a document of its plan may
// have changed: a buffer event of the view, or a change of the store's
// proposals for the path (the store lands the plan after the view took
// the didChange, so the view's event alone may come too early).
type planWatch struct {
	plan proposal.AcceptPlan
	wake chan struct{}
	// open are the plan's files that were open when the edit was sent
	// (path → expected text): their documents must show it.
	open  map[string]string
	stops []func()
}

// watchLanding starts watching plan's documents. Call it before sending
// the edit (the didChange may arrive before the editor's answer) and stop
// the watch once the accept is settled or failed.
func (v *Review) watchLanding(plan proposal.AcceptPlan) *planWatch {
	w := &planWatch{plan: plan, wake: make(chan struct{}, 1), open: map[string]string{}}
	for _, fe := range plan.Files {
		if _, open := v.view.Overlay(fe.Path); open {
			w.open[fe.Path] = fe.Expected
		}
	}
	ping := func(path string) {
		if _, ok := w.open[path]; ok {
			select {
			case w.wake <- struct{}{}:
			default:
			}
		}
	}
	w.stops = append(w.stops,
		v.view.Subscribe(func(ev workspace.Event) {
			if ev.Buffer {
				ping(ev.Path)
			}
		}),
		v.st.store.OnChange(ping))
	return w
}

// stop ends the watch.
func (w *planWatch) stop() {
	for _, s := range w.stops {
		s()
	}
}

// landed reports whether every document of the plan that was open when
// it was sent shows the edit: the store saw it become the expected text
// (whatever the user typed after), or the buffer is that text.
func (v *Review) landed(w *planWatch) bool {
	for path, expected := range w.open {
		if v.st.store.Landed(w.plan, path) {
			continue
		}
		if snap, open := v.view.Overlay(path); !open || snap.Text != expected {
			return false
		}
	}
	return true
}

// waitLanding waits until the plan's edit shows (true) or until passes
// (false), or ctx ends (false, ctx.Err()).
func (v *Review) waitLanding(ctx context.Context, w *planWatch, until time.Time) (bool, error) {
	timer := time.NewTimer(time.Until(until))
	defer timer.Stop()
	for {
		if v.landed(w) {
			return true, nil
		}
		select {
		case <-w.wake:
		case <-timer.C:
			return v.landed(w), nil
		case <-ctx.Done():
			return false, ctx.Err()
		}
	}
}

// checkLanding is the command's part of the check, after the editor
// answered applied:true: it waits for the edit to show at most the grace
// (no wait once the session's edits showed late), never past deadline.
func (v *Review) checkLanding(ctx context.Context, w *planWatch, deadline time.Time) landing {
	until := time.Now().Add(v.verifyGrace())
	if v.st.showsLate.Load() {
		until = time.Now()
	}
	final := !until.Before(deadline)
	if final {
		until = deadline
	}
	ok, err := v.waitLanding(ctx, w, until)
	switch {
	case err != nil:
		return landingCancelled
	case ok:
		return landingNow
	case final:
		return landingMissing
	}
	return landingLate
}

// confirmLater is the check of an accept answered with verifying:true. It
// runs on the server's context (ctx ends at exit) and owns w. When the
// edit shows by deadline the accept is settled and its decisions go to
// OnDecided; otherwise it fails as it would have in the command, and the
// user is told.
func (v *Review) confirmLater(ctx context.Context, w *planWatch, plan proposal.AcceptPlan, runs map[string]map[string]int, deadline time.Time) {
	defer w.stop()
	ok, err := v.waitLanding(ctx, w, deadline)
	if err != nil {
		// The server is stopping: what landed counts (the store dropped
		// those hunks already); the rest stays in review, as it is saved.
		ok = v.landed(w)
	}
	if ok {
		v.st.showsLate.Store(true)
		ds := v.st.desk.Settle(plan, runs)
		v.log.Debug("accept confirmed after the command's answer", "hunks", len(desk.PlanHunks(plan)))
		if f := v.st.decided.Load(); f != nil {
			(*f)(ds)
		}
		return
	}
	reason := reasonNotApplied
	if err != nil {
		reason = "agentls stopped before the edit showed in the editor"
	}
	v.st.store.Failed(plan, reason)
	if err != nil {
		return
	}
	back := 0
	for _, id := range desk.PlanHunks(plan) {
		if _, ok := v.st.store.Hunk(id); ok {
			back++
		}
	}
	msg := fmt.Sprintf("Agent: the accepted change to %s was not recorded: %s", desk.PlanFileNames(plan), reason)
	if back > 0 {
		msg += fmt.Sprintf("; %d change(s) are back in review", back)
	}
	v.log.Warn("accept not confirmed", "files", desk.PlanFileNames(plan), "reason", reason)
	if c := v.core.Client(); c != nil {
		if err := c.ShowMessage(ctx, &protocol.ShowMessageParams{Type: protocol.MessageTypeWarning, Message: msg}); err != nil {
			v.log.Warn("show accept failure", "err", err)
		}
	}
}

// OnDecided sets the function that receives the decisions of accepts
// settled after the command's answer (confirmLater): the wiring passes
// them to the runs' sessions, as it does with the command's own. Call it
// before Serve.
func (v *Review) OnDecided(f func([]agent.Decision)) { v.st.decided.Store(&f) }

// verifyTimeout bounds the wait, from the editor's answer, for an applied
// edit to show.
func (v *Review) verifyTimeout() time.Duration {
	if d := time.Duration(v.st.verifyWait.Load()); d > 0 {
		return d
	}
	return defaultVerifyTimeout
}

// verifyGrace bounds the command's own wait for an applied edit to show.
func (v *Review) verifyGrace() time.Duration {
	if d := time.Duration(v.st.verifyGrace.Load()); d > 0 {
		return d
	}
	return defaultVerifyGrace
}
