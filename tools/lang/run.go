package lang

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/agentls/agentls/internal/text"
	"github.com/agentls/agentls/tools"
)

// Run is one agent run's use of the language servers: it feeds them the
// run's staged text as overlays, checks every staged change (it is the
// run's tools.Diagnoser), offers the navigation tools, counts restarts of
// crashed servers against the run's budget, and remembers each checked
// file's problems for the end of the run.
type Run struct {
	m       *Manager
	env     *tools.Env
	served  []ServerConfig
	samples map[string]string // server name → a file of its type (Warm)

	mu       sync.Mutex
	restarts map[clientKey]int
	reported map[clientKey]bool
	files    map[string]*fileState
	told     map[*client]uint64 // the server error messages already passed on

	onStatus func(ServerStatus) // OnStatus
}

// ServerStatus is a language server's start as one run saw it: Starting
// when the run found it not yet initialized, then once more when it
// became ready (Err nil) or failed, with Took the time the run waited.
// A cold server can take many seconds (gopls on a busy machine), and
// without this the run looks hung, or its edits report "no answer".
type ServerStatus struct {
	Server   string
	Starting bool
	Took     time.Duration
	Err      error
}

// OnStatus sets the function told about servers this run waits for to
// start (ServerStatus); call it before the run uses the servers.
func (r *Run) OnStatus(fn func(ServerStatus)) {
	if r != nil {
		r.onStatus = fn
	}
}

func (r *Run) tell(s ServerStatus) {
	if r != nil && r.onStatus != nil {
		r.onStatus(s)
	}
}

// fileState is what a run knows of one file's problems: at its first
// check (the baseline, before the run changed it) and at its last.
type fileState struct {
	baseline, latest         []diag
	baseText, latestText     string
	enc                      text.Encoding
	hasBaseline, checkedOnce bool
	outstanding              int // at the last check
}

// NewRun returns env's run over the servers that serve files in the
// workspace, or nil when there are none: then nothing changes for the run
// (no tools, no problems in edit results).
func (m *Manager) NewRun(ctx context.Context, env *tools.Env) *Run {
	if m == nil || env == nil {
		return nil
	}
	served, samples := m.servedWithSamples(ctx, env.View)
	if len(served) == 0 {
		return nil
	}
	return &Run{m: m, env: env, served: served, samples: samples, restarts: map[clientKey]int{}, reported: map[clientKey]bool{},
		files: map[string]*fileState{}, told: map[*client]uint64{}}
}

// warmBound bounds Warm per server: a cold pyright took 6.5 s to its
// first answer here.
const warmBound = 60 * time.Second

// Warm starts the run's servers and has each check one file of its type,
// all in parallel, and returns when they are done (or ctx ends). It is
// meant to run while the model thinks over its first turn, so that the
// first edit's problems line does not wait for a cold start: a server
// answers its first file only after loading the project and its library
// stubs (pyright's builtins), which starting the process alone does not
// do. A server already warm answers at once. Failures are left to the
// first real use, which reports them; an idle server still stops after
// the idle timeout.
func (r *Run) Warm(ctx context.Context) {
	ctx, cancel := context.WithTimeout(ctx, warmBound)
	defer cancel()
	var wg sync.WaitGroup
	for _, s := range r.served {
		path := r.samples[s.Name]
		if path == "" {
			continue
		}
		wg.Go(func() {
			snap, err := r.env.View.Read(path)
			if err == nil {
				err = r.use(ctx, path, nil, func(c *client) error {
					_, err := r.settled(ctx, c, path, snap.Text)
					return err
				})
			}
			r.m.log.Debug("language server warmed", "server", s.Name, "file", path, "err", err)
		})
	}
	wg.Wait()
}

// Servers names the servers the run may use.
func (r *Run) Servers() []string {
	out := make([]string, len(r.served))
	for i, s := range r.served {
		out[i] = s.Name
	}
	return out
}

// restart is asked before a crashed server is started again for this
// run: nil allows it; after MaxRestarts the answer is an error that says
// so once, then errGaveUp (silent).
func (r *Run) restart(k clientKey, last error) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.restarts[k]++
	if r.restarts[k] <= MaxRestarts {
		return nil
	}
	if r.reported[k] {
		return errGaveUp
	}
	r.reported[k] = true
	return fmt.Errorf("%s failed %d times in this run and is not started again (last: %v)", k.name, r.restarts[k], last)
}

// server returns the server and root for path, when the run has one.
func (r *Run) server(path string) (ServerConfig, string, bool) {
	cfg, ok := r.m.serverFor(path)
	if !ok {
		return cfg, "", false
	}
	root, ok := rootFor(cfg, r.env.View.Folders(), path)
	return cfg, root, ok
}

// use runs fn with the client for path's server, its overlays synced to
// the run's view (staged text first) except for the paths in skip, under
// the client's operation lock.
func (r *Run) use(ctx context.Context, path string, skip []string, fn func(c *client) error) error {
	cfg, root, ok := r.server(path)
	if !ok {
		return errNotServed
	}
	c, release, err := r.m.acquire(ctx, r, cfg, root)
	if err != nil {
		return err
	}
	defer release()
	c.use.Lock()
	defer c.use.Unlock()
	if err := r.syncAll(ctx, c, cfg, root, skip, path); err != nil {
		return err
	}
	return fn(c)
}

// awaitBuilt waits, for servers that answer navigation from an index of
// the files they have built (clangd: without a compile_commands.json its
// index holds only open files, updated when a file's build ends), until
// each document sent in this sync (synced: path to version, sent after
// publication seq) has been built: its publication of that version. The
// wait is bounded by ctx; running out leaves the answer to the server.
func (c *client) awaitBuilt(ctx context.Context, synced map[string]int32, seq uint64) {
	if c.cfg.Name != "clangd" {
		return
	}
	for p, v := range synced {
		if _, err := c.waitPublished(ctx, p, v, seq); err != nil {
			return
		}
	}
}

// errNotServed: no language server serves the file.
var errNotServed = errors.New("no language server serves this file")

// maxDependents bounds the files a check opens besides the changed ones,
// so that servers that check only open files (pyright, tsls) see what the
// change breaks elsewhere.
const maxDependents = 4

// syncAll makes the server hold the run's view of every document it has
// open (another run's staged text is replaced by the view), of the files
// in also, of every file the run staged that it serves and of the editor's
// unsaved buffers, and opens up to maxDependents files the run has read.
func (r *Run) syncAll(ctx context.Context, c *client, cfg ServerConfig, root string, skip []string, also ...string) error {
	paths := c.openDocs()
	for _, p := range also {
		if !slices.Contains(paths, p) {
			paths = append(paths, p)
		}
	}
	for _, p := range r.env.Changes.Files() {
		if s, rt, ok := r.server(p); ok && s.Name == cfg.Name && rt == root && !slices.Contains(paths, p) {
			paths = append(paths, p)
		}
	}
	// Unsaved editor buffers: the server must see what the run sees, or a
	// rename computed against the saved file would not apply to the buffer.
	for i, p := range r.env.View.OpenPaths() {
		if i >= maxOpenDocs/4 {
			break
		}
		if s, rt, ok := r.server(p); ok && s.Name == cfg.Name && rt == root && !slices.Contains(paths, p) {
			paths = append(paths, p)
		}
	}
	added := 0
	for _, p := range r.env.Ledger.Paths() {
		if added >= maxDependents {
			break
		}
		if s, rt, ok := r.server(p); ok && s.Name == cfg.Name && rt == root && !slices.Contains(paths, p) {
			paths = append(paths, p)
			added++
		}
	}
	slices.Sort(paths)
	seq := c.pubSeqNow()
	synced := map[string]int32{}
	for _, p := range paths {
		if slices.Contains(skip, p) {
			continue
		}
		content, exists, err := r.env.Text(p)
		if err != nil || !exists {
			c.closeDoc(ctx, p)
			continue
		}
		v, sent, err := c.syncDoc(ctx, p, content)
		if err != nil {
			return err
		}
		if sent {
			synced[p] = v
		}
	}
	c.awaitBuilt(ctx, synced, seq)
	return nil
}

// describe turns an error of the language machinery into the one line an
// edit or tool result shows ("" when nothing should be shown).
func (r *Run) describe(cfg ServerConfig, err error) string {
	switch {
	case err == nil, errors.Is(err, errGaveUp), errors.Is(err, errNotServed):
		return ""
	case errors.Is(err, errNoAnswer):
		return fmt.Sprintf("language server gave no answer in %s", fmtSeconds(r.m.opts.Wait))
	}
	return fmt.Sprintf("language server %s: %s", cfg.Name, oneLine(err.Error()))
}

func fmtSeconds(d interface{ Seconds() float64 }) string {
	s := d.Seconds()
	if s == float64(int(s)) {
		return fmt.Sprintf("%ds", int(s))
	}
	return fmt.Sprintf("%.1fs", s)
}

// serverNote is the line that passes on c's latest error message, once
// per run and message ("" when there is none new): the model and the user
// learn why the server may have found nothing.
func (r *Run) serverNote(c *client) string {
	msg, seq := c.serverError()
	if seq == 0 {
		return ""
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.told[c] >= seq {
		return ""
	}
	r.told[c] = seq
	return fmt.Sprintf("language server %s reported an error: %s", c.cfg.Name, msg)
}
