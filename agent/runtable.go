package agent

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
)

// RunTable is a long-lived face's table of runs in progress (the LSP
// server's; ACP holds one prompt per session in Turns): a run is reserved
// in its session before it starts (Begin), found by its id or by a
// second key the face gives it (the LSP progress token) to be cancelled,
// and takes its concurrency slot here (RunSlots). A run leaves the table
// when it stops working, so cancelling a finished run finds nothing.
type RunTable struct {
	RunSlots

	mu      sync.Mutex
	runs    map[string]*ActiveRun
	aliases map[string]*ActiveRun
}

// ActiveRun is one run of a RunTable: what cancelling it and finding its
// session need.
type ActiveRun struct {
	ID      string
	Session *Session

	cancel    context.CancelFunc
	cancelled atomic.Bool
	alias     string // under RunTable.mu
}

// BusyError is Begin's refusal: the session has another run in progress.
// It is ErrSessionBusy to errors.Is.
type BusyError struct{ Session, Run string }

func (e *BusyError) Error() string {
	return fmt.Sprintf("session %s has run %s in progress; wait for it or cancel it", e.Session, e.Run)
}

// Is makes a BusyError ErrSessionBusy.
func (e *BusyError) Is(target error) bool { return target == ErrSessionBusy }

// Begin reserves sess for a new run (Session.Reserve: one run at a time
// per session, and review decisions find the session while the run
// waits for its slot) and gives the run a context under parent that Stop
// cancels. The run is not in the table until Add: a run that fails to
// prepare is given up with Done and was never cancellable.
func (t *RunTable) Begin(parent context.Context, sess *Session) (*ActiveRun, context.Context, error) {
	id := NewRunID()
	if busy := sess.Reserve(id); busy != "" {
		return nil, nil, &BusyError{Session: sess.ID(), Run: busy}
	}
	ctx, cancel := context.WithCancel(parent)
	return &ActiveRun{ID: id, Session: sess, cancel: cancel}, ctx, nil
}

// Done ends the run's hold: its context is cancelled and its session is
// free for the next run. A face calls it once the run is over (after its
// end is saved and told), or when it gave up before the run started.
func (r *ActiveRun) Done() {
	r.cancel()
	r.Session.Release(r.ID)
}

// Stop cancels the run; it reports whether this call did it (false when
// it was cancelled already), so a face reports one cancellation once.
func (r *ActiveRun) Stop() bool {
	if !r.cancelled.CompareAndSwap(false, true) {
		return false
	}
	r.cancel()
	return true
}

// Add puts r in the table: from now on Get and Cancel find it.
func (t *RunTable) Add(r *ActiveRun) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.runs == nil {
		t.runs, t.aliases = map[string]*ActiveRun{}, map[string]*ActiveRun{}
	}
	t.runs[r.ID] = r
}

// Remove takes r out of the table, with its alias: a finished run is no
// longer cancelled by id nor by alias (the LSP client may reuse a token).
func (t *RunTable) Remove(r *ActiveRun) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.runs[r.ID] == r {
		delete(t.runs, r.ID)
	}
	if r.alias != "" && t.aliases[r.alias] == r {
		delete(t.aliases, r.alias)
	}
}

// Get is the run in progress with id, nil when none.
func (t *RunTable) Get(id string) *ActiveRun {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.runs[id]
}

// Alias gives r a second key (the LSP progress token), unless r has left
// the table already: an alias of a finished run would outlive it.
func (t *RunTable) Alias(r *ActiveRun, key string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.runs[r.ID] == r {
		r.alias = key
		t.aliases[key] = r
	}
}

// ByAlias is the run in progress with the alias key, nil when none.
func (t *RunTable) ByAlias(key string) *ActiveRun {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.aliases[key]
}

// Cancel stops the run in progress with id; it reports whether this call
// stopped it (false: unknown, finished, or cancelled already).
func (t *RunTable) Cancel(id string) bool {
	if r := t.Get(id); r != nil {
		return r.Stop()
	}
	return false
}

// SessionOf is the session of runID: the run in progress's, else the one
// of sessions that ran it (nil sessions: none).
func (t *RunTable) SessionOf(runID string, sessions *Sessions) *Session {
	if r := t.Get(runID); r != nil && r.Session != nil {
		return r.Session
	}
	if sessions == nil {
		return nil
	}
	return sessions.OfRun(runID)
}
