package acpserver

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"time"

	acp "github.com/coder/acp-go-sdk"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/agent/mcpset"
	"github.com/agentls/agentls/internal/workspace"
	"github.com/agentls/agentls/tools"
	"github.com/agentls/agentls/tools/mcp"
)

// Sessions over ACP are agentls sessions (agent.Session): the id a client
// gets from session/new is the session id agentls.run, `agentls run
// --session` and agentls/sessions use, and the session is saved to the
// same store (agent.SessionStore, per workspace = cwd) after every staged
// change, review decision and prompt. So a session started in the editor
// over LSP can be loaded here and continued, and the other way round.

// session is one ACP session of this connection.
type session struct {
	srv   *Server
	id    string
	cwd   string
	view  *workspace.View
	core  *agent.Session
	store *agent.SessionStore // nil: not saved

	// clientMCP are the MCP servers the client gave at session/new, load
	// or resume: the user's choice, started whatever the workspace trust.
	clientMCP map[string]mcp.ServerConfig
	// mcp runs the session's MCP servers (ensureMCP).
	mcp *mcpset.Set
	// Turns is the prompt in progress and the session's last use
	// (agent.LiveSessions drops the least recently used idle ones).
	agent.Turns
	asking elicitTurn // the prompt an MCP server's question is bounded by (elicit.go)

	mu       sync.Mutex
	mode     string // "" = the configured mode (cfgMode)
	cfgMode  string // mode of the latest configuration loaded
	cfgModel string // model of the latest configuration loaded
	// choices are model.choices of the latest configuration, discovered
	// the models the endpoint listed (GET /models), for the model option.
	choices, discovered []string
	model               string // "" = the configured model
	autoAllow           bool   // "allow always" for file changes in this session
	// approvals are the commands the user allowed for the rest of the
	// session (the same rule as the editor's "Allow for this session").
	approvals agent.Approvals
	// held are changes a turn kept pending because its checks did not
	// pass: not asked about at later prompts (turnreview.go).
	held    map[heldChange]bool
	saver   agent.SessionSaver // saves to store, merging with other agentls's saves
	redact  *agent.Redactor
	toolSeq int
	synced  map[string]bool // paths whose client buffer is an overlay in view
	bufVer  int32
	// reqTimeout is client.requestTimeoutSeconds of the latest prompt.
	reqTimeout time.Duration
}

// newSessionState opens the view and the store for cwd; it validates cwd
// (absolute, an existing directory).
func (s *Server) newSessionState(id, cwd string, servers []acp.McpServer) (*session, error) {
	if !filepath.IsAbs(cwd) {
		return nil, invalidParams("cwd %q must be an absolute path", cwd)
	}
	cwd = filepath.Clean(cwd)
	if st, err := os.Stat(cwd); err != nil {
		return nil, invalidParams("cwd %s: %v", cwd, err)
	} else if !st.IsDir() {
		return nil, invalidParams("cwd %s is not a directory", cwd)
	}
	clientMCP, err := convertMCPServers(servers)
	if err != nil {
		return nil, err
	}
	ss := &session{srv: s, id: id, cwd: cwd, clientMCP: clientMCP, synced: map[string]bool{},
		mcp: mcpset.New(s.work.Context(), mcpset.Options{Logger: s.log.With("component", "mcp", "session", id)})}
	ss.view = workspace.New(workspace.Options{Folders: []string{cwd}, CacheBytes: viewCacheBytes, Logger: s.log.With("component", "view")})
	ss.store = agent.OpenWorkspaceStore(s.opts.StateDir, s.opts.Env, cwd, s.log)
	ss.saver.Store, ss.saver.Log = ss.store, s.log
	return ss, nil
}

// stateDir is where sessions are saved, "" for nowhere.
func (s *Server) stateDir() string {
	d, err := agent.StateDir(s.opts.StateDir, s.opts.Env)
	if err != nil {
		s.log.Warn("sessions are not saved", "err", err)
	}
	return d
}

// Bounds of what one connection keeps in memory: sessions beyond
// maxLiveSessions are dropped least recently used first (those with a
// prompt in progress never; a dropped one is saved and can be loaded
// again), and each session's view caches at most viewCacheBytes of files.
const (
	maxLiveSessions = 32
	viewCacheBytes  = 16 << 20
)

// register makes ss a session of the connection, replacing (and closing)
// an earlier one with the same id, and drops the least recently used
// idle sessions beyond maxLiveSessions.
func (s *Server) register(ss *session) error {
	if err := s.live.Put(ss.id, ss); err != nil {
		return requestFailed("%v", err)
	}
	return nil
}

// NewSession answers session/new: a fresh agentls session in cwd.
func (s *Server) NewSession(_ context.Context, p acp.NewSessionRequest) (acp.NewSessionResponse, error) {
	leave, err := s.enter()
	if err != nil {
		return acp.NewSessionResponse{}, err
	}
	defer leave()
	ss, err := s.newSessionState("", p.Cwd, p.McpServers)
	if err != nil {
		return acp.NewSessionResponse{}, err
	}
	ss.core = agent.NewSession("")
	ss.id = ss.core.ID()
	if err := s.register(ss); err != nil {
		return acp.NewSessionResponse{}, err
	}
	cfg, _, _ := s.loadConfig([]string{ss.cwd})
	s.log.Info("session new", "session", ss.id, "cwd", ss.cwd, "clientMCP", len(ss.clientMCP))
	s.afterOpen(ss)
	return acp.NewSessionResponse{SessionId: acp.SessionId(ss.id), Modes: ss.modeState(cfg), ConfigOptions: ss.configOptions(cfg)}, nil
}

// afterOpen announces, in the background, what a session offers beyond
// the response that opened it: the skills as commands, and the models the
// endpoint serves. The client learns the session id from the response, so
// these follow it (a short pause lets the SDK write the response first;
// an update it overtakes is only the commands list, sent again on load).
func (s *Server) afterOpen(ss *session) {
	s.work.Go("session announcements", func(ctx context.Context) {
		t := time.NewTimer(20 * time.Millisecond)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return
		}
		ss.announceCommands(ctx)
		s.discoverModels(ctx, ss)
	})
}

// openSaved makes the saved session id of cwd a session of the
// connection: the one already open, else read from the store, its
// pending proposals put back into review.
func (s *Server) openSaved(id acp.SessionId, cwd string, servers []acp.McpServer) (*session, error) {
	if cur, err := s.session(id); err == nil && cur.cwd == filepath.Clean(cwd) {
		if cm, err := convertMCPServers(servers); err == nil && len(servers) > 0 {
			cur.mu.Lock()
			cur.clientMCP = cm
			cur.mu.Unlock()
		}
		if cur.store != nil {
			cur.store.Refresh(cur.core)
		}
		return cur, nil
	}
	ss, err := s.newSessionState(string(id), cwd, servers)
	if err != nil {
		return nil, err
	}
	if ss.store == nil {
		return nil, invalidParams("no session %q: sessions are not saved (no usable state directory)", id)
	}
	r, err := ss.store.LoadOne(string(id))
	if err != nil {
		return nil, invalidParams("no saved session %q for %s (session/list lists them): %v", id, ss.cwd, err)
	}
	ss.core = r.Session
	ss.saver.Loaded(string(id), r.Proposals)
	agent.RestoreSaved(r, ss.reviewMerge(), func(sess *agent.Session, path, runID string) { s.review.SupersedeNew(sess, path, runID) })
	if err := s.register(ss); err != nil {
		return nil, err
	}
	return ss, nil
}

// LoadSession answers session/load: the saved session, its conversation
// replayed as session/update notifications before the response.
func (s *Server) LoadSession(ctx context.Context, p acp.LoadSessionRequest) (acp.LoadSessionResponse, error) {
	leave, err := s.enter()
	if err != nil {
		return acp.LoadSessionResponse{}, err
	}
	defer leave()
	ss, err := s.openSaved(p.SessionId, p.Cwd, p.McpServers)
	if err != nil {
		return acp.LoadSessionResponse{}, err
	}
	ss.replay(ctx)
	ss.announceCommands(ctx)
	s.work.Go("models", func(ctx context.Context) { s.discoverModels(ctx, ss) })
	cfg, _, _ := s.loadConfig([]string{ss.cwd})
	s.log.Info("session load", "session", ss.id, "cwd", ss.cwd)
	return acp.LoadSessionResponse{Modes: ss.modeState(cfg), ConfigOptions: ss.configOptions(cfg)}, nil
}

// ResumeSession answers session/resume: like load, without the replay.
func (s *Server) ResumeSession(ctx context.Context, p acp.ResumeSessionRequest) (acp.ResumeSessionResponse, error) {
	leave, err := s.enter()
	if err != nil {
		return acp.ResumeSessionResponse{}, err
	}
	defer leave()
	ss, err := s.openSaved(p.SessionId, p.Cwd, p.McpServers)
	if err != nil {
		return acp.ResumeSessionResponse{}, err
	}
	s.afterOpen(ss)
	cfg, _, _ := s.loadConfig([]string{ss.cwd})
	s.log.Info("session resume", "session", ss.id, "cwd", ss.cwd)
	return acp.ResumeSessionResponse{Modes: ss.modeState(cfg), ConfigOptions: ss.configOptions(cfg)}, nil
}

// CloseSession answers session/close: the prompt in progress is cancelled,
// the session saved and forgotten by this connection (its file stays, to
// be loaded again), its MCP servers stopped.
func (s *Server) CloseSession(ctx context.Context, p acp.CloseSessionRequest) (acp.CloseSessionResponse, error) {
	leave, err := s.enter()
	if err != nil {
		return acp.CloseSessionResponse{}, err
	}
	defer leave()
	ss, err := s.session(p.SessionId)
	if err != nil {
		return acp.CloseSessionResponse{}, err
	}
	s.live.Drop(ctx, ss.id, ss)
	s.log.Info("session close", "session", ss.id)
	return acp.CloseSessionResponse{}, nil
}

// listPage is how many sessions session/list returns at once.
const listPage = 50

// ListSessions answers session/list: agent.ListSavedSessions of cwd (or
// of every workspace), a page at a time (the cursor is an offset).
func (s *Server) ListSessions(_ context.Context, p acp.ListSessionsRequest) (acp.ListSessionsResponse, error) {
	leave, err := s.enter()
	if err != nil {
		return acp.ListSessionsResponse{}, err
	}
	defer leave()
	folder := ""
	if p.Cwd != nil {
		if !filepath.IsAbs(*p.Cwd) {
			return acp.ListSessionsResponse{}, invalidParams("cwd %q must be an absolute path", *p.Cwd)
		}
		folder = filepath.Clean(*p.Cwd)
	}
	start := 0
	if p.Cursor != nil {
		n, err := strconv.Atoi(*p.Cursor)
		if err != nil || n < 0 {
			return acp.ListSessionsResponse{}, invalidParams("cursor %q is not one this agent returned", *p.Cursor)
		}
		start = n
	}
	var all []agent.SavedSession
	if dir := s.stateDir(); dir != "" {
		all = agent.ListSavedSessions(dir, folder, s.log)
	}
	out := acp.ListSessionsResponse{Sessions: []acp.SessionInfo{}}
	for i := start; i < len(all) && i < start+listPage; i++ {
		e := all[i]
		title, updated := e.Info.Title, e.Info.Updated.UTC().Format(time.RFC3339)
		out.Sessions = append(out.Sessions, acp.SessionInfo{SessionId: acp.SessionId(e.Info.ID), Cwd: e.Folder, Title: &title, UpdatedAt: &updated})
	}
	if start+listPage < len(all) {
		next := strconv.Itoa(start + listPage)
		out.NextCursor = &next
	}
	return out, nil
}

// Release saves the session and stops its MCP servers, once the table let
// it go (agent.Live).
func (ss *session) Release() {
	ss.save()
	ss.close()
}

// close stops the session's MCP servers.
func (ss *session) close() { ss.mcp.Close() }

// nextToolID returns a tool call id unique in the session for things that
// are not model tool calls (trust questions, pending reviews).
func (ss *session) nextToolID(kind string) acp.ToolCallId {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	ss.toolSeq++
	return acp.ToolCallId(fmt.Sprintf("agentls-%s-%d", kind, ss.toolSeq))
}

// update sends one session/update; failures (the client went away) are
// logged. It uses the server's context, not the prompt's, so the last
// updates of a cancelled prompt still go out.
func (ss *session) update(_ context.Context, u acp.SessionUpdate) {
	if err := ss.srv.conn.SessionUpdate(ss.srv.work.Context(), acp.SessionNotification{SessionId: acp.SessionId(ss.id), Update: u}); err != nil {
		ss.srv.log.Debug("session/update not sent", "session", ss.id, "err", err)
	}
}

// save writes the session with its proposals still in review; failures
// are logged (the session lives on in memory).
func (ss *session) save() {
	if ss.store == nil {
		return
	}
	s := ss.srv
	ss.mu.Lock()
	redact := ss.redact
	ss.mu.Unlock()
	if err := ss.saver.Save(ss.core, s.review.store.List(""), redact, ss.reviewMerge()); err != nil {
		s.log.Warn("session not saved", "session", ss.id, "err", err)
	}
}

// reviewMerge puts the proposals of the session's file (read at load, or
// saved meanwhile by another agentls: the LSP server, a CLI run) into this
// connection's review, or drops those decided there (agent.ReviewRestore).
func (ss *session) reviewMerge() agent.ReviewRestore {
	s := ss.srv
	return agent.ReviewRestore{View: ss.view, Unstage: s.review.Drop, Forget: s.review.store.ForgetRun, Log: s.log.With("session", ss.id),
		Stage: func(runID string, f tools.StagedFile) { s.stage(ss, runID, f) }}
}

// sortedKeys is the keys of m, sorted.
func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
