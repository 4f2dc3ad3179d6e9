package acpserver

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"os"
	"sync"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/internal/lifetime"
	"github.com/agentls/agentls/internal/rpcwire"

	acp "github.com/coder/acp-go-sdk"

	"github.com/agentls/agentls/agent/config"
	"github.com/agentls/agentls/tools/script"
)

// Options configures a Server. The zero value is what `agentls acp` uses.
type Options struct {
	// Version is reported as agentInfo.version.
	Version string
	// Logger receives the server's logs (and the SDK's); nil discards them.
	// Never stdout: stdout is the ACP wire.
	Logger *slog.Logger
	// Env reads environment variables for the configuration (API key,
	// OPENAI_BASE_URL, AGENTLS_MODEL, XDG dirs); nil is os.Getenv.
	Env func(string) string
	// UserConfigFile overrides the user config file; "" is the default
	// ($XDG_CONFIG_HOME/agentls/config.json).
	UserConfigFile string
	// StateDir is where sessions and trust decisions are kept: "" is
	// $XDG_STATE_HOME/agentls (else ~/.local/state/agentls), NoState keeps
	// sessions in memory only.
	StateDir string
	// TranscriptDir is where run transcripts go: "" the default state
	// directory, NoState none.
	TranscriptDir string
	// ViewDir is where runs make their proposal views (the scratch copies
	// checks and commands run in): "" is $XDG_CACHE_HOME/agentls/views.
	ViewDir string
}

// NoState as Options.StateDir or Options.TranscriptDir disables saving.
const NoState = agent.NoState

// Server is one ACP connection's agent. Create it with New and run it with
// Serve; it serves once.
type Server struct {
	opts Options
	log  *slog.Logger

	conn *acp.AgentSideConnection

	// work is the server's lifetime: handlers, and background work (MCP
	// servers, command announcements) that ends when Serve ends.
	work *lifetime.Group

	mu     sync.Mutex
	client acp.ClientCapabilities // from initialize

	// live are the connection's sessions, at most maxLiveSessions.
	live agent.LiveSessions[*session]

	// review is the proposal store shared by the connection's sessions
	// (review.go).
	review reviewState
	// runs bounds the agent runs working at once (maxConcurrentRuns).
	runs agent.RunSlots
	// conf loads the configuration with what the user trusted over this
	// connection (config.go).
	conf config.Live
	// scripts bound the script programs of every prompt of the connection
	// together.
	scripts *script.Slots
	// models are the models each endpoint listed, asked once.
	models agent.EndpointModels
	// lang are the language servers the connection's runs share
	// (docs/language-servers.md); closed by stop.
	lang agent.LanguageServerSet
}

// New returns a Server that is not yet connected.
func New(opts Options) *Server {
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if opts.Env == nil {
		opts.Env = os.Getenv
	}
	s := &Server{opts: opts, log: log, work: lifetime.New(log)}
	s.live.Max, s.live.StopWait = maxLiveSessions, lifetime.DefaultBound
	s.models.Remember = true
	s.review = newReviewState(log)
	s.conf.SetSources(opts.UserConfigFile, opts.Env)
	s.scripts = script.NewSlots(0)
	return s
}

// Serve runs the ACP connection on in (the client's messages) and out
// until the client closes its end or ctx ends; then every prompt in
// progress is cancelled, sessions are saved and MCP servers stopped
// before it returns. A reader blocked on in may outlive it until in is
// closed (os.Stdin never is: the caller exits the process).
func (s *Server) Serve(ctx context.Context, in io.Reader, out io.Writer) error {
	w := &rpcwire.LockedWriter{W: out}
	pr, pw := io.Pipe()
	s.conn = acp.NewAgentSideConnection(s, w, pr)
	s.conn.SetLogger(s.log.With("component", "acp-sdk"))
	filtered := make(chan error, 1)
	go func() {
		f := &rpcwire.Lines{In: in, Out: pw, Reply: w, Log: s.log}
		err := f.Run()
		pw.CloseWithError(err) // the SDK's reader sees the end of input
		filtered <- err
	}()
	var err error
	select {
	case <-s.conn.Done():
		s.log.Info("client closed the connection")
	case <-ctx.Done():
		s.log.Info("serve cancelled", "err", ctx.Err())
		err = ctx.Err()
		pr.CloseWithError(ctx.Err()) // ends the SDK's reader; our filter's next write fails
	}
	s.stop()
	select {
	case ferr := <-filtered:
		if ferr != nil && !errors.Is(ferr, io.ErrClosedPipe) && err == nil {
			err = ferr
		}
	default: // the filter may stay blocked on in; the caller exits the process
	}
	return err
}

// stop cancels all work, then every prompt turn, and waits (bounded) for
// handlers and background goroutines, then stops every session's MCP
// servers.
func (s *Server) stop() {
	s.work.Close()
	sessions := s.live.Close() // refuses new sessions, cancels every prompt
	s.work.Wait()
	for _, ss := range sessions {
		ss.close()
	}
	s.lang.Close()
}

// enter registers a handler; it fails once the server is stopping.
func (s *Server) enter() (leave func(), err error) {
	if leave, ok := s.work.Enter(); ok {
		return leave, nil
	}
	return nil, acp.NewInternalError(map[string]any{"error": "agentls is shutting down"})
}

// clientCaps returns what the client said it can do at initialize.
func (s *Server) clientCaps() acp.ClientCapabilities {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.client
}

// session returns the connection's session id, or an invalid-params error
// naming how to get one.
func (s *Server) session(id acp.SessionId) (*session, error) {
	if ss, ok := s.live.Get(string(id)); ok {
		return ss, nil
	}
	return nil, invalidParams("no session %q on this connection: create one with session/new, or open a saved one with session/load or session/resume", id)
}

// invalidParams is a -32602 error with a message for the user.
func invalidParams(format string, args ...any) error {
	return &acp.RequestError{Code: -32602, Message: "Invalid params: " + sprintf(format, args...)}
}

// requestFailed is an internal error carrying a message for the user.
func requestFailed(format string, args ...any) error {
	return &acp.RequestError{Code: -32603, Message: sprintf(format, args...)}
}
