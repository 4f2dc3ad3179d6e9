package agent

import (
	"errors"
	"fmt"
	"log/slog"
	"sort"
	"sync"
	"time"

	"github.com/agentls/agentls/agent/proposal"
	"github.com/agentls/agentls/internal/text"
)

// Sessions is one workspace's table of sessions for a long-lived face (the
// LSP server): the sessions in memory, restored from the workspace's
// SessionStore on first use, adopted when another agentls (agentls acp,
// agentls run) saved one since, saved with merge-on-write, bounded in
// memory. The face keeps review (ReviewMerge: restored proposals join it)
// and maps these calls onto its protocol.
type Sessions struct {
	// Store is where sessions are saved; nil keeps them in memory only.
	Store *SessionStore
	// Review receives the proposals of sessions read from the store.
	Review ReviewMerge
	// Pending lists the proposals in review (all sessions').
	Pending func() []proposal.Proposal
	// SupersedeNew lets a restored new file's proposal replace the earlier
	// ones of its session again (RestoreSaved); it runs under the table's
	// lock, so it must not call back into the table.
	SupersedeNew func(sess *Session, path, runID string)
	Log          *slog.Logger

	saver SessionSaver

	mu   sync.Mutex
	byID map[string]*Session
	// redact removes the configured API key (and secret-looking strings)
	// from saved conversations; set from each run's configuration.
	redact *Redactor
	// latest is the most recently started (or, at start, saved) session.
	latest, latestTitle string
}

// ErrNoSession: no session with that id in the workspace.
var ErrNoSession = errors.New("no such session")

// ErrSessionBusy: the session has a run in progress.
var ErrSessionBusy = errors.New("the session has a run in progress; cancel it first")

// MaxLiveSessions bounds the sessions a table keeps in memory; the least
// recently updated ones without a run in progress are dropped first (a
// saved one can still be continued: Get loads it again).
const MaxLiveSessions = 2 * DefaultMaxSessions

func (t *Sessions) log() *slog.Logger {
	if t.Log == nil {
		return slog.New(slog.DiscardHandler)
	}
	return t.Log
}

// Restore reads the workspace's saved sessions into the table and their
// proposals into review; it reports how many proposals joined.
func (t *Sessions) Restore() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.init()
	if t.Store == nil {
		return 0
	}
	restored := t.Store.Load()
	if len(restored) > 0 { // newest first
		t.latest, t.latestTitle = restored[0].Session.ID(), restored[0].Session.Info().Title
	}
	n := 0
	for _, r := range restored {
		n += t.adopt(r)
	}
	if len(restored) > 0 {
		t.log().Info("sessions restored", "sessions", len(restored), "proposals", n, "dir", t.Store.Dir())
	}
	return n
}

func (t *Sessions) init() {
	if t.byID == nil {
		t.byID = map[string]*Session{}
		t.saver.Store, t.saver.Log = t.Store, t.Log
	}
}

// adopt makes a session read from the store one of the table's, its
// proposals joining review (under t.mu).
func (t *Sessions) adopt(r Restored) int {
	id := r.Session.ID()
	t.byID[id] = r.Session
	t.saver.Loaded(id, r.Proposals)
	return RestoreSaved(r, t.Review, t.SupersedeNew)
}

// Get returns the session to run in: a new one for id "", else the known
// session (refreshed when another agentls continued it since), else one
// saved by another agentls; ErrNoSession when there is none.
func (t *Sessions) Get(id string) (*Session, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.init()
	if id == "" {
		sess := NewSession("")
		t.byID[sess.ID()] = sess
		t.bound()
		return sess, nil
	}
	if sess, ok := t.byID[id]; ok {
		if t.Store != nil && t.Store.Refresh(sess) {
			t.log().Info("session continued from its newer file", "session", id)
		}
		return sess, nil
	}
	if t.Store != nil {
		if r, err := t.Store.LoadOne(id); err == nil {
			t.adopt(r)
			return r.Session, nil
		}
	}
	return nil, fmt.Errorf("%w: %q", ErrNoSession, id)
}

// Started records sess as the latest session (a run just started in it,
// for prompt) and the API key to keep out of saved sessions.
func (t *Sessions) Started(sess *Session, prompt, apiKey string) {
	title := sess.Info().Title
	if title == "" {
		title = text.Clip(text.FirstLine(prompt), 80)
	}
	t.mu.Lock()
	t.latest, t.latestTitle = sess.ID(), title
	t.redact = NewRedactor(apiKey)
	t.mu.Unlock()
}

// Latest returns the id and title of the latest session ("" if none),
// without reading or listing anything.
func (t *Sessions) Latest() (id, title string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.latest, t.latestTitle
}

// CatchUp reads the sessions another agentls saved since this table read
// them: new ones are adopted, known ones refreshed; then it returns every
// session of the table.
func (t *Sessions) CatchUp() []*Session {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.init()
	if t.Store != nil {
		for _, r := range t.Store.Load() {
			if sess, ok := t.byID[r.Session.ID()]; ok {
				t.Store.Refresh(sess)
				continue
			}
			t.adopt(r)
		}
		t.bound()
	}
	out := make([]*Session, 0, len(t.byID))
	for _, sess := range t.byID {
		out = append(out, sess)
	}
	return out
}

// OfRun finds the session runID belongs to among the table's.
func (t *Sessions) OfRun(runID string) *Session {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, sess := range t.byID {
		if sess.HasRun(runID) {
			return sess
		}
	}
	return nil
}

// Save writes sess with its proposals in review, merged with what another
// agentls saved meanwhile; a session deleted meanwhile is not written back.
func (t *Sessions) Save(sess *Session) {
	if t.Store == nil || sess == nil {
		return
	}
	t.mu.Lock()
	known := t.byID[sess.ID()] == sess
	redact := t.redact
	t.mu.Unlock()
	if !known {
		return
	}
	var pending []proposal.Proposal
	if t.Pending != nil {
		pending = t.Pending()
	}
	if err := t.saver.Save(sess, pending, redact, t.Review); err != nil {
		t.log().Warn("session not saved", "session", sess.ID(), "err", err)
	}
}

// Delete forgets session id and removes its file; its proposals stay in
// review until decided. It reports whether the table knew the session.
func (t *Sessions) Delete(id string) (bool, error) {
	t.mu.Lock()
	sess, ok := t.byID[id]
	if ok && sess.Active() != "" {
		t.mu.Unlock()
		return false, ErrSessionBusy
	}
	delete(t.byID, id)
	t.saver.Forget(id)
	if t.latest == id {
		t.latest, t.latestTitle = "", ""
	}
	t.mu.Unlock()
	if t.Store != nil {
		if err := t.Store.Delete(id); err != nil {
			return ok, err
		}
	}
	return ok, nil
}

// Clear deletes every session without a run in progress; it returns their
// ids.
func (t *Sessions) Clear() ([]string, error) {
	t.mu.Lock()
	var ids []string
	for id, sess := range t.byID {
		if sess.Active() == "" {
			ids = append(ids, id)
			delete(t.byID, id)
			t.saver.Forget(id)
		}
	}
	if _, ok := t.byID[t.latest]; !ok {
		t.latest, t.latestTitle = "", ""
	}
	t.mu.Unlock()
	if t.Store != nil {
		for _, id := range ids {
			if err := t.Store.Delete(id); err != nil {
				return ids, err
			}
		}
	}
	return ids, nil
}

// Listed is one session as listings show it.
type Listed struct {
	SessionInfo
	// Pending counts the session's hunks awaiting review.
	Pending int
}

// List returns the sessions that ran at least once (those another agentls
// saved since included), newest first, with their hunks in review.
func (t *Sessions) List() []Listed {
	list := t.CatchUp()
	pending := map[string]int{}
	if t.Pending != nil {
		for _, p := range t.Pending() {
			pending[p.RunID] += len(p.Hunks)
		}
	}
	out := make([]Listed, 0, len(list))
	for _, sess := range list {
		in := sess.Info()
		if len(in.Runs) == 0 {
			continue // started, but its first run never began
		}
		l := Listed{SessionInfo: in}
		for _, id := range in.Runs {
			l.Pending += pending[id]
		}
		out = append(out, l)
	}
	sort.Slice(out, func(i, j int) bool {
		if !out[i].Updated.Equal(out[j].Updated) {
			return out[i].Updated.After(out[j].Updated)
		}
		return out[i].ID < out[j].ID
	})
	return out
}

// bound drops sessions beyond MaxLiveSessions (under t.mu).
func (t *Sessions) bound() {
	for len(t.byID) > MaxLiveSessions {
		var oldest *Session
		var at time.Time
		for _, sess := range t.byID {
			if sess.Active() != "" {
				continue
			}
			if u := sess.Info().Updated; oldest == nil || u.Before(at) {
				oldest, at = sess, u
			}
		}
		if oldest == nil {
			return
		}
		delete(t.byID, oldest.ID())
	}
}

// Has reports whether session id is in the table (without reading the
// store).
func (t *Sessions) Has(id string) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	_, ok := t.byID[id]
	return ok
}
