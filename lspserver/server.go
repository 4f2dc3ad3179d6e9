package lspserver

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"sync"
	"time"

	"github.com/agentls/agentls/agent/complete"
	"github.com/agentls/agentls/internal/workspace"
	"github.com/agentls/agentls/lspserver/core"
	"github.com/agentls/agentls/lspserver/docs"
	"github.com/agentls/agentls/lspserver/inline"
	"github.com/agentls/agentls/lspserver/review"
	"github.com/agentls/agentls/lspserver/runs"
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
	ExitOK         = core.ExitOK         // exit after shutdown, or input closed after shutdown
	ExitNoShutdown = core.ExitNoShutdown // exit, input end or editor death without shutdown first
	ExitBadInput   = core.ExitBadInput   // the input could not be framed or the connection failed
)

// Server is one LSP session: the four parts, connected. Create it with New
// and run it with Serve; the method table (methods.go) lists everything it
// answers and which part serves it.
type Server struct {
	core   *core.Server   // framing, dispatch, lifecycle, settings, Client
	docs   *docs.Docs     // text sync into the view, folders, watched files
	review *review.Review // proposals under review
	runs   *runs.Runs     // agent runs, sessions, MCP servers, code actions
	inline *inline.Inline // inline completions (ghost text)

	log      *slog.Logger
	view     *workspace.View
	initOnce sync.Once // work done on the first initialized notification
}

// New returns a Server that is not yet connected; Serve connects and runs
// it. It builds the parts bottom-up (core, docs, review, runs), connects
// review to the documents (docs.Follower) and runs to review
// (runs.Review), and lists the method table.
func New(opts Options) *Server {
	s := &Server{}
	s.core = core.New(core.Options{
		Version:            opts.Version,
		Logger:             opts.Logger,
		ParentPollInterval: opts.ParentPollInterval,
		WrapClient:         opts.WrapClient,
		// client.requestTimeoutSeconds comes from the run configuration.
		ClientTimeout: func() time.Duration { return s.runs.ClientRequestTimeout() },
	})
	s.log = s.core.Log()
	s.view = opts.View
	if s.view == nil {
		s.view = workspace.New(workspace.Options{Logger: s.log.With("component", "view")})
	}
	s.docs = docs.New(s.core, s.view, docs.Options{NoWatcher: opts.NoWatcher})
	s.review = review.New(s.core, s.docs)
	s.docs.Follow(s.review)
	s.runs = runs.New(s.core, s.docs, s.review)
	s.inline = inline.New(s.core, s.docs)
	// Next-edit suggestions are proposals under review like a run's.
	s.inline.OnNextEdit(func(sg complete.Suggestion) { s.review.Suggest(sg.Path, sg.Base, sg.Proposed) })
	// agentls/models shows what completions used beside the models.
	s.runs.OnCompletionUsage(func() (string, complete.Usage, bool) {
		eng := s.inline.Engine()
		model, _, _ := eng.Describe()
		return model, eng.Usage(), eng.Enabled()
	})
	// Completions ask the runs' language servers for declarations.
	s.inline.LanguageServers(s.runs.LanguageServers)
	// Completions follow every configuration the runs part loads.
	s.runs.OnConfig(s.inline.Configure)
	// An accept the editor shows only after the command's answer is
	// settled then; its decisions go where the command's own go.
	s.review.OnDecided(s.runs.Decide)
	// A rejection whose reason the user is asked reaches a run still
	// working at once and the sessions' next runs with the reason.
	s.review.OnReason(s.runs.Queue, s.runs.Record)
	// Task comments are published with the proposals' previews: one
	// publisher per document, or each publication would erase the other's.
	s.review.AddDocumentDiagnostics(s.runs.TaskDiagnostics)
	for m, r := range s.methodTable() {
		s.core.Handle(m, r)
	}
	return s
}

// Serve runs the LSP session on in/out until the editor sends exit, closes
// the input, dies (processId), sends an unframeable header, or ctx ends. It
// returns the process exit code: ExitOK after a clean shutdown+exit,
// ExitNoShutdown without shutdown, ExitBadInput for unreadable input.
// Background work is cancelled and awaited before it returns; a reader
// goroutine blocked on in may outlive it until in is closed (os.Stdin never
// is: the caller exits the process). A Server serves once.
func (s *Server) Serve(ctx context.Context, in io.Reader, out io.Writer) int {
	s.docs.StartWatcher()
	return s.core.Serve(ctx, in, out)
}

// Serve is shorthand for New(opts).Serve(ctx, in, out).
func Serve(ctx context.Context, in io.Reader, out io.Writer, opts Options) int {
	return New(opts).Serve(ctx, in, out)
}

// SetRunOptions sets the options of agent runs. Call it before Serve.
func (s *Server) SetRunOptions(o RunOptions) { s.runs.SetOptions(o) }

// View returns the workspace view the server synchronises documents into.
func (s *Server) View() *workspace.View { return s.view }

// Session returns what initialize negotiated (a zero Session before it).
func (s *Server) Session() *Session { return s.core.Session() }

// Folders returns the workspace folders as the editor gave them (absolute
// paths, first one first).
func (s *Server) Folders() []string { return s.docs.Folders() }

// InitializationOptions returns initialize's initializationOptions (nil if
// none were sent).
func (s *Server) InitializationOptions() json.RawMessage { return s.core.InitializationOptions() }

// Settings returns the agentls settings of the latest
// workspace/didChangeConfiguration: the value of settings.agentls when
// present, else the whole settings object; nil if none was received.
func (s *Server) Settings() json.RawMessage { return s.core.Settings() }

// OnSettingsChange registers fn to run (on the read loop, so it must be
// quick and must not call the client) after each didChangeConfiguration
// that carried settings, with the new Settings value.
func (s *Server) OnSettingsChange(fn func(json.RawMessage)) { s.core.OnSettingsChange(fn) }
