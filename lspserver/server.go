package lspserver

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/agentls/agentls/internal/workspace"
	"github.com/agentls/agentls/lspserver/core"
	"github.com/agentls/agentls/lspserver/docs"
	"github.com/agentls/agentls/lspserver/review"
)

// Options configures a Server. The zero value is usable.
type Options struct {
	// Version is reported as serverInfo.version.
	Version string
	// Logger receives the server's logs; nil discards them. Never stdout:
	// stdout is the LSP wire.
	Logger *slog.Logger
	// View is the workspace view documents are synchronised into; nil
	// creates one. Pass one to share it with other components.
	View *workspace.View
	// ParentPollInterval is how often the editor process named by
	// initialize's processId is checked for life; zero means 3s.
	ParentPollInterval time.Duration
	// WrapClient, when set, wraps the Client the server uses for
	// server→client messages (to record or intercept them).
	WrapClient func(Client) Client
	// NoWatcher disables the fsnotify watcher (the view then validates
	// every read by stat, and didChangeWatchedFiles still invalidates).
	NoWatcher bool
}

// Exit codes of Serve.
const (
	ExitOK         = core.ExitOK
	ExitNoShutdown = core.ExitNoShutdown
	ExitBadInput   = core.ExitBadInput
)

// Server is one LSP session. Create it with New and run it with Serve; the
// method table (methods.go) lists everything it answers.
type Server struct {
	core *core.Server
	opts Options
	log  *slog.Logger
	view *workspace.View
	ctx  context.Context // server lifetime: parent of all background work

	initOnce sync.Once // work done on the first initialized notification

	// clientTimeout is client.requestTimeoutSeconds of the latest loaded
	// configuration, in nanoseconds; 0 until one is loaded (config.go).
	clientTimeout atomic.Int64

	docs *docs.Docs

	runs agentRuns // agent runs, their configuration and MCP servers (runs.go)

	review *review.Review // proposals under review
	sess   sessionsState  // conversations and their persistence (sessions.go)
	plans  planBook       // finished plans awaiting approval (plan.go)
}

// New returns a Server that is not yet connected; Serve connects and runs it.
func New(opts Options) *Server {
	s := &Server{opts: opts}
	s.core = core.New(core.Options{
		Version:            opts.Version,
		Logger:             opts.Logger,
		ParentPollInterval: opts.ParentPollInterval,
		WrapClient:         opts.WrapClient,
		ClientTimeout:      func() time.Duration { return s.clientRequestTimeout() },
	})
	s.log = s.core.Log()
	s.ctx = s.core.Context()
	view := opts.View
	if view == nil {
		view = workspace.New(workspace.Options{Logger: s.log.With("component", "view")})
	}
	s.view = view
	s.docs = docs.New(s.core, view, docs.Options{NoWatcher: opts.NoWatcher})
	s.review = review.New(s.core, s.docs)
	s.docs.Follow(s.review)
	for m, r := range s.methodTable() {
		s.core.Handle(m, r)
	}
	return s
}

// View returns the workspace view the server synchronises documents into.
func (s *Server) View() *workspace.View { return s.view }

// Session returns what initialize negotiated (a zero Session before it).
func (s *Server) Session() *Session { return s.core.Session() }

// InitializationOptions returns initialize's initializationOptions (nil if
// none were sent).
func (s *Server) InitializationOptions() json.RawMessage { return s.core.InitializationOptions() }

// Serve runs the LSP session on in/out until the editor sends exit, closes
// the input, dies (processId), sends an unframeable header, or ctx ends. It
// returns the process exit code: ExitOK after a clean shutdown+exit,
// ExitNoShutdown without shutdown, ExitBadInput for unreadable input.
// Background work is cancelled and awaited before it returns. A Server
// serves once.
func (s *Server) Serve(ctx context.Context, in io.Reader, out io.Writer) int {
	s.docs.StartWatcher()
	return s.core.Serve(ctx, in, out)
}

// Serve is shorthand for New(opts).Serve(ctx, in, out).
func Serve(ctx context.Context, in io.Reader, out io.Writer, opts Options) int {
	return New(opts).Serve(ctx, in, out)
}

// Temporary shims while the parts move into subpackages.
func (s *Server) goBackground(name string, fn func(ctx context.Context)) { s.core.Go(name, fn) }

func invalidParams(format string, args ...any) error { return core.InvalidParams(format, args...) }
func requestFailed(format string, args ...any) error { return core.RequestFailed(format, args...) }
func ptr[T any](v T) *T                              { return &v }

// Settings returns the agentls settings of the latest
// workspace/didChangeConfiguration (core.Server.Settings).
func (s *Server) Settings() json.RawMessage { return s.core.Settings() }

// OnSettingsChange registers fn to run (on the read loop, so it must be
// quick and must not call the client) after each didChangeConfiguration
// that carried settings, with the new Settings value.
func (s *Server) OnSettingsChange(fn func(json.RawMessage)) { s.core.OnSettingsChange(fn) }

// Folders returns the workspace folders as the editor gave them (absolute
// paths, first one first).
func (s *Server) Folders() []string { return s.docs.Folders() }
