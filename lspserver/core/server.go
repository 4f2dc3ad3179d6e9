package core

import (
	"context"
	"io"
	"log/slog"
	"time"

	"go.lsp.dev/jsonrpc2"

	"github.com/agentls/agentls/internal/lifetime"
	"github.com/agentls/agentls/internal/lspcodec"
	"github.com/agentls/agentls/internal/rpcwire"
)

// Options configures a Server. The zero value is usable.
type Options struct {
	// Version is reported as serverInfo.version.
	Version string
	// Logger receives the server's logs; nil discards them. Never stdout:
	// stdout is the LSP wire.
	Logger *slog.Logger
	// ParentPollInterval is how often the editor process named by
	// initialize's processId is checked for life; zero means 3s.
	ParentPollInterval time.Duration
	// WrapClient, when set, wraps the Client the server uses for
	// server→client messages (to record or intercept them).
	WrapClient func(Client) Client
	// ClientTimeout is the bound of server→client requests that do not
	// wait for a human (client.requestTimeoutSeconds); nil is
	// DefaultClientTimeout. It is called for every request, so the
	// configuration can change it.
	ClientTimeout func() time.Duration
}

// DefaultClientTimeout bounds server→client requests when
// Options.ClientTimeout is nil.
const DefaultClientTimeout = 30 * time.Second

// Exit codes of Serve.
const (
	ExitOK         = 0 // exit after shutdown, or input closed after shutdown
	ExitNoShutdown = 1 // exit, input end or editor death without shutdown first
	ExitBadInput   = 2 // the input could not be framed (rpcwire.ErrBadHeader) or the connection failed
)

// Server is the connection side of one LSP session: framing, dispatch
// through the method table, the lifecycle, the editor's settings and the
// typed Client. The other parts (documents, runs, review) hold a *Server
// and register their handlers with Handle. Create it with New and run it
// with Serve.
type Server struct {
	opts Options
	log  *slog.Logger

	work *lifetime.Group // handlers, background work and the bounded wait at exit

	client Client           // typed server→client messages; nil until Serve (or Attach)
	routes map[string]Route // the method table

	life lifecycle

	config settings

	actions actionsGen // what cached code action lists depend on (actionsgen.go)
}

// New returns a Server that is not yet connected; Serve connects and runs it.
func New(opts Options) *Server {
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if opts.ParentPollInterval <= 0 {
		opts.ParentPollInterval = 3 * time.Second
	}
	if opts.ClientTimeout == nil {
		opts.ClientTimeout = func() time.Duration { return DefaultClientTimeout }
	}
	s := &Server{opts: opts, log: log, routes: map[string]Route{}, work: lifetime.New(log)}
	s.life.init()
	return s
}

// Handle lists method in the method table with its route (built with
// Request or Notification). Call it before Serve.
func (s *Server) Handle(method string, r Route) { s.routes[method] = r }

// Routes returns the method table, for the param fuzzer.
func (s *Server) Routes() map[string]Route { return s.routes }

// Log is the server's logger.
func (s *Server) Log() *slog.Logger { return s.log }

// Version is serverInfo.version as configured ("" if none).
func (s *Server) Version() string { return s.opts.Version }

// Context is the server-lifetime context: Serve cancels it at exit. Long
// work (agent runs) and server→client messages sent outside a request
// use it.
func (s *Server) Context() context.Context { return s.work.Context() }

// Client is the typed server→client interface (nil before Serve).
func (s *Server) Client() Client { return s.client }

// Attach sets the client and the negotiated session without a
// connection, for driving the parts in tests and benchmarks; Serve sets
// both from the connection.
func (s *Server) Attach(c Client, sess *Session) {
	s.client = c
	if sess != nil {
		s.life.sess.Store(sess)
	}
}

// Serve runs the LSP session on in/out until the editor sends exit, closes
// the input, dies (processId), sends an unframeable header, or ctx ends. It
// returns the process exit code: ExitOK after a clean shutdown+exit,
// ExitNoShutdown without shutdown, ExitBadInput for unreadable input.
// Background work is cancelled and awaited before it returns; a reader
// goroutine blocked on in may outlive it until in is closed (os.Stdin never
// is: the caller exits the process). A Server serves once.
func (s *Server) Serve(ctx context.Context, in io.Reader, out io.Writer) int {
	w := rpcwire.NewFrames(in, out, s.log)
	conn := jsonrpc2.NewConn(jsonrpc2.NewHeaderStream(w), jsonrpc2.WithCodec(lspcodec.Codec{}))
	s.client = newConnClient(conn, s.opts.ClientTimeout)
	if s.opts.WrapClient != nil {
		s.client = s.opts.WrapClient(s.client)
	}
	connCtx, stopConn := context.WithCancel(s.work.Context())
	defer stopConn()
	conn.Go(connCtx, s.handler())

	var code int
	select {
	case code = <-s.life.exit:
		s.log.Info("exit notification", "code", code)
	case <-w.Ended():
		code = s.inputEndCode(w)
	case <-s.life.parentGone:
		code = s.endCode()
		s.log.Info("editor process is gone; exiting", "code", code)
	case <-conn.Done():
		select {
		case <-w.Ended(): // the usual way the connection ends
			code = s.inputEndCode(w)
		default:
			code = ExitBadInput
			s.log.Error("connection failed; exiting", "err", conn.Err())
		}
	case <-ctx.Done():
		code = s.endCode()
		s.log.Info("serve cancelled; exiting", "err", ctx.Err())
	}
	s.Stop()
	select {
	case <-w.Ended(): // input is gone: the reader and handlers finish promptly
		s.work.Await("connection", conn.Done())
	default: // the reader may stay blocked on in; the caller exits the process
	}
	return code
}

// inputEndCode is the exit code once the input has ended.
func (s *Server) inputEndCode(w *rpcwire.Frames) int {
	select {
	case code := <-s.life.exit: // exit was the last message before the input ended
		s.log.Info("exit notification", "code", code)
		return code
	default:
	}
	if err := w.InputErr(); err != nil {
		s.log.Error("cannot read LSP input; exiting", "err", err)
		return ExitBadInput
	}
	code := s.endCode()
	s.log.Info("input closed; exiting", "code", code)
	return code
}

func (s *Server) endCode() int {
	if s.life.isShutdown() {
		return ExitOK
	}
	return ExitNoShutdown
}

// Stop cancels all background work and waits (bounded) for in-flight
// handlers (which observe cancellation), then for it. Serve calls it at
// exit; tests that drive the parts without Serve call it at the end.
func (s *Server) Stop() { s.work.Stop() }

// Go runs fn on a goroutine the server owns: it gets the server context
// (cancelled at exit) and Serve waits for it. Use it for server→client
// requests triggered by notifications, which must not block the read
// loop, and for long work.
func (s *Server) Go(name string, fn func(ctx context.Context)) { s.work.Go(name, fn) }
