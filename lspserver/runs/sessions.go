package runs

import (
	"context"
	"slices"
	"sort"
	"sync"
	"time"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/internal/text"
	"github.com/agentls/agentls/lspserver/core"
	"github.com/agentls/agentls/tools"
)

// Sessions (part of runs): a session is one conversation with the agent,
// its runs and its pending proposals (agent.Session). agentls.run without
// sessionId starts one, with sessionId continues it. Sessions are saved
// per workspace (agent.SessionStore: atomic, owner-only, bounded) after
// every staged change, run end and review decision, and restored when the
// server starts: each restored proposal is put back into review and
// rebased onto the document as it is now (hunks the user's edits touched
// become conflicted).

// Session commands and requests (docs/protocol.md).
const (
	MethodSessions       = "agentls/sessions"
	CommandDeleteSession = "agentls.deleteSession"
	CommandClearSessions = "agentls.clearSessions"
)

// NoSessionState as RunOptions.StateDir keeps sessions in memory only.
const NoSessionState = "-"

// SessionsResult is the result of agentls/sessions, newest first.
type SessionsResult struct {
	Sessions []SessionInfo `json:"sessions"`
}

// SessionInfo describes one session.
type SessionInfo struct {
	ID      string `json:"id"`
	Title   string `json:"title"`
	Updated string `json:"updated"` // RFC 3339
	Runs    int    `json:"runs"`
	Pending int    `json:"pending"` // hunks awaiting review
	// Tokens sums the session's runs (in + out); CostUSD prices them with
	// model.pricing (absent without it); Model is the session's chosen
	// model ("" follows model.name).
	Tokens  int      `json:"tokens"`
	CostUSD *float64 `json:"costUSD,omitempty"`
	Model   string   `json:"model,omitempty"`
}

// SessionArgs is arguments[0] of agentls.deleteSession.
type SessionArgs struct {
	SessionID string `json:"sessionId"`
}

// sessionsState is the server's sessions.
type sessionsState struct {
	once  sync.Once
	mu    sync.Mutex
	byID  map[string]*agent.Session
	store *agent.SessionStore // nil: not persisted
	// saver saves to store with merge-on-write (agent.SessionSaver).
	saver agent.SessionSaver

	// redact removes the configured API key (and secret-looking strings)
	// from saved conversations; set from each run's configuration.
	redact *agent.Redactor

	// latest is the most recently started (or, at start, saved) session,
	// for the "Agent: Continue" code action, which must not list sessions.
	latest, latestTitle string
}

// latestSession returns the id and title of the latest session ("" if
// none), without restoring or listing anything.
func (ss *sessionsState) latestSession() (id, title string) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	return ss.latest, ss.latestTitle
}

// setLatest records the session a run just started in, and the API key
// to keep out of saved sessions.
func (ss *sessionsState) setLatest(sess *agent.Session, prompt, apiKey string) {
	title := sess.Info().Title
	if title == "" {
		title = text.Clip(text.FirstLine(prompt), 80)
	}
	ss.mu.Lock()
	ss.latest, ss.latestTitle = sess.ID(), title
	ss.redact = agent.NewRedactor(apiKey)
	ss.mu.Unlock()
}

// RestoreSessions restores the workspace's saved sessions, their
// proposals and their plans awaiting approval, once; the wiring calls it
// on the first initialized notification, when the workspace folders are
// known.
func (rs *Runs) RestoreSessions() {
	rs.sessions()
	rs.restorePlans()
}

// sessions returns the sessions, restoring the saved ones on first use
// (after initialize, when the workspace folders are known).
func (rs *Runs) sessions() *sessionsState {
	ss := &rs.sess
	ss.once.Do(func() {
		ss.byID = map[string]*agent.Session{}
		opts := rs.cfg.options()
		dir := opts.StateDir
		folders := rs.view.Folders()
		if dir == NoSessionState || len(folders) == 0 {
			return
		}
		if dir == "" {
			d, err := agent.DefaultStateDir(opts.Env)
			if err != nil {
				rs.log.Warn("sessions are not saved", "err", err)
				return
			}
			dir = d
		}
		st, err := agent.OpenSessionStore(dir, folders[0], rs.log)
		if err != nil {
			rs.log.Warn("sessions are not saved: the state directory is not usable", "err", err)
			return
		}
		ss.store = st
		ss.saver.Store, ss.saver.Log = st, rs.log
		rs.restoreSessions(st)
	})
	return ss
}

// restoreSessions loads the workspace's saved sessions and puts their
// proposals back into review, rebased onto the current text.
func (rs *Runs) restoreSessions(st *agent.SessionStore) {
	restored := st.Load()
	n := 0
	if len(restored) > 0 { // newest first
		rs.sess.latest, rs.sess.latestTitle = restored[0].Session.ID(), restored[0].Session.Info().Title
	}
	for _, r := range restored {
		rs.sess.byID[r.Session.ID()] = r.Session
		rs.sess.saver.Loaded(r.Session.ID(), r.Proposals)
		for _, p := range r.Proposals {
			if !rs.restorable(r.Session.ID(), p) {
				continue
			}
			rs.review.Stage(p.RunID, tools.StagedFile{Path: p.Path, Base: p.Base, Text: p.Proposed, Created: p.Created})
			rs.review.ForgetRun(p.RunID)
			n++
		}
		rs.replaceRestoredNew(r)
	}
	if len(restored) > 0 {
		rs.log.Info("sessions restored", "sessions", len(restored), "proposals", n, "dir", st.Dir())
	}
}

// restorable reports whether a proposal read from a session file (this
// server's, or one another server saved) may join review
// (agent.SavedProposal.Restorable: every write rule), warning when not.
func (rs *Runs) restorable(session string, p agent.SavedProposal) bool {
	if err := p.Restorable(rs.view); err != nil {
		rs.log.Warn("restored proposal refused: it breaks a write rule", "session", session, "path", p.Path, "err", err)
		return false
	}
	return true
}

// session returns the session to run in: a new one for id "", else the
// known (or saved by another server) session id.
func (rs *Runs) session(id string) (*agent.Session, error) {
	ss := rs.sessions()
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if id == "" {
		sess := agent.NewSession("")
		ss.byID[sess.ID()] = sess
		ss.bound()
		return sess, nil
	}
	if sess, ok := ss.byID[id]; ok {
		if ss.store != nil && ss.store.Refresh(sess) {
			// Continued elsewhere (agentls acp, agentls run) since this
			// server read it: go on from there.
			rs.log.Info("session continued from its newer file", "session", id)
		}
		return sess, nil
	}
	if ss.store != nil {
		if r, err := ss.store.LoadOne(id); err == nil {
			rs.adoptSaved(r)
			return r.Session, nil
		}
	}
	return nil, core.InvalidParams("%s: no session %q in this workspace (%s lists them)", CommandRun, id, MethodSessions)
}

// catchUpSessions reads the sessions saved by another server or
// front-end since this one read them (agentls acp, agentls run): new
// ones are adopted, known ones refreshed (under ss.mu).
func (rs *Runs) catchUpSessions() {
	ss := &rs.sess
	if ss.store == nil {
		return
	}
	for _, r := range ss.store.Load() {
		if sess, ok := ss.byID[r.Session.ID()]; ok {
			ss.store.Refresh(sess)
			continue
		}
		rs.adoptSaved(r)
	}
	ss.bound()
}

// adoptSaved makes a session saved by another server or front-end
// (agentls acp, agentls run) after this one started one of this
// server's: its proposals join review here (under ss.mu).
func (rs *Runs) adoptSaved(r agent.Restored) {
	ss := &rs.sess
	id := r.Session.ID()
	ss.byID[id] = r.Session
	ss.saver.Loaded(id, r.Proposals)
	for _, p := range r.Proposals {
		if rs.restorable(id, p) {
			rs.review.Stage(p.RunID, tools.StagedFile{Path: p.Path, Base: p.Base, Text: p.Proposed, Created: p.Created})
			rs.review.ForgetRun(p.RunID)
		}
	}
	rs.replaceRestoredNew(r)
}

// replaceRestoredNew restores the replacements among a restored session's
// new files (a superseded proposal is saved as its original change, which
// a restore would make pending again).
func (rs *Runs) replaceRestoredNew(r agent.Restored) {
	for _, p := range r.Proposals {
		if p.Created {
			rs.replaceEarlierNew(r.Session, p.Path, p.RunID)
		}
	}
}

// maxLiveSessions bounds the sessions a server keeps in memory; the least
// recently updated ones without a run in progress are dropped first (a
// saved one can still be continued: session loads it again).
const maxLiveSessions = 2 * agent.DefaultMaxSessions

// bound drops sessions beyond maxLiveSessions (under ss.mu).
func (ss *sessionsState) bound() {
	for len(ss.byID) > maxLiveSessions {
		var oldest *agent.Session
		var at time.Time
		for _, sess := range ss.byID {
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
		delete(ss.byID, oldest.ID())
	}
}

// sessionOfRun finds the session a run belongs to.
func (rs *Runs) sessionOfRun(runID string) *agent.Session {
	if r := rs.reg.get(runID); r != nil && r.session != nil {
		return r.session
	}
	ss := rs.sessions()
	ss.mu.Lock()
	defer ss.mu.Unlock()
	for _, sess := range ss.byID {
		if sess.HasRun(runID) {
			return sess
		}
	}
	return nil
}

// saveSession writes sess with its pending proposals; failures are
// logged (the session lives on in memory).
func (rs *Runs) saveSession(sess *agent.Session) {
	ss := rs.sessions()
	if ss.store == nil || sess == nil {
		return
	}
	ss.mu.Lock()
	known := ss.byID[sess.ID()] == sess
	ss.mu.Unlock()
	if !known {
		return // deleted meanwhile
	}
	ss.mu.Lock()
	redact := ss.redact
	ss.mu.Unlock()
	if err := ss.saver.Save(sess, rs.review.Pending(), redact, reviewMerge{rs, sess.ID()}); err != nil {
		rs.log.Warn("session not saved", "session", sess.ID(), "err", err)
	}
}

// reviewMerge applies a save's merge with another server's file to review
// (agent.ReviewMerge).
type reviewMerge struct {
	rs      *Runs
	session string
}

func (m reviewMerge) Drop(p agent.SavedProposal) { m.rs.review.Drop(p.RunID, p.Path) }

func (m reviewMerge) Restore(p agent.SavedProposal) bool {
	if !m.rs.restorable(m.session, p) {
		return false
	}
	m.rs.review.Stage(p.RunID, tools.StagedFile{Path: p.Path, Base: p.Base, Text: p.Proposed, Created: p.Created})
	m.rs.review.ForgetRun(p.RunID)
	return true
}

// pendingNew is the new file at path that an earlier run of sess (not
// runID) proposed and that is still pending review, for runID's tools
// (tools.Env.PendingNewFile); the latest such proposal when there are
// several.
func (rs *Runs) pendingNew(sess *agent.Session, runID, path string) (tools.PendingNew, bool) {
	var out tools.PendingNew
	found := false
	for _, p := range rs.review.PendingAt(path) {
		if p.Created && p.RunID != runID && sess.HasRun(p.RunID) && p.HasPending() {
			out, found = tools.PendingNew{RunID: p.RunID, Text: p.Proposed}, true
		}
	}
	return out, found
}

// replaceEarlierNew lets runID's proposal to create path replace the
// proposals to create it that earlier runs of sess left in review: the
// follow-up read the earlier text (its tools refuse to write over a
// pending new file unread) and wrote its own version, which the user
// reviews instead (docs/sessions-and-plans.md, "A follow-up and a pending
// new file"). Proposals of other sessions are left alone: those clash as
// usual.
func (rs *Runs) replaceEarlierNew(sess *agent.Session, path, runID string) {
	if sess == nil {
		return
	}
	runs := sess.Info().Runs
	at := slices.Index(runs, runID)
	if at <= 0 {
		return
	}
	for _, p := range rs.review.PendingAt(path) {
		if p.Created && slices.Contains(runs[:at], p.RunID) {
			if n := rs.review.ReplaceCreated(path, p.RunID, runID); n > 0 {
				rs.log.Info("new file proposal replaced by a later run of its session", "session", sess.ID(), "path", path, "run", p.RunID, "by", runID)
			}
		}
	}
}

// ListSessions answers agentls/sessions.
func (rs *Runs) ListSessions(context.Context, *struct{}) (*SessionsResult, error) {
	ss := rs.sessions()
	ss.mu.Lock()
	// Sessions started or continued elsewhere since this server read
	// them (agentls acp in another editor, agentls run) are listed too.
	rs.catchUpSessions()
	list := make([]*agent.Session, 0, len(ss.byID))
	for _, sess := range ss.byID {
		list = append(list, sess)
	}
	ss.mu.Unlock()
	pending := map[string]int{}
	for _, p := range rs.review.Pending() {
		pending[p.RunID] += len(p.Hunks)
	}
	out := &SessionsResult{Sessions: []SessionInfo{}}
	infos := make([]agent.SessionInfo, 0, len(list))
	for _, sess := range list {
		infos = append(infos, sess.Info())
	}
	sort.Slice(infos, func(i, j int) bool {
		if !infos[i].Updated.Equal(infos[j].Updated) {
			return infos[i].Updated.After(infos[j].Updated)
		}
		return infos[i].ID < infos[j].ID
	})
	for _, in := range infos {
		if len(in.Runs) == 0 {
			continue // started, but its first run never began
		}
		n := 0
		for _, id := range in.Runs {
			n += pending[id]
		}
		out.Sessions = append(out.Sessions, SessionInfo{ID: in.ID, Title: in.Title, Updated: in.Updated.Format(time.RFC3339), Runs: len(in.Runs), Pending: n,
			Tokens: in.Usage.PromptTokens + in.Usage.CompletionTokens, CostUSD: in.CostUSD, Model: in.Model})
	}
	return out, nil
}

// deleteSessionCommand implements agentls.deleteSession: the session is
// forgotten and its file removed; its proposals stay in review until
// decided (they are no longer saved).
func (rs *Runs) deleteSessionCommand(a SessionArgs) (any, error) {
	if a.SessionID == "" {
		return nil, core.InvalidParams("%s: arguments[0].sessionId is required", CommandDeleteSession)
	}
	ss := rs.sessions()
	ss.mu.Lock()
	sess, ok := ss.byID[a.SessionID]
	if ok && sess.Active() != "" {
		ss.mu.Unlock()
		return nil, core.RequestFailed("%s: session %s has a run in progress; cancel it first", CommandDeleteSession, a.SessionID)
	}
	delete(ss.byID, a.SessionID)
	ss.saver.Forget(a.SessionID)
	if ss.latest == a.SessionID {
		ss.latest, ss.latestTitle = "", ""
	}
	ss.mu.Unlock()
	rs.plans.dropSessions(a.SessionID)
	if ss.store != nil {
		if err := ss.store.Delete(a.SessionID); err != nil {
			return nil, core.RequestFailed("%s: %v", CommandDeleteSession, err)
		}
	}
	return map[string]bool{"deleted": ok}, nil
}

// clearSessionsCommand implements agentls.clearSessions: every session of
// the workspace without a run in progress is forgotten and its file
// removed.
func (rs *Runs) clearSessionsCommand() (any, error) {
	ss := rs.sessions()
	ss.mu.Lock()
	var ids []string
	for id, sess := range ss.byID {
		if sess.Active() == "" {
			ids = append(ids, id)
			delete(ss.byID, id)
		}
	}
	if _, ok := ss.byID[ss.latest]; !ok {
		ss.latest, ss.latestTitle = "", ""
	}
	ss.mu.Unlock()
	rs.plans.dropSessions(ids...)
	if ss.store != nil {
		for _, id := range ids {
			if err := ss.store.Delete(id); err != nil {
				return nil, core.RequestFailed("%s: %v", CommandClearSessions, err)
			}
		}
	}
	return map[string]int{"deleted": len(ids)}, nil
}
