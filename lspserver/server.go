package lspserver

import (
	"context"
	"io"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"go.lsp.dev/jsonrpc2"

	"github.com/agentls/agentls/internal/workspace"
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
	ExitOK         = 0 // exit after shutdown, or input closed after shutdown
	ExitNoShutdown = 1 // exit, input end or editor death without shutdown first
	ExitBadInput   = 2 // the input could not be framed (ErrBadHeader) or the connection failed
)

// Server is one LSP session. Create it with New and run it with Serve; the
// method table (methods.go) lists everything it answers.
type Server struct {
	opts Options
	log  *slog.Logger
	view *workspace.View

	ctx    context.Context // server lifetime: parent of all background work
	cancel context.CancelFunc

	client Client // typed server→client messages
	// reclaim hands the memory of closed documents back (reclaim.go).
	reclaim reclaimer
	// clientTimeout is client.requestTimeoutSeconds of the latest loaded
	// configuration, in nanoseconds; 0 until one is loaded (config.go).
	clientTimeout atomic.Int64
	routes        map[string]route // the method table

	life     lifecycle
	inflight inflight
	bg       sync.WaitGroup // goroutines the server owns (goBackground)

	ws     workspaceState
	config settings
	watch  folderWatch

	runs agentRuns // agent runs, their configuration and MCP servers (runs.go)

	review reviewState   // proposals under review (proposals.go)
	sess   sessionsState // conversations and their persistence (sessions.go)
	diags  previewDiags  // proposals as diagnostics for plugin-less clients (diagnostics.go)
	plans  planBook      // finished plans awaiting approval (plan.go)
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
	view := opts.View
	if view == nil {
		view = workspace.New(workspace.Options{Logger: log.With("component", "view")})
	}
	s := &Server{opts: opts, log: log, view: view}
	s.ctx, s.cancel = context.WithCancel(context.Background())
	s.life.init()
	s.watch.wake = make(chan struct{}, 1)
	s.routes = s.methodTable()
	return s
}

// View returns the workspace view the server synchronises documents into.
func (s *Server) View() *workspace.View { return s.view }

// Serve runs the LSP session on in/out until the editor sends exit, closes
// the input, dies (processId), sends an unframeable header, or ctx ends. It
// returns the process exit code: ExitOK after a clean shutdown+exit,
// ExitNoShutdown without shutdown, ExitBadInput for unreadable input.
// Background work is cancelled and awaited before it returns; a reader
// goroutine blocked on in may outlive it until in is closed (os.Stdin never
// is: the caller exits the process). A Server serves once.
func (s *Server) Serve(ctx context.Context, in io.Reader, out io.Writer) int {
	w := newWire(in, out, s.log)
	conn := jsonrpc2.NewConn(jsonrpc2.NewHeaderStream(w), jsonrpc2.WithCodec(codec{}))
	s.client = newConnClient(conn, s.clientRequestTimeout)
	if s.opts.WrapClient != nil {
		s.client = s.opts.WrapClient(s.client)
	}
	connCtx, stopConn := context.WithCancel(s.ctx)
	defer stopConn()
	s.startWatcher()
	conn.Go(connCtx, s.handler())

	var code int
	select {
	case code = <-s.life.exit:
		s.log.Info("exit notification", "code", code)
	case <-w.ended:
		code = s.inputEndCode(w)
	case <-s.life.parentGone:
		code = s.endCode()
		s.log.Info("editor process is gone; exiting", "code", code)
	case <-conn.Done():
		select {
		case <-w.ended: // the usual way the connection ends
			code = s.inputEndCode(w)
		default:
			code = ExitBadInput
			s.log.Error("connection failed; exiting", "err", conn.Err())
		}
	case <-ctx.Done():
		code = s.endCode()
		s.log.Info("serve cancelled; exiting", "err", ctx.Err())
	}
	s.stop()
	select {
	case <-w.ended: // input is gone: the reader and handlers finish promptly
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
func (s *Server) inputEndCode(w *wire) int {
	select {
	case code := <-s.life.exit: // exit was the last message before the input ended
		s.log.Info("exit notification", "code", code)
		return code
	default:
	}
	if err := w.inputErr(); err != nil {
		s.log.Error("cannot read LSP input; exiting", "err", err)
		return ExitBadInput
	}
	code := s.endCode()
	s.log.Info("input closed; exiting", "code", code)
	return code
}

// Serve is shorthand for New(opts).Serve(ctx, in, out).
func Serve(ctx context.Context, in io.Reader, out io.Writer, opts Options) int {
	return New(opts).Serve(ctx, in, out)
}

func (s *Server) endCode() int {
	if s.life.isShutdown() {
		return ExitOK
	}
	return ExitNoShutdown
}

// stop cancels all background work and waits for it and for in-flight
// handlers (which observe cancellation) to finish.
func (s *Server) stop() {
	s.cancel()
	// Handlers first: once none runs, nothing can start background work.
	s.inflight.close()
	s.awaitBounded("handlers", s.inflight.done())
	bgDone := make(chan struct{})
	go func() { s.bg.Wait(); close(bgDone) }()
	s.awaitBounded("background tasks", bgDone)
}

// goBackground runs fn on a goroutine the server owns: it gets the server
// context (cancelled at exit) and Serve waits for it. Use it for
// server→client requests triggered by notifications, which must not block
// the read loop.
func (s *Server) goBackground(name string, fn func(ctx context.Context)) {
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
