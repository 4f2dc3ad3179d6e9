// Package lifetime owns a server's work from its start to its exit: the
// handlers running for the peer, the goroutines the server starts on its
// own, and the bounded wait at the end. Every face makes the same three
// promises (no handler starts once the server is exiting, no goroutine it
// starts goes unwaited, exiting never hangs on work that ignores
// cancellation), so they are kept here once.
package lifetime

import (
	"context"
	"log/slog"
	"sync"
	"time"
)

// DefaultBound is how long Wait and Await wait for work that ignores
// cancellation: long enough for a handler to notice the cancelled context
// and save what it holds, short enough that an editor closing never waits
// on a stuck model stream or child process.
const DefaultBound = 5 * time.Second

// Group is one server's lifetime. Create it with New; the zero value is
// not usable.
type Group struct {
	ctx    context.Context
	cancel context.CancelFunc
	log    *slog.Logger
	bound  time.Duration

	mu       sync.Mutex
	closing  bool
	handlers count // Enter … leave
	tasks    count // Go
}

// count is a number of running things with a channel closed when it drops
// to zero, made only when someone waits (under Group.mu).
type count struct {
	n    int
	idle chan struct{}
}

func (c *count) add() { c.n++ }

func (c *count) done() {
	c.n--
	if c.n == 0 && c.idle != nil {
		close(c.idle)
		c.idle = nil
	}
}

func (c *count) zero() <-chan struct{} {
	if c.n == 0 {
		return closed
	}
	if c.idle == nil {
		c.idle = make(chan struct{})
	}
	return c.idle
}

var closed = func() chan struct{} { c := make(chan struct{}); close(c); return c }()

// New returns a running Group logging to log (nil discards).
func New(log *slog.Logger) *Group {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	g := &Group{log: log, bound: DefaultBound}
	g.ctx, g.cancel = context.WithCancel(context.Background())
	return g
}

// Context is the server's lifetime: Close cancels it. Background work and
// messages to the peer sent outside a request run under it.
func (g *Group) Context() context.Context { return g.ctx }

// Enter registers a handler; ok is false once Close was called, and the
// face then answers "exiting" instead of starting work nobody will wait
// for. Call leave (once) when the handler returns.
func (g *Group) Enter() (leave func(), ok bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.closing {
		return nil, false
	}
	g.handlers.add()
	var once sync.Once
	return func() {
		once.Do(func() {
			g.mu.Lock()
			g.handlers.done()
			g.mu.Unlock()
		})
	}, true
}

// Go runs fn on a goroutine the group owns: fn gets the lifetime context
// and Wait waits for it; a panic is logged with name instead of ending the
// process. It runs even once closing (with the context already cancelled),
// because a handler finishing during exit may hand its cleanup (closing
// MCP servers, awaiting child goroutines) to it, and dropping that would
// leak the very processes exiting is meant to end.
func (g *Group) Go(name string, fn func(ctx context.Context)) {
	g.mu.Lock()
	g.tasks.add()
	g.mu.Unlock()
	go func() {
		defer func() {
			g.mu.Lock()
			g.tasks.done()
			g.mu.Unlock()
		}()
		defer func() {
			if p := recover(); p != nil {
				g.log.Error("background task panicked", "task", name, "panic", p)
			}
		}()
		fn(g.ctx)
	}()
}

// Close refuses new handlers and cancels the lifetime context. A face that
// must do something between the two steps of exiting (ACP cancels its
// prompt turns) calls Close, does it, then Wait; the others call Stop.
func (g *Group) Close() {
	g.mu.Lock()
	g.closing = true
	g.mu.Unlock()
	g.cancel()
}

// Closing reports whether Close was called, for state a face must stop
// accepting at the same moment as handlers (ACP's session table).
func (g *Group) Closing() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.closing
}

// Wait waits for the handlers, then for the background goroutines, at
// most the bound in all; it reports whether everything ended. Handlers
// come first: once none runs, nothing but the goroutines themselves can
// start more background work, so the second wait sees a count that only
// falls.
func (g *Group) Wait() bool {
	t := time.NewTimer(g.bound)
	defer t.Stop()
	for _, phase := range []struct {
		what string
		c    *count
	}{{"handlers", &g.handlers}, {"background tasks", &g.tasks}} {
		g.mu.Lock()
		zero := phase.c.zero()
		g.mu.Unlock()
		select {
		case <-zero:
		case <-t.C:
			g.log.Error("gave up waiting at exit", "what", phase.what, "after", g.bound)
			return false
		}
	}
	return true
}

// Stop is Close then Wait.
func (g *Group) Stop() bool {
	g.Close()
	return g.Wait()
}

// Await waits, at most the bound, for done (something else that must end
// before the process exits, such as a connection); it reports whether it
// did.
func (g *Group) Await(what string, done <-chan struct{}) bool {
	t := time.NewTimer(g.bound)
	defer t.Stop()
	select {
	case <-done:
		return true
	case <-t.C:
		g.log.Error("gave up waiting at exit", "what", what, "after", g.bound)
		return false
	}
}
