package desk

import (
	"context"
	"time"

	"github.com/agentls/agentls/agent"
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
//   - The command waits for the landing at most the grace
//     (DefaultLandingGrace, 500 ms) after the editor's answer
//     (Landing.Check). An edit that shows within it is settled in the
//     answer, as it always was: VS Code and Neovim see no change.
//   - An edit that does not show within the grace is answered with
//     applied:true and verifying:true, and checked on after the answer
//     (Landing.Confirm) until the timeout (DefaultLandingTimeout, 2 s)
//     after that answer (eglot sends it from a 0.5 s idle timer that
//     starts then). When it shows, the accept is settled then: the store
//     lets the hunks go, and the decisions go to the runs' sessions (the
//     next run is told, the fate goes into the run's transcript, the
//     revert snapshot is kept). The store already announced the change
//     when the didChange landed it (for the LSP face:
//     agentls/proposalsChanged, code lens refresh, preview diagnostics).
//   - When it never shows, the accept fails exactly as one that failed
//     inside the command (the hunks stay pending, or conflicted if the
//     user's typing reached them, with the reason as lastError) and the
//     user is told (the LSP face: window/showMessage, Warning): the
//     command's answer said applied, and clients only warn on
//     applied:false. An edit that shows after the bound (eglot whose user
//     typed on for 2 s without a pause) is then the user's own edit: the
//     hunks it makes are resolved and leave review, but nothing records
//     them as accepted (no fate, no revert snapshot).
//   - A connection whose edits showed late once skips the grace from then
//     on (the editor evidently sends its didChange after the answer): an
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
	// DefaultLandingTimeout bounds the wait for every open document of an
	// applied edit to show it: from the editor's answer within the
	// command, and from the command's answer once it said verifying.
	DefaultLandingTimeout = 2 * time.Second
	// DefaultLandingGrace bounds the part of that wait the command's
	// answer waits for: Neovim 0.7's debounced didChange (150 ms) fits in
	// it.
	DefaultLandingGrace = 500 * time.Millisecond
)

// ReasonNotShown is the failure of an accept the editor said it applied
// but whose documents never showed it.
const ReasonNotShown = "client reported applied but the document does not contain the change"

// reasonStopped is the failure of an accept still being checked when the
// server stopped.
const reasonStopped = "agentls stopped before the edit showed in the editor"

// LandingBounds are the bounds of a landing check; zero means the
// default (tests shorten them).
type LandingBounds struct {
	Timeout, Grace time.Duration
}

func (b LandingBounds) timeout() time.Duration {
	if b.Timeout > 0 {
		return b.Timeout
	}
	return DefaultLandingTimeout
}

func (b LandingBounds) grace() time.Duration {
	if b.Grace > 0 {
		return b.Grace
	}
	return DefaultLandingGrace
}

// LandingCheck is what Landing.Check found.
type LandingCheck int

const (
	LandingNow       LandingCheck = iota // the edit shows: settle it in the answer
	LandingLate                          // not yet: answer verifying, and Confirm
	LandingMissing                       // the bound passed without it showing
	LandingCancelled                     // the command was cancelled
)

// Landing watches an accept plan's documents until they show its edit:
// it wakes on a buffer event of the view, or on a change of the store's
// proposals for the path (the store lands the plan after the view took
// the didChange, so the view's event alone may come too early).
type Landing struct {
	d      *Desk
	view   *workspace.View
	plan   proposal.AcceptPlan
	bounds LandingBounds
	wake   *waker
	// open are the plan's files that were open when the edit was sent
	// (path → expected text): their documents must show it.
	open map[string]string
	// later is when Confirm gives up (set by Check when it says late).
	later time.Time
}

// WatchLanding starts watching plan's documents in view. Call it before
// sending the edit (the didChange may arrive before the editor's answer),
// and Stop it once the accept is settled or failed (Confirm stops it).
func (d *Desk) WatchLanding(view *workspace.View, plan proposal.AcceptPlan, bounds LandingBounds) *Landing {
	w := &Landing{d: d, view: view, plan: plan, bounds: bounds, wake: newWaker(), open: map[string]string{}}
	for _, fe := range plan.Files {
		if _, open := view.Overlay(fe.Path); open {
			w.open[fe.Path] = fe.Expected
		}
	}
	ping := func(path string) {
		if _, ok := w.open[path]; ok {
			w.wake.ping()
		}
	}
	w.wake.stops = append(w.wake.stops,
		view.Subscribe(func(ev workspace.Event) {
			if ev.Buffer {
				ping(ev.Path)
			}
		}),
		d.store.OnChange(ping))
	return w
}

// Stop ends the watch.
func (w *Landing) Stop() { w.wake.stop() }

// shows reports whether every document of the plan that was open when
// it was sent shows the edit: the store saw it become the expected text
// (whatever the user typed after), or the buffer is that text.
func (w *Landing) shows() bool {
	for path, expected := range w.open {
		if w.d.store.Landed(w.plan, path) {
			continue
		}
		if snap, open := w.view.Overlay(path); !open || snap.Text != expected {
			return false
		}
	}
	return true
}

// Check is the command's part of the check, right after the editor
// answered applied:true: it waits for the edit to show at most the grace
// (no wait once the connection's edits showed late), never past the
// timeout.
func (w *Landing) Check(ctx context.Context) LandingCheck {
	now := time.Now()
	deadline := now.Add(w.bounds.timeout())
	until := now.Add(w.bounds.grace())
	if w.d.showsLate.Load() {
		until = now
	}
	final := !until.Before(deadline)
	if final {
		until = deadline
	}
	ok, err := w.wake.until(ctx, until, w.shows)
	switch {
	case err != nil:
		return LandingCancelled
	case ok:
		return LandingNow
	case final:
		return LandingMissing
	}
	// The editor may send the didChange only once it has the answer, and
	// from a timer: Confirm gives it the whole bound from here.
	w.later = time.Now().Add(w.bounds.timeout())
	return LandingLate
}

// Confirmation is how an accept checked after its answer ended.
type Confirmation struct {
	// Shown: the edit showed, the accept is settled and Decisions are
	// for the runs' sessions.
	Shown     bool
	Decisions []agent.Decision
	// Otherwise the plan failed with Reason, and Back of its hunks are in
	// review again. Stopped: ctx ended first (nobody is left to tell).
	Reason  string
	Back    int
	Stopped bool
}

// Confirm is the check of an accept answered with verifying:true (after
// Check said LandingLate). It runs on the server's context (ctx ends at
// exit) and owns w. When the edit shows in time the accept is settled
// (runs from PlanRuns, as for Settle); otherwise the plan fails as it
// would have in the command.
func (w *Landing) Confirm(ctx context.Context, runs map[string]map[string]int) Confirmation {
	defer w.Stop()
	ok, err := w.wake.until(ctx, w.later, w.shows)
	if err != nil {
		// The server is stopping: what landed counts (the store dropped
		// those hunks already); the rest stays in review, as it is saved.
		ok = w.shows()
	}
	if ok {
		w.d.showsLate.Store(true)
		return Confirmation{Shown: true, Decisions: w.d.Settle(w.plan, runs)}
	}
	c := Confirmation{Reason: ReasonNotShown, Stopped: err != nil}
	if c.Stopped {
		c.Reason = reasonStopped
	}
	w.d.store.Failed(w.plan, c.Reason)
	for _, id := range PlanHunks(w.plan) {
		if _, ok := w.d.store.Hunk(id); ok {
			c.Back++
		}
	}
	return c
}

// waker wakes a wait when something it watches may have changed.
type waker struct {
	c     chan struct{}
	stops []func()
}

func newWaker() *waker { return &waker{c: make(chan struct{}, 1)} }

func (w *waker) ping() {
	select {
	case w.c <- struct{}{}:
	default:
	}
}

func (w *waker) stop() {
	for _, s := range w.stops {
		s()
	}
}

// until waits until done reports true (true) or deadline passes (done's
// last word), or ctx ends (false, ctx.Err()). Subscribing before the
// first check means no change can slip between.
func (w *waker) until(ctx context.Context, deadline time.Time, done func() bool) (bool, error) {
	timer := time.NewTimer(time.Until(deadline))
	defer timer.Stop()
	for {
		if done() {
			return true, nil
		}
		select {
		case <-w.c:
		case <-timer.C:
			return done(), nil
		case <-ctx.Done():
			return false, ctx.Err()
		}
	}
}
