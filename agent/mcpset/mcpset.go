// Package mcpset is the one owner of a running set of MCP servers for every
// face (the LSP server, the ACP server, `agentls run`). The faces hand it the
// servers they want (from the configuration, and over ACP the client's own)
// and map what it reports to their messages; the rules live here once:
//
//   - the set restarts only when it changed (mcp.SetKey): a configuration
//     reload that names the same servers keeps them connected;
//   - a run waits for servers still connecting, and never longer than
//     mcp.startupTimeoutSeconds: a server that hangs must not hold it;
//   - each server's settled state (ready with its tools, or failed with the
//     reason) is reported once per change, not on every reconnection;
//   - the caller's map is never changed nor kept: a configuration stays the
//     caller's, and the running set cannot change behind the set's key.
package mcpset

import (
	"context"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/agentls/agentls/tools/mcp"
)

// Options configure a Set.
type Options struct {
	// OnState receives a server's state when it settles anew: ready (its
	// tool count changed or it just connected) or failed (a new reason).
	// Connecting and disabled servers are not reported, and a server that
	// reconnects to the same state is not reported again. It runs on the
	// set's watcher goroutine, one call at a time, and must not call Switch,
	// Ensure or Close (they wait for that goroutine).
	OnState func(mcp.ServerStatus)
	// Logger receives starts, stops and state changes; nil discards them.
	Logger *slog.Logger
}

// Set holds the running mcp.Manager of one owner (a server, an ACP session,
// a headless run) and its key. Its methods are safe for concurrent use.
type Set struct {
	life context.Context
	opts Options
	log  *slog.Logger

	op sync.Mutex // serializes Switch and Close, which wait for servers

	mu      sync.Mutex
	cur     *mcp.Manager // nil when no server runs
	key     string
	closed  bool
	changed chan struct{} // closed and replaced when cur changes
	stopW   func()        // stops cur's watcher and waits for it
}

// New returns an empty set. ctx bounds the life of every server it starts
// (cancelling it stops them like Close; call Close anyway to wait for them).
func New(ctx context.Context, opts Options) *Set {
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Set{life: ctx, opts: opts, log: log, changed: make(chan struct{})}
}

// Current returns the running manager, nil when none.
func (s *Set) Current() *mcp.Manager {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cur
}

// Switch makes servers the running set without waiting for them to
// connect. The same set (by mcp.SetKey) keeps the running manager; a
// changed one stops it and starts a new one with mo, whose Servers is
// replaced by a copy of servers; an empty one just stops it. It returns the
// manager now running (nil when none) and whether a running set was
// stopped. After Close it starts nothing.
func (s *Set) Switch(servers map[string]mcp.ServerConfig, mo mcp.Options) (*mcp.Manager, bool) {
	s.op.Lock()
	defer s.op.Unlock()
	key := mcp.SetKey(servers)
	s.mu.Lock()
	if s.closed || key == s.key {
		cur := s.cur
		s.mu.Unlock()
		return cur, false
	}
	s.mu.Unlock()
	stopped := s.stop()
	if len(servers) == 0 || s.life.Err() != nil {
		s.mu.Lock()
		s.key = key
		s.mu.Unlock()
		return nil, stopped
	}
	mo.Servers = maps.Clone(servers)
	m := mcp.NewManager(mo)
	m.Start(s.life)
	stopW := s.watch(m)
	s.mu.Lock()
	s.cur, s.key, s.stopW = m, key, stopW
	s.wake()
	s.mu.Unlock()
	s.log.Info("MCP servers starting", "servers", strings.Join(slices.Sorted(maps.Keys(servers)), ", "))
	return m, stopped
}

// Ensure is Switch followed by Wait, for a face that starts a run right
// away: the manager it returns offers the tools of the servers ready by
// then (mcp.Manager.SyncInto keeps a run's registry up to date later).
func (s *Set) Ensure(ctx context.Context, servers map[string]mcp.ServerConfig, mo mcp.Options, timeout time.Duration) *mcp.Manager {
	m, _ := s.Switch(servers, mo)
	if m != nil {
		if left := s.Wait(ctx, timeout, nil); len(left) > 0 && ctx.Err() == nil {
			s.log.Warn("MCP servers still connecting; going on without them", "servers", strings.Join(left, ", "), "waited", timeout)
		}
	}
	return m
}

// Wait holds the caller, for at most timeout, until every server of the
// running set is ready or has failed (a server retrying after a failure
// still connects), following the set when Switch replaces it. waiting, if
// set, gets the names of the servers still connecting each time that list
// changes. It returns the servers still connecting when it gave up (nil
// when none); a timeout <= 0 does not wait.
func (s *Set) Wait(ctx context.Context, timeout time.Duration, waiting func(names []string)) []string {
	wctx, cancel := context.WithTimeout(ctx, max(timeout, 0))
	defer cancel()
	var last []string
	for {
		s.mu.Lock()
		m, changed := s.cur, s.changed
		s.mu.Unlock()
		var mchanged <-chan struct{}
		var left []string
		if m != nil {
			mchanged = m.Changed() // before looking, so no change slips by
			left = Connecting(m)
		}
		if len(left) == 0 {
			return nil
		}
		if waiting != nil && !slices.Equal(left, last) {
			waiting(left)
		}
		last = left
		select {
		case <-wctx.Done():
			return left
		case <-changed:
		case <-mchanged:
		}
	}
}

// Connecting names m's servers still connecting, sorted.
func Connecting(m *mcp.Manager) []string {
	var out []string
	for _, st := range m.Status() {
		if st.State == mcp.StateConnecting {
			out = append(out, st.Name)
		}
	}
	return out
}

// Close stops the running set and waits for its servers (and their child
// processes) to end; later Switches start nothing. Safe to call more than
// once.
func (s *Set) Close() {
	s.op.Lock()
	defer s.op.Unlock()
	s.mu.Lock()
	s.closed = true
	s.mu.Unlock()
	s.stop()
}

// stop closes the running manager, if any, and reports whether there was
// one. Called with op held.
func (s *Set) stop() bool {
	s.mu.Lock()
	m, stopW := s.cur, s.stopW
	s.cur, s.key, s.stopW = nil, "", nil
	s.wake()
	s.mu.Unlock()
	if m == nil {
		return false
	}
	stopW() // before Close: a closing set's states are no news
	if err := m.Close(); err != nil {
		s.log.Warn("stopping MCP servers", "err", err)
	}
	s.log.Info("MCP servers stopped")
	return true
}

// wake must be called with mu held.
func (s *Set) wake() {
	close(s.changed)
	s.changed = make(chan struct{})
}

// watch reports m's state changes on a goroutine until the returned func
// stops it (which waits for it).
func (s *Set) watch(m *mcp.Manager) func() {
	quit, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		seen := map[string]string{}
		for {
			changed := m.Changed() // before looking, so no change slips by
			for _, st := range m.Status() {
				var now string
				switch st.State {
				case mcp.StateReady:
					now = fmt.Sprintf("ready %d", len(st.Tools))
				case mcp.StateFailed:
					now = "failed " + st.Err
				default:
					continue
				}
				if seen[st.Name] == now {
					continue
				}
				seen[st.Name] = now
				s.log.Info("MCP server state", "server", st.Name, "state", st.State, "tools", len(st.Tools), "err", st.Err)
				if s.opts.OnState != nil {
					s.opts.OnState(st)
				}
			}
			select {
			case <-changed:
			case <-quit:
				return
			case <-s.life.Done():
				return
			}
		}
	}()
	return func() { close(quit); <-done }
}
