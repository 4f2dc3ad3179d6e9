// Package mcpset is the one owner of a running MCP server set for every face
// (LSP server, ACP session, `agentls run`), which only maps its reports to
// messages. Rules: a set restarts only when it changed (mcp.SetKey), so a
// reload naming the same servers keeps them connected; waits for servers
// are bounded (mcp.startupTimeoutSeconds); a server's settled state is
// reported once per change, not per reconnection; the caller's map is
// neither changed nor kept.
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
	// OnState receives a server's state when it settles anew: ready (just
	// connected, or with another tool count) or failed (a new reason). It
	// runs on the set's watcher goroutine, one call at a time, and must not
	// call Switch, Ensure or Close (they wait for that goroutine).
	OnState func(mcp.ServerStatus)
	// Logger receives starts and state changes; nil discards them.
	Logger *slog.Logger
}

// Set holds the running mcp.Manager of one owner (a server, an ACP session,
// a headless run) and its key. Its methods are safe for concurrent use.
type Set struct {
	life context.Context
	opts Options

	// op serializes Switch and Close, which wait for servers; key,
	// closed and stopW are theirs.
	op     sync.Mutex
	key    string
	closed bool
	stopW  func() // stops cur's watcher and waits for it

	mu                sync.Mutex
	cur               *mcp.Manager  // nil when no server runs; written under op too
	changed           chan struct{} // closed and replaced when cur or applied changes
	expected, applied uint64        // sets announced (Expect), the highest applied
}

// New returns an empty set. ctx bounds the life of every server it starts
// (cancelling it stops them like Close; call Close anyway to wait for them).
func New(ctx context.Context, opts Options) *Set {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	return &Set{life: ctx, opts: opts, changed: make(chan struct{})}
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
	if s.closed || key == s.key {
		return s.cur, false
	}
	stopped := s.stop()
	s.key = key
	if len(servers) == 0 || s.life.Err() != nil {
		return nil, stopped
	}
	mo.Servers = maps.Clone(servers)
	m := mcp.NewManager(mo)
	m.Start(s.life)
	s.stopW = s.watch(m)
	s.mu.Lock()
	s.cur = m
	s.wake()
	s.mu.Unlock()
	s.opts.Logger.Info("MCP servers starting", "servers", strings.Join(slices.Sorted(maps.Keys(servers)), ", "))
	return m, stopped
}

// Ensure is Switch followed by Wait, for a face that starts a run right
// away: the manager it returns offers the tools of the servers ready by
// then (mcp.Manager.SyncInto keeps a run's registry up to date later).
func (s *Set) Ensure(ctx context.Context, servers map[string]mcp.ServerConfig, mo mcp.Options, timeout time.Duration) *mcp.Manager {
	m, _ := s.Switch(servers, mo)
	if m != nil && !s.Wait(ctx, timeout, nil) && ctx.Err() == nil {
		s.opts.Logger.Warn("MCP servers still connecting; going on without them", "waited", timeout)
	}
	return m
}

// Expect announces a set on its way (a configuration load has started):
// Wait waits for it too, until Applied gets the number Expect returns. A
// face that loads its configuration in the background needs it, so that a
// run started meanwhile waits for the servers of the latest configuration.
func (s *Set) Expect() uint64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.expected++
	return s.expected
}

// Applied records that the set announced as gen has been handed to Switch
// (or that its load ended without one).
func (s *Set) Applied(gen uint64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.applied = max(s.applied, gen)
	s.wake()
}

// Wait holds the caller, for at most timeout, until every set announced
// (Expect) has been applied and every server of the running set is ready
// or has failed (a server retrying after a failure still connects). waiting,
// if set, is told what it waits for whenever that changes: the servers
// still connecting, or none while an announced set is still on its way. It
// reports whether everything settled; a timeout <= 0 does not wait.
func (s *Set) Wait(ctx context.Context, timeout time.Duration, waiting func(connecting []string)) bool {
	wctx, cancel := context.WithTimeout(ctx, max(timeout, 0))
	defer cancel()
	var last []string
	for told := false; ; told = true {
		s.mu.Lock()
		m, changed, pending := s.cur, s.changed, s.applied < s.expected
		s.mu.Unlock()
		var mchanged <-chan struct{}
		var left []string
		if m != nil && !pending {
			mchanged = m.Changed() // before looking, so no change slips by
			for _, st := range m.Status() {
				if st.State == mcp.StateConnecting {
					left = append(left, st.Name)
				}
			}
		}
		if !pending && len(left) == 0 {
			return true
		}
		if waiting != nil && (!told || !slices.Equal(left, last)) {
			waiting(left)
		}
		last = left
		select {
		case <-wctx.Done():
			return false
		case <-changed:
		case <-mchanged:
		}
	}
}

// AwaitForRun is Wait for a run about to start, bounded by timeout (no
// wait when it is <= 0): report (nil: none) is told in words what the run
// waits for (Waiting), for the run's progress. A server still connecting
// at the deadline, or failed, is left out and the deadline logged: the
// run's turns offer only the tools of ready servers.
func (s *Set) AwaitForRun(ctx context.Context, timeout time.Duration, report func(status string)) bool {
	if timeout <= 0 {
		return true
	}
	status := ""
	ok := s.Wait(ctx, timeout, func(names []string) {
		status = Waiting(names)
		if report != nil {
			report(status)
		}
	})
	if !ok && ctx.Err() == nil {
		s.opts.Logger.Warn("run starts without MCP servers still connecting", "waited", timeout, "status", status)
	}
	return ok
}

// Waiting says what a run waits for while Wait reports names connecting
// (none: a configuration on its way).
func Waiting(names []string) string {
	switch len(names) {
	case 0:
		return "waiting for the MCP configuration"
	case 1:
		return "waiting for MCP server " + names[0] + " to start"
	}
	return "waiting for MCP servers " + strings.Join(names, ", ") + " to start"
}

// Close stops the running set and waits for its servers (and their child
// processes) to end; later Switches start nothing.
func (s *Set) Close() {
	s.op.Lock()
	defer s.op.Unlock()
	s.closed = true
	s.stop()
}

// stop closes the running manager, if any, and reports whether there was
// one. Called with op held.
func (s *Set) stop() bool {
	s.mu.Lock()
	m := s.cur
	s.cur = nil
	s.wake()
	s.mu.Unlock()
	if m == nil {
		return false
	}
	s.stopW() // before Close: a closing set's states are no news
	if err := m.Close(); err != nil {
		s.opts.Logger.Warn("stopping MCP servers", "err", err)
	}
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
	ctx, quit := context.WithCancel(s.life)
	done := make(chan struct{})
	go func() {
		defer close(done)
		seen := map[string]string{}
		for {
			changed := m.Changed() // before looking, so no change slips by
			for _, st := range m.Status() {
				if st.State != mcp.StateReady && st.State != mcp.StateFailed {
					continue
				}
				now := fmt.Sprint(st.State, len(st.Tools)) // ready: its tool count
				if st.State == mcp.StateFailed {
					now += st.Err
				}
				if seen[st.Name] == now {
					continue
				}
				seen[st.Name] = now
				s.opts.Logger.Info("MCP server state", "server", st.Name, "state", st.State, "tools", len(st.Tools), "err", st.Err)
				if s.opts.OnState != nil {
					s.opts.OnState(st)
				}
			}
			select {
			case <-changed:
			case <-ctx.Done():
				return
			}
		}
	}()
	return func() { quit(); <-done }
}
