package runs

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"time"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/agent/desk"
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
const NoSessionState = agent.NoState

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

// sessionsState is the server's sessions: the core's table
// (agent.Sessions), made once the workspace folders are known.
type sessionsState struct {
	once sync.Once
	// table is set once, in once; read without once by latestSession,
	// which must not restore anything.
	table atomic.Pointer[agent.Sessions]
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
func (rs *Runs) sessions() *agent.Sessions {
	ss := &rs.sess
	ss.once.Do(func() {
		t := &agent.Sessions{Pending: rs.review.Pending, Log: rs.log, SupersedeNew: rs.replaceEarlierNew,
			Review: agent.ReviewRestore{View: rs.view, Stage: rs.review.Stage, Unstage: rs.review.Drop, Forget: rs.review.ForgetRun, Log: rs.log}}
		defer ss.table.Store(t)
		if folders := rs.view.Folders(); len(folders) > 0 {
			opts := rs.cfg.options()
			t.Store = agent.OpenWorkspaceStore(opts.StateDir, opts.Env, folders[0], rs.log)
			t.Restore()
		}
	})
	return ss.table.Load()
}

// latestSession returns the id and title of the latest session ("" if
// none), without restoring or listing anything.
func (rs *Runs) latestSession() (id, title string) {
	if t := rs.sess.table.Load(); t != nil {
		return t.Latest()
	}
	return "", ""
}

// session returns the session to run in: a new one for id "", else the
// known (or saved by another server) session id.
func (rs *Runs) session(id string) (*agent.Session, error) {
	sess, err := rs.sessions().Get(id)
	if errors.Is(err, agent.ErrNoSession) {
		return nil, core.InvalidParams("%s: no session %q in this workspace (%s lists them)", CommandRun, id, MethodSessions)
	}
	return sess, err
}

// sessionOfRun finds the session a run belongs to.
func (rs *Runs) sessionOfRun(runID string) *agent.Session {
	return rs.reg.SessionOf(runID, rs.sessions())
}

// saveSession writes sess with its pending proposals; failures are
// logged (the session lives on in memory).
func (rs *Runs) saveSession(sess *agent.Session) { rs.sessions().Save(sess) }

// pendingNew is the new file at path an earlier run of sess proposed,
// for runID's tools (desk.PendingNew).
func (rs *Runs) pendingNew(sess *agent.Session, runID, path string) (tools.PendingNew, bool) {
	return desk.PendingNew(rs.review.PendingAt(path), sess, runID)
}

// replaceEarlierNew lets runID's proposal to create path replace those
// earlier runs of sess left in review (Review.SupersedeNew).
func (rs *Runs) replaceEarlierNew(sess *agent.Session, path, runID string) {
	for _, old := range rs.review.SupersedeNew(sess, path, runID) {
		rs.log.Info("new file proposal replaced by a later run of its session", "session", sess.ID(), "path", path, "run", old, "by", runID)
	}
}

// ListSessions answers agentls/sessions; sessions started or continued
// elsewhere since this server read them (agentls acp in another editor,
// agentls run) are listed too.
func (rs *Runs) ListSessions(context.Context, *struct{}) (*SessionsResult, error) {
	out := &SessionsResult{Sessions: []SessionInfo{}}
	for _, in := range rs.sessions().List() {
		out.Sessions = append(out.Sessions, SessionInfo{ID: in.ID, Title: in.Title, Updated: in.Updated.Format(time.RFC3339), Runs: len(in.Runs), Pending: in.Pending,
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
	ok, err := rs.sessions().Delete(a.SessionID)
	switch {
	case errors.Is(err, agent.ErrSessionBusy):
		return nil, core.RequestFailed("%s: session %s has a run in progress; cancel it first", CommandDeleteSession, a.SessionID)
	case err != nil:
		return nil, core.RequestFailed("%s: %v", CommandDeleteSession, err)
	}
	rs.plans.DropSessions(a.SessionID)
	return map[string]bool{"deleted": ok}, nil
}

// clearSessionsCommand implements agentls.clearSessions: every session of
// the workspace without a run in progress is forgotten and its file
// removed.
func (rs *Runs) clearSessionsCommand() (any, error) {
	ids, err := rs.sessions().Clear()
	rs.plans.DropSessions(ids...)
	if err != nil {
		return nil, core.RequestFailed("%s: %v", CommandClearSessions, err)
	}
	return map[string]int{"deleted": len(ids)}, nil
}
