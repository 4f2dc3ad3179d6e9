package core

import (
	"context"
	"encoding/json"
	"slices"
	"sync"
	"sync/atomic"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/internal/lifetime"
	"github.com/agentls/agentls/internal/text"
)

// ServerName is serverInfo.name (docs/protocol.md).
const ServerName = "agentls"

// defaultVersion is serverInfo.version when Options.Version is empty.
const defaultVersion = "0.0.0-dev"

// Lifecycle states (LSP "Lifecycle Messages").
const (
	stateNew         int32 = iota // only initialize and exit are accepted
	stateInitialized              // initialize answered: everything is accepted
	stateShutdown                 // shutdown answered: only exit is accepted
)

// lifecycle holds the session state machine and what initialize negotiated.
type lifecycle struct {
	state      atomic.Int32
	sess       atomic.Pointer[Session]
	exit       chan int      // exit notification → Serve, with the exit code
	parentGone chan struct{} // closed when the editor process died
	parentOnce sync.Once
}

func (l *lifecycle) init() {
	l.exit = make(chan int, 1)
	l.parentGone = make(chan struct{})
	l.sess.Store(&Session{})
}

func (l *lifecycle) isShutdown() bool { return l.state.Load() == stateShutdown }

// Session is what initialize negotiated; it never changes afterwards.
type Session struct {
	Encoding     text.Encoding               // negotiated position encoding
	Capabilities protocol.ClientCapabilities // as the client sent them
	Features     ClientFeatures              // the capabilities agentls acts on
	ClientName   string                      // clientInfo.name, for logs
	ProcessID    int                         // editor pid, 0 if none given
}

// ClientFeatures are the client capabilities agentls decides on, flattened
// from the optional-pointer tree of protocol.ClientCapabilities.
type ClientFeatures struct {
	ApplyEdit              bool // workspace.applyEdit
	DocumentChanges        bool // workspace.workspaceEdit.documentChanges
	ChangeAnnotations      bool // workspace.workspaceEdit.changeAnnotationSupport
	ResourceOperations     []protocol.ResourceOperationKind
	WorkDoneProgress       bool // window.workDoneProgress
	CodeLensRefresh        bool // workspace.codeLens.refreshSupport
	ShowMessageActions     bool // window.showMessage.messageActionItem
	WatchedFilesDynamic    bool // workspace.didChangeWatchedFiles.dynamicRegistration
	WatchedFilesRelative   bool // workspace.didChangeWatchedFiles.relativePatternSupport
	WorkspaceFolders       bool // workspace.workspaceFolders
	ConfigurationPull      bool // workspace.configuration
	PositionEncodingsGiven bool // general.positionEncodings was sent
	ShowDocument           bool // window.showDocument.support
	InlineCompletion       bool // textDocument.inlineCompletion (LSP 3.18 ghost text)
	ElicitationForms       bool // experimental.agentls.elicitationForms: answers agentls/elicit (runs/elicit.go)
	AnswerViews            bool // experimental.agentls.answerViews: shows runs' whole answers itself (runs/answers.go)
	// LazyCodeActions: textDocument.codeAction.dataSupport and
	// resolveSupport.properties naming "command", the one property agentls
	// defers (its actions carry commands, never edits): such a client is
	// sent titles and kinds, and the commands on codeAction/resolve
	// (runs/resolve.go).
	LazyCodeActions bool
	// Plugin: experimental.agentls was sent at all, so the client is one of
	// our plugins, which ask the user themselves (a rejection's reason).
	Plugin bool
}

// Session returns what initialize negotiated (a zero Session before it).
func (s *Server) Session() *Session { return s.life.sess.Load() }

// gate applies the lifecycle to a message: nil lets it through.
func (s *Server) gate(method string, isCall bool) *jsonrpc2.Error {
	switch s.life.state.Load() {
	case stateNew:
		if method == protocol.MethodInitialize || method == protocol.MethodExit {
			return nil
		}
		return jsonrpc2.Errorf(jsonrpc2.ServerNotInitialized, "server not initialized: %s before initialize", method)
	case stateInitialized:
		if method == protocol.MethodInitialize {
			return jsonrpc2.NewError(jsonrpc2.InvalidRequest, "initialize was already received; it may be sent only once")
		}
		return nil
	default:
		if method == protocol.MethodExit {
			return nil
		}
		return jsonrpc2.Errorf(jsonrpc2.InvalidRequest, "server is shut down: %s after shutdown (only exit is accepted)", method)
	}
}

// Negotiate is the connection's share of initialize: it records the
// session (position encoding, client features), the initializationOptions
// and starts watching the editor process. The caller (the wiring's
// initialize handler) adds the other parts' shares, then calls
// MarkInitialized; initialize is an ordered request, so no other message
// is read in between.
func (s *Server) Negotiate(p *protocol.InitializeParams) *Session {
	sess := &Session{
		Encoding:     negotiateEncoding(p.Capabilities),
		Capabilities: p.Capabilities,
		Features:     clientFeatures(p.Capabilities),
		ClientName:   p.ClientInfo.Name,
	}
	if p.ProcessID != nil && *p.ProcessID > 0 {
		sess.ProcessID = int(*p.ProcessID)
	}
	s.life.sess.Store(sess)
	s.config.setInitOptions(p.InitializationOptions)
	if pid := sess.ProcessID; pid != 0 { // LSP: exit when the parent process dies
		s.Go("watch editor process", func(ctx context.Context) {
			if lifetime.WaitProcessExit(ctx, pid, s.opts.ParentPollInterval) {
				// Warn: the session ends without shutdown (exit code 1),
				// which is worth a line on stderr at the default level.
				s.log.Warn("editor process exited; shutting down", "pid", pid)
				s.life.parentOnce.Do(func() { close(s.life.parentGone) })
			}
		})
	}
	return sess
}

// MarkInitialized ends initialize: from now on every method is accepted.
func (s *Server) MarkInitialized() { s.life.state.Store(stateInitialized) }

// ServerInfo is initialize's serverInfo.
func (s *Server) ServerInfo() protocol.ServerInfo {
	version := s.opts.Version
	if version == "" {
		version = defaultVersion
	}
	return protocol.ServerInfo{Name: ServerName, Version: protocol.NewOptional(version)}
}

// Shutdown is the shutdown request.
func (s *Server) Shutdown(context.Context, *NoParams) (any, error) {
	s.life.state.Store(stateShutdown)
	s.log.Info("shutdown requested")
	return nil, nil
}

// Exit is the exit notification: Serve returns with ExitOK after a
// shutdown, ExitNoShutdown without one.
func (s *Server) Exit(context.Context, *NoParams) error {
	code := ExitNoShutdown
	if s.life.isShutdown() {
		code = ExitOK
	}
	select {
	case s.life.exit <- code:
	default: // a second exit: the first one wins
	}
	return nil
}

func clientFeatures(c protocol.ClientCapabilities) ClientFeatures {
	var f ClientFeatures
	if g := c.General; g != nil {
		f.PositionEncodingsGiven = len(g.PositionEncodings) > 0
	}
	if ws := c.Workspace; ws != nil {
		f.ApplyEdit = is(ws.ApplyEdit)
		f.WorkspaceFolders = is(ws.WorkspaceFolders)
		f.ConfigurationPull = is(ws.Configuration)
		if we := ws.WorkspaceEdit; we != nil {
			f.DocumentChanges = is(we.DocumentChanges)
			f.ResourceOperations = we.ResourceOperations
			f.ChangeAnnotations = we.ChangeAnnotationSupport != nil
		}
		if cl := ws.CodeLens; cl != nil {
			f.CodeLensRefresh = is(cl.RefreshSupport)
		}
		if wf := ws.DidChangeWatchedFiles; wf != nil {
			f.WatchedFilesDynamic = is(wf.DynamicRegistration)
			f.WatchedFilesRelative = is(wf.RelativePatternSupport)
		}
	}
	if td := c.TextDocument; td != nil {
		f.InlineCompletion = td.InlineCompletion != nil
	}
	if w := c.Window; w != nil {
		f.WorkDoneProgress = is(w.WorkDoneProgress)
		f.ShowMessageActions = w.ShowMessage != nil && w.ShowMessage.MessageActionItem != nil
		f.ShowDocument = w.ShowDocument != nil && w.ShowDocument.Support
	}
	if td := c.TextDocument; td != nil && td.CodeAction != nil {
		ca := td.CodeAction
		f.LazyCodeActions = is(ca.DataSupport) && slices.Contains(ca.ResolveSupport.Properties, "command")
	}
	var exp struct {
		Agentls *struct {
			ElicitationForms bool `json:"elicitationForms"`
			AnswerViews      bool `json:"answerViews"`
		} `json:"agentls"`
	}
	if len(c.Experimental) > 0 && json.Unmarshal(c.Experimental, &exp) == nil && exp.Agentls != nil {
		f.Plugin = true
		f.ElicitationForms = exp.Agentls.ElicitationForms
		f.AnswerViews = exp.Agentls.AnswerViews
	}
	return f
}

func is(b *bool) bool { return b != nil && *b }

// Ptr returns a pointer to v, for the optional fields of protocol types.
func Ptr[T any](v T) *T { return &v }

// SetTrace accepts $/setTrace; agentls logs through slog at the level given
// on the command line, so the value is only logged.
func (s *Server) SetTrace(_ context.Context, p *protocol.SetTraceParams) error {
	s.log.Debug("$/setTrace", "value", p.Value)
	return nil
}
