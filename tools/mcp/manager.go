package mcp

import (
	"context"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/agentls/agentls/tools"
)

// Options configure a Manager.
type Options struct {
	// Servers is the "mcpServers" configuration, keyed by server name.
	Servers map[string]ServerConfig
	// Roots are the workspace folders (paths), advertised to servers as MCP
	// roots; the first is also the working directory of stdio servers.
	Roots []string
	// Registry receives the servers' tools as mcp__<server>__<tool>; they are
	// removed again when a server fails or the manager closes. nil: a new
	// registry, see Manager.Registry.
	Registry *tools.Registry
	// Logger receives connection events; nil discards them.
	Logger *slog.Logger
	// CallTimeout bounds one tool call (default 60 s).
	CallTimeout time.Duration
	// ConnectTimeout bounds connecting, the MCP handshake and listing tools
	// (default 30 s).
	ConnectTimeout time.Duration
	// Env looks up ${VAR} in the configuration; nil means os.Getenv.
	Env func(string) string
	// ReconnectAttempts is how many consecutive failed connection attempts
	// mark a server failed (default 3).
	ReconnectAttempts int
	// ReconnectDelay is the wait before the first reconnection; it doubles
	// after each failure (default 1 s).
	ReconnectDelay time.Duration
	// OnProgress, if set, receives every progress notification of a tool
	// call. It runs on the connection's read loop and must not block.
	OnProgress func(Progress)
	// ClientVersion is sent as clientInfo.version (default "dev").
	ClientVersion string
	// Elicit asks the user for what a server requests (elicitation/create);
	// it may block until the user answers or ctx ends. nil declines every
	// request.
	Elicit func(ctx context.Context, e Elicitation) (ElicitResult, error)
	// OAuth is how remote servers that ask for authorization get it.
	OAuth OAuthOptions
}

// Progress is one notifications/progress message for a running tool call.
type Progress struct {
	Server   string  // configured server name
	Tool     string  // registry name of the tool being called
	Progress float64 // increases monotonically
	Total    float64 // 0 when unknown
	Message  string
}

// State is where a server's connection stands.
type State string

// Server states, as shown by Status and "agentls mcp list".
const (
	StateConnecting State = "connecting" // starting, or reconnecting after a failure
	StateReady      State = "ready"      // tools are in the registry
	StateFailed     State = "failed"     // gave up; Err says why
	StateDisabled   State = "disabled"   // "disabled": true in the configuration
)

// ServerStatus describes one configured server.
type ServerStatus struct {
	Name  string
	State State
	// Tools are the registry names of the server's tools, sorted.
	Tools []string
	// Err is the last connection error ("" when none).
	Err string
	// Refreshes counts tool-list refreshes after notifications/tools/list_changed.
	Refreshes int
}

// Manager owns the connections to the configured MCP servers and keeps their
// tools in the registry. Every connection runs in its own goroutine, started
// by Start and stopped by Close.
type Manager struct {
	opts    Options
	log     *slog.Logger
	servers map[string]*server

	mu      sync.Mutex
	roots   []string
	started bool
	closed  bool
	ctx     context.Context // lifetime of the servers, set by Start
	cancel  context.CancelFunc
	changed chan struct{} // closed and replaced on every change
	wg      sync.WaitGroup

	tokens atomic.Int64 // progress tokens
}

// MaxServers bounds the servers one manager starts. Each stdio server is
// a process (often a Node or Python runtime of 50 MB or more), and the
// list may come from an ACP client's session/new or an editor's settings
// as well as the user's files: a list of thousands would start thousands
// of processes. The first MaxServers enabled servers by name start; the
// others are reported failed, saying so, on every face alike.
const MaxServers = 32

// NewManager prepares one entry per configured server and connects
// nothing: call Start. Configuration errors surface as failed servers.
func NewManager(opts Options) *Manager {
	if opts.CallTimeout <= 0 {
		opts.CallTimeout = 60 * time.Second
	}
	if opts.ConnectTimeout <= 0 {
		opts.ConnectTimeout = 30 * time.Second
	}
	if opts.Env == nil {
		opts.Env = os.Getenv
	}
	if opts.ReconnectAttempts <= 0 {
		opts.ReconnectAttempts = 3
	}
	if opts.ReconnectDelay <= 0 {
		opts.ReconnectDelay = time.Second
	}
	if opts.ClientVersion == "" {
		opts.ClientVersion = "dev"
	}
	if opts.Registry == nil {
		opts.Registry = tools.NewRegistry()
	}
	if opts.OAuth.Store == nil {
		opts.OAuth.Store = &memoryStore{}
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	m := &Manager{
		opts:    opts,
		log:     log,
		servers: map[string]*server{},
		roots:   append([]string(nil), opts.Roots...),
		changed: make(chan struct{}),
	}
	names := make([]string, 0, len(opts.Servers))
	for n := range opts.Servers {
		names = append(names, n)
	}
	slices.Sort(names)
	enabled := 0
	for _, n := range names {
		if !opts.Servers[n].Disabled {
			enabled++
		}
	}
	parts := serverParts(names)
	started := 0
	for _, n := range names {
		cfg := opts.Servers[n]
		s := &server{m: m, name: n, part: parts[n], cfg: cfg, state: StateConnecting, elicitTurn: make(chan struct{}, 1),
			refresh: make(chan struct{}, 1), log: log.With("mcp_server", n)}
		switch {
		case cfg.Disabled:
			s.state = StateDisabled
		case started == MaxServers:
			s.state, s.err = StateFailed, fmt.Errorf("not started: %d MCP servers are configured and agentls starts at most %d (the first by name); remove or disable some (\"disabled\": true)", enabled, MaxServers)
			s.refused = true
		default:
			started++
		}
		m.servers[n] = s
	}
	if started < enabled {
		log.Warn("MCP servers over the limit are not started", "configured", enabled, "limit", MaxServers)
	}
	return m
}

// Registry is the registry the manager adds tools to.
func (m *Manager) Registry() *tools.Registry { return m.opts.Registry }

// SyncInto makes the MCP tools in a run's registry those of m that are
// ready now: tools of servers that connected since the last turn appear,
// tools of servers that failed or were removed disappear. A nil m (no
// servers configured) removes them all. Front-ends call it before every
// model call (agent.Setup.SyncTools).
func (m *Manager) SyncInto(reg *tools.Registry) {
	var have []tools.Tool
	if m != nil {
		have = m.Registry().List()
	}
	present := make(map[string]bool, len(have))
	for _, t := range have {
		present[t.Name()] = true
		reg.Add(t)
	}
	for _, t := range reg.List() {
		if strings.HasPrefix(t.Name(), tools.DeferPrefix) && !present[t.Name()] {
			reg.Remove(t.Name())
		}
	}
}

// Start connects every enabled server in the background and returns at
// once. Cancelling ctx stops the servers like Close (call Close anyway to
// wait for them). Calling Start again does nothing.
func (m *Manager) Start(ctx context.Context) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.started || m.closed {
		return
	}
	m.started = true
	ctx, m.cancel = context.WithCancel(ctx)
	m.ctx = ctx
	for _, s := range m.servers {
		if s.cfg.Disabled || s.refused {
			continue
		}
		m.wg.Add(1)
		go func() {
			defer m.wg.Done()
			s.run(ctx)
		}()
	}
}

// Close disconnects every server, stops stdio servers with their whole
// process group, removes their tools from the registry and waits for all of
// it. It is safe to call more than once.
func (m *Manager) Close() error {
	m.mu.Lock()
	m.closed = true
	cancel := m.cancel
	m.mu.Unlock()
	if cancel != nil {
		cancel()
	}
	m.wg.Wait()
	return nil
}

// Status reports every configured server, sorted by name.
func (m *Manager) Status() []ServerStatus {
	out := make([]ServerStatus, 0, len(m.servers))
	for _, s := range m.servers {
		out = append(out, s.status())
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Changed returns a channel that is closed at the next change of any
// server's state or tools, so callers can wait for a condition without
// polling: take the channel, check the condition, then wait on it.
func (m *Manager) Changed() <-chan struct{} {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.changed
}

// WaitReady blocks until every enabled server is ready or has failed for
// good (a server retrying after a failure still counts as connecting), or
// until ctx ends. "agentls mcp" and headless runs use it before listing
// tools; the LSP server does not wait.
func (m *Manager) WaitReady(ctx context.Context) error {
	for {
		ch := m.Changed()
		settled := true
		for _, st := range m.Status() {
			if st.State == StateConnecting {
				settled = false
			}
		}
		if settled {
			return nil
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// SetRoots replaces the workspace folders advertised as MCP roots and tells
// connected servers with notifications/roots/list_changed.
func (m *Manager) SetRoots(roots []string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.roots = append([]string(nil), roots...)
	if !m.started || m.closed {
		return
	}
	// Off the caller's goroutine: lspserver calls this from a notification
	// handler, which must not wait on remote servers.
	for _, s := range m.servers {
		m.wg.Add(1)
		go func() {
			defer m.wg.Done()
			s.rootsChanged(m.ctx)
		}()
	}
}

// notify wakes everyone waiting on Changed.
func (m *Manager) notify() {
	m.mu.Lock()
	close(m.changed)
	m.changed = make(chan struct{})
	m.mu.Unlock()
}

// rootURIs are the current roots as file:// URIs.
func (m *Manager) rootURIs() []string {
	m.mu.Lock()
	roots := append([]string(nil), m.roots...)
	m.mu.Unlock()
	out := make([]string, 0, len(roots))
	for _, r := range roots {
		if abs, err := filepath.Abs(r); err == nil {
			r = abs
		}
		out = append(out, (&url.URL{Scheme: "file", Path: filepath.ToSlash(r)}).String())
	}
	return out
}

// workDir is the working directory for stdio servers: the first root.
func (m *Manager) workDir() string {
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(m.roots) == 0 {
		return ""
	}
	return m.roots[0]
}

// Tool finds a tool of the named server by the server's own tool name or by
// its registry name (for "agentls mcp call SERVER TOOL").
func (m *Manager) Tool(serverName, tool string) (tools.Tool, bool) {
	s, ok := m.servers[serverName]
	if !ok {
		return nil, false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for name, t := range s.tools {
		if name == tool || t.remote == tool {
			return t, true
		}
	}
	return nil, false
}
