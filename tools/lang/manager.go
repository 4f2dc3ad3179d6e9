package lang

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/agentls/agentls/internal/workspace"
)

// Defaults of Options.
const (
	DefaultIdleTimeout = 300 * time.Second
	DefaultWait        = 5 * time.Second
	// MaxRestarts is how often one run restarts a crashed server before
	// it reports, once, that it gave up.
	MaxRestarts = 3
)

// Options configure a Manager.
type Options struct {
	// Servers are the resolved entries (Resolve), in order of preference:
	// the first that serves a file's extension is used for it.
	Servers []ServerConfig
	// IdleTimeout stops a server nobody used for that long
	// (languageServerIdleSeconds; default 300 s).
	IdleTimeout time.Duration
	// Wait bounds how long an edit result waits for the problems of its
	// change, and each navigation request (languageServerWaitSeconds;
	// default 5 s).
	Wait time.Duration
	// Logger receives start, stop and crash events; nil discards them.
	Logger *slog.Logger
}

// Manager owns the language server processes of one agentls process: one
// client per server and root folder, started lazily by the first run that
// needs it, shared by the runs that follow (a warm server answers in
// milliseconds), stopped when idle or by Close.
type Manager struct {
	opts Options
	log  *slog.Logger

	mu      sync.Mutex
	clients map[clientKey]*entry
	closed  bool
	stops   sync.WaitGroup // stops in progress (idle, replaced, Close)

	servedMu sync.Mutex
	served   map[string]servedCache // by folders
}

type clientKey struct{ name, root string }

// entry is one slot of the manager: a client, or the error its last start
// attempt failed with.
type entry struct {
	c        *client
	startErr error
	refs     int
	idle     *time.Timer
}

// crashed reports whether the slot holds a server that died on its own or
// could not start.
func (e *entry) crashed() bool { return e.startErr != nil || (e.c != nil && e.c.crashed()) }

func (e *entry) err() error {
	if e.startErr != nil {
		return e.startErr
	}
	if e.c != nil && e.c.initErr != nil {
		return e.c.initErr
	}
	if e.c != nil {
		return e.c.deadErr
	}
	return nil
}

// NewManager returns a manager for opts; it starts nothing.
func NewManager(opts Options) *Manager {
	if opts.IdleTimeout <= 0 {
		opts.IdleTimeout = DefaultIdleTimeout
	}
	if opts.Wait <= 0 {
		opts.Wait = DefaultWait
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Manager{opts: opts, log: log.With("component", "lang"), clients: map[clientKey]*entry{}, served: map[string]servedCache{}}
}

// Wait is the bound on one check or request.
func (m *Manager) Wait() time.Duration { return m.opts.Wait }

// Close stops every server and waits until their processes are gone.
func (m *Manager) Close() {
	if m == nil {
		return
	}
	m.mu.Lock()
	m.closed = true
	var cs []*client
	for k, e := range m.clients {
		if e.idle != nil {
			e.idle.Stop()
		}
		if e.c != nil {
			cs = append(cs, e.c)
		}
		delete(m.clients, k)
	}
	m.mu.Unlock()
	var wg sync.WaitGroup
	for _, c := range cs {
		wg.Go(c.stop)
	}
	wg.Wait()
	m.stops.Wait()
}

// serverFor returns the server entry that serves path.
func (m *Manager) serverFor(path string) (ServerConfig, bool) {
	for _, s := range m.opts.Servers {
		if s.serves(path) {
			return s, true
		}
	}
	return ServerConfig{}, false
}

// rootFor is the root folder of path's server: the workspace folder
// holding path, or below it the nearest directory with one of the
// entry's root markers.
func rootFor(cfg ServerConfig, folders []string, path string) (string, bool) {
	folder := ""
	for _, f := range folders {
		if (path == f || strings.HasPrefix(path, strings.TrimSuffix(f, "/")+"/")) && len(f) > len(folder) {
			folder = f
		}
	}
	if folder == "" {
		return "", false
	}
	if len(cfg.RootMarkers) == 0 {
		return folder, true
	}
	for dir := filepath.Dir(path); strings.HasPrefix(dir, folder); dir = filepath.Dir(dir) {
		for _, mk := range cfg.RootMarkers {
			if _, err := os.Stat(filepath.Join(dir, mk)); err == nil {
				return dir, true
			}
		}
		if dir == folder || dir == filepath.Dir(dir) {
			break
		}
	}
	return folder, true
}

// errGaveUp marks a server the run no longer restarts.
var errGaveUp = errors.New("gave up")

// acquire returns a ready client for cfg at root, starting it when there
// is none and restarting it (counted against the run's budget) when it
// crashed. release must be called when the caller is done with it.
func (m *Manager) acquire(ctx context.Context, r *Run, cfg ServerConfig, root string) (*client, func(), error) {
	k := clientKey{cfg.Name, root}
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return nil, nil, errors.New("language servers are shut down")
	}
	e := m.clients[k]
	if e != nil && e.c != nil && e.c.isDead() && e.refs == 0 && !e.crashed() {
		delete(m.clients, k) // stopped on purpose: start afresh, no restart counted
		e = nil
	}
	if e != nil && e.crashed() && e.refs == 0 {
		if err := r.restart(k, e.err()); err != nil {
			m.mu.Unlock()
			return nil, nil, err
		}
		if e.c != nil {
			m.stopLocked(e.c)
		}
		delete(m.clients, k)
		e = nil
	}
	if e == nil {
		e = &entry{}
		c, err := startClient(cfg, root, m.log)
		if err != nil {
			e.startErr = fmt.Errorf("cannot start %s: %w", strings.Join(cfg.Command, " "), err)
		}
		e.c = c
		m.clients[k] = e
		m.log.Info("language server started", "server", cfg.Name, "root", root, "err", e.startErr)
	}
	if e.startErr != nil {
		m.mu.Unlock()
		return nil, nil, e.startErr
	}
	e.refs++
	if e.idle != nil {
		e.idle.Stop()
		e.idle = nil
	}
	c := e.c
	m.mu.Unlock()
	release := sync.OnceFunc(func() { m.release(k, e) })
	starting := !c.initialized()
	if starting {
		r.tell(ServerStatus{Server: cfg.Name, Starting: true})
	}
	began := time.Now()
	err := c.waitReady(ctx)
	if starting {
		r.tell(ServerStatus{Server: cfg.Name, Took: time.Since(began), Err: err})
	}
	if err != nil {
		release()
		if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
			return nil, nil, errNoAnswer
		}
		return nil, nil, err
	}
	return c, release, nil
}

// release ends one use of e; the last one arms the idle timer.
func (m *Manager) release(k clientKey, e *entry) {
	m.mu.Lock()
	defer m.mu.Unlock()
	e.refs--
	if e.refs > 0 || m.closed || m.clients[k] != e {
		return
	}
	e.idle = time.AfterFunc(m.opts.IdleTimeout, func() {
		m.mu.Lock()
		defer m.mu.Unlock()
		if m.closed || m.clients[k] != e || e.refs > 0 {
			return
		}
		delete(m.clients, k)
		m.log.Info("language server idle, stopping", "server", k.name, "root", k.root)
		m.stopLocked(e.c)
	})
}

// stopLocked stops c in the background; Close waits for it. m.mu held.
func (m *Manager) stopLocked(c *client) {
	m.stops.Go(c.stop)
}

// Running lists the servers running now as "name root pid", for
// measurements and status.
func (m *Manager) Running() []Process {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []Process
	for k, e := range m.clients {
		if e.c != nil && !e.c.isDead() {
			out = append(out, Process{Name: k.name, Root: k.root, Pid: e.c.proc.Pid()})
		}
	}
	slices.SortFunc(out, func(a, b Process) int { return strings.Compare(a.Name+a.Root, b.Name+b.Root) })
	return out
}

// Process is a running language server.
type Process struct {
	Name, Root string
	Pid        int
}

// servedCache remembers which servers have files in a workspace.
type servedCache struct {
	at      time.Time
	servers []ServerConfig
	samples map[string]string // server name → the first file of its type the walk met
}

// servedTTL is how long the answer of Served is reused: new file types
// rarely appear in a workspace, and the walk is not free.
const servedTTL = 30 * time.Second

// maxServedWalk bounds the entries the walk of Served visits.
const maxServedWalk = 20000

// Served returns the servers that serve at least one file in the view's
// workspace folders (ignored files left out), so that runs in a workspace
// without any offer no language tools. The walk is bounded; its answer is
// reused for a while.
func (m *Manager) Served(ctx context.Context, view *workspace.View) []ServerConfig {
	servers, _ := m.servedWithSamples(ctx, view)
	return servers
}

// servedWithSamples is Served, with a file of each server's type (Run.Warm opens it).
func (m *Manager) servedWithSamples(ctx context.Context, view *workspace.View) ([]ServerConfig, map[string]string) {
	if len(m.opts.Servers) == 0 || view == nil {
		return nil, nil
	}
	folders := view.Folders()
	key := strings.Join(folders, "\x00")
	m.servedMu.Lock()
	if c, ok := m.served[key]; ok && time.Since(c.at) < servedTTL {
		m.servedMu.Unlock()
		return c.servers, c.samples
	}
	m.servedMu.Unlock()
	want := map[string]bool{}
	for _, s := range m.opts.Servers {
		for _, e := range s.Extensions {
			want[e] = true
		}
	}
	found := map[string]string{} // extension → first file
	n := 0
	for _, f := range folders {
		_ = view.Walk(ctx, f, func(p string, d fs.DirEntry) error {
			n++
			if n > maxServedWalk || len(found) == len(want) {
				return fs.SkipAll
			}
			if !d.IsDir() {
				if e := filepath.Ext(p); want[e] && found[e] == "" {
					found[e] = p
				}
			} else if strings.HasPrefix(d.Name(), ".") && p != f || d.Name() == "node_modules" {
				return fs.SkipDir
			}
			return nil
		})
	}
	var out []ServerConfig
	samples := map[string]string{}
	for _, s := range m.opts.Servers {
		for _, e := range s.Extensions {
			if found[e] != "" {
				out = append(out, s)
				samples[s.Name] = found[e]
				break
			}
		}
	}
	m.servedMu.Lock()
	m.served[key] = servedCache{at: time.Now(), servers: out, samples: samples}
	m.servedMu.Unlock()
	return out, samples
}
