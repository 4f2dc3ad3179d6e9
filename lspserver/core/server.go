package core

import (
	"context"
	"io"
	"log/slog"
	"sync"
	"time"

	"go.lsp.dev/jsonrpc2"

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

	ctx    context.Context // server lifetime: parent of all background work
	cancel context.CancelFunc

	client Client           // typed server→client messages; nil until Serve (or Attach)
	routes map[string]Route // the method table

	life     lifecycle
	inflight inflight
	bg       sync.WaitGroup // goroutines the server owns (Go)

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
	s := &Server{opts: opts, log: log, routes: map[string]Route{}}
	s.ctx, s.cancel = context.WithCancel(context.Background())
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
func (s *Server) Context() context.Context { return s.ctx }

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
	connCtx, stopConn := context.WithCancel(s.ctx)
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
		s.awaitBounded("connection", conn.Done())
	default: // the reader may stay blocked on in; the caller exits the process
	}
	return code
}

// stopTimeout bounds how long Serve waits for work that ignores
// cancellation, so exiting can never hang.
const stopTimeout = 5 * time.Second

func (s *Server) awaitBounded(what string, done <-chan struct{}) {
	t := time.NewTimer(stopTimeout)
	defer t.Stop()
	select {
	case <-done:
	case <-t.C:
		s.log.Error("gave up waiting at exit", "what", what, "after", stopTimeout)
	}
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

// Stop cancels all background work and waits (bounded) for it and for
// in-flight handlers (which observe cancellation) to finish. Serve calls
// it at exit; tests that drive the parts without Serve call it at the end.
func (s *Server) Stop() {
	s.cancel()
	// Handlers first: once none runs, nothing can start background work.
	s.inflight.close()
	s.awaitBounded("handlers", s.inflight.done())
	bgDone := make(chan struct{})
	go func() { s.bg.Wait(); close(bgDone) }()
	s.awaitBounded("background tasks", bgDone)
}

// Go runs fn on a goroutine the server owns: it gets the server context
// (cancelled at exit) and Serve waits for it. Use it for server→client
// requests triggered by notifications, which must not block the read
// loop, and for long work.
func (s *Server) Go(name string, fn func(ctx context.Context)) {
	s.bg.Add(1)
	go func() {
		defer s.bg.Done()
		defer func() {
			if p := recover(); p != nil {
				s.log.Error("background task panicked", "task", name, "panic", p)
			}
		}()
		fn(s.ctx)
	}()
}

// inflight counts running handlers so Serve can wait for them, and refuses
// new ones once closing.
type inflight struct {
	mu      sync.Mutex
	n       int
	closing bool
	idle    chan struct{} // closed when closing and n reaches 0
}

func (f *inflight) enter() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closing {
		return false
	}
	f.n++
	return true
}

func (f *inflight) leave() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.n--
	if f.closing && f.n == 0 && f.idle != nil {
		close(f.idle)
		f.idle = nil
	}
}

func (f *inflight) close() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.closing = true
	f.idle = make(chan struct{})
	if f.n == 0 {
		close(f.idle)
		f.idle = nil
	}
}

// done is closed when every handler that entered has left (after close).
func (f *inflight) done() <-chan struct{} {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.idle == nil {
		c := make(chan struct{})
		close(c)
		return c
	}
	return f.idle
}
