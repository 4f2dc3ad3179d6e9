package agent

import (
	"context"
	"errors"
	"sync"
	"time"
)

// A face that holds sessions open on a connection (ACP: session/new, load,
// resume) keeps them in a LiveSessions table, each with its Turns. The
// rules live here so that every such face bounds its memory and abandons
// prompts the same way.

// Turns is the prompt in progress of a live session. One runs at a time:
// a newer prompt cancels the one in progress and awaits its end first (a
// client that sends a second prompt has abandoned the first, and two turns
// must never write one conversation at once). It also records when the
// session was last used, which orders what a full table drops.
type Turns struct {
	mu   sync.Mutex
	cur  *liveTurn // nil when no prompt is in progress
	used time.Time
}

type liveTurn struct {
	cancel context.CancelFunc
	done   chan struct{}
}

// Touch records that the session was just used.
func (t *Turns) Touch() {
	t.mu.Lock()
	t.used = time.Now()
	t.mu.Unlock()
}

// LastUsed is when the session was last touched or began a turn.
func (t *Turns) LastUsed() time.Time {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.used
}

// Idle reports whether no prompt is in progress.
func (t *Turns) Idle() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.cur == nil
}

// Begin starts a turn, cancelling and awaiting the one in progress first.
// It returns the turn's context (cancelled by Cancel, a newer turn or
// ctx) and the function that ends the turn; it fails only when ctx ends
// while the earlier turn is still winding down.
func (t *Turns) Begin(ctx context.Context) (context.Context, func(), error) {
	t.Touch()
	for {
		t.mu.Lock()
		cur := t.cur
		if cur == nil {
			tctx, cancel := context.WithCancel(ctx)
			lt := &liveTurn{cancel: cancel, done: make(chan struct{})}
			t.cur = lt
			t.mu.Unlock()
			return tctx, func() {
				cancel()
				t.mu.Lock()
				if t.cur == lt {
					t.cur = nil
				}
				t.mu.Unlock()
				close(lt.done)
			}, nil
		}
		t.mu.Unlock()
		cur.cancel()
		select {
		case <-cur.done:
		case <-ctx.Done():
			return nil, nil, ctx.Err()
		}
	}
}

// Cancel cancels the turn in progress, if any.
func (t *Turns) Cancel() {
	t.mu.Lock()
	cur := t.cur
	t.mu.Unlock()
	if cur != nil {
		cur.cancel()
	}
}

// Wait waits for the turn in progress to end, at most limit (and not past
// ctx): work that ignores cancellation must not hang a close or a drop.
// It reports whether no turn is left in progress.
func (t *Turns) Wait(ctx context.Context, limit time.Duration) bool {
	t.mu.Lock()
	cur := t.cur
	t.mu.Unlock()
	if cur == nil {
		return true
	}
	timer := time.NewTimer(limit)
	defer timer.Stop()
	select {
	case <-cur.done:
		return true
	case <-ctx.Done():
	case <-timer.C:
	}
	return false
}

// Live is what a LiveSessions table holds: a session with its Turns (most
// simply embedded) and what letting it go means for the face.
type Live interface {
	comparable
	Touch()
	Idle() bool
	LastUsed() time.Time
	Cancel()
	Wait(ctx context.Context, limit time.Duration) bool
	// Release saves the session and frees what it holds (its MCP servers);
	// the table calls it after the session's turn ended or Wait gave up.
	Release()
}

// ErrClosing: the table's face is shutting down and takes no session.
var ErrClosing = errors.New("agentls is shutting down")

// LiveSessions is a face's table of live sessions by id. It holds at most
// Max: beyond, the least recently used idle ones are dropped (a session
// with a prompt in progress never is; a dropped one was saved and can be
// opened again).
type LiveSessions[S Live] struct {
	// Max bounds the sessions held (at least one).
	Max int
	// StopWait bounds the wait for a dropped or closed session's turn.
	StopWait time.Duration

	mu      sync.Mutex
	byID    map[string]S
	closing bool
}

// Put makes s, just used, the session id, replacing (and releasing)
// another under the same id, and drops least recently used idle sessions
// beyond Max. It fails with ErrClosing once Close was called.
func (t *LiveSessions[S]) Put(id string, s S) error {
	s.Touch()
	t.mu.Lock()
	if t.closing {
		t.mu.Unlock()
		return ErrClosing
	}
	if t.byID == nil {
		t.byID = map[string]S{}
	}
	var drop []S
	if old, ok := t.byID[id]; ok && old != s {
		drop = append(drop, old)
	}
	t.byID[id] = s
	for len(t.byID) > max(t.Max, 1) {
		oldID, found := "", false
		var oldest S
		for cid, c := range t.byID {
			if c != s && c.Idle() && (!found || c.LastUsed().Before(oldest.LastUsed())) {
				oldID, oldest, found = cid, c, true
			}
		}
		if !found {
			break
		}
		delete(t.byID, oldID)
		drop = append(drop, oldest)
	}
	t.mu.Unlock()
	for _, old := range drop {
		t.stop(context.Background(), old)
	}
	return nil
}

// Get returns session id.
func (t *LiveSessions[S]) Get(id string) (S, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	s, ok := t.byID[id]
	return s, ok
}

// Drop cancels s's turn, awaits it (bounded by StopWait and ctx), forgets
// s unless another session took its id since, and releases it.
func (t *LiveSessions[S]) Drop(ctx context.Context, id string, s S) {
	t.mu.Lock()
	if cur, ok := t.byID[id]; ok && cur == s {
		delete(t.byID, id)
	}
	t.mu.Unlock()
	t.stop(ctx, s)
}

func (t *LiveSessions[S]) stop(ctx context.Context, s S) {
	s.Cancel()
	s.Wait(ctx, t.StopWait)
	s.Release()
}

// Close refuses further sessions, cancels every turn in progress and
// returns the sessions held, for the face to wait on its work and free
// them.
func (t *LiveSessions[S]) Close() []S {
	t.mu.Lock()
	t.closing = true
	out := make([]S, 0, len(t.byID))
	for _, s := range t.byID {
		out = append(out, s)
	}
	t.mu.Unlock()
	for _, s := range out {
		s.Cancel()
	}
	return out
}
