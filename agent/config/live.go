package config

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Live is the configuration of one long-lived connection (an editor's
// language server, an ACP connection): where it is loaded from, what the
// user trusted on it, which problems the user was already told about, and
// the client request timeout of the latest load. Every face loads through
// it, so trust, "each problem once" and one-at-a-time reloads are stated
// once; a face only carries the trust question and the problem messages
// over its protocol. The zero value loads the default user file with the
// process's environment and tells nothing.
type Live struct {
	// Tell gets the problems the user has not been told about on this
	// connection (Report): each warning, and each line of an error, once.
	// Set it before the first load; nil tells nothing.
	Tell func(ctx context.Context, warnings, errs []string)

	mu        sync.Mutex
	userFile  string
	env       func(string) string
	shown     map[string]bool
	listeners []func(Config)
	trust     Trust
	trustOnce sync.Once

	reload        sync.Mutex   // held by Reload
	clientTimeout atomic.Int64 // nanoseconds; 0 until a load set it
}

// SetSources sets what LoadOptions.UserFile and LoadOptions.Env are for
// every later load (and where trust is remembered: the store follows env).
func (l *Live) SetSources(userFile string, env func(string) string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.userFile, l.env = userFile, env
}

func (l *Live) sources() (string, func(string) string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.env == nil {
		return l.userFile, os.Getenv
	}
	return l.userFile, l.env
}

// Trust is what the user trusted on this connection; its store is found
// with the environment SetSources gave at the time of each use.
func (l *Live) Trust() *Trust {
	l.trustOnce.Do(func() {
		l.trust.Env = func(k string) string { _, env := l.sources(); return env(k) }
	})
	return &l.trust
}

// Load merges every source as it stands now: the files for folders, the
// editor layer of init and latest (MergeSettings; nil for a face without
// editor settings) and the environment, with workspace files trusted as
// Trust says. It asks nothing: a face asks about cfg.Untrusted() itself.
// Why editor settings were left out comes first in the error.
func (l *Live) Load(folders []string, init, latest json.RawMessage) (Config, []string, error) {
	editor, settingsErr := MergeSettings(init, latest)
	userFile, env := l.sources()
	cfg, warnings, err := Load(LoadOptions{
		UserFile: userFile,
		Folders:  folders,
		Init:     editor,
		Env:      env,
		Trusted:  l.Trust().Trusted,
	})
	switch {
	case settingsErr != nil && err != nil:
		err = fmt.Errorf("%w\n%w", settingsErr, err)
	case settingsErr != nil:
		err = settingsErr
	}
	l.clientTimeout.Store(int64(time.Duration(cfg.Client.RequestTimeoutSeconds) * time.Second))
	return cfg, warnings, err
}

// ClientTimeout is client.requestTimeoutSeconds of the latest load. Before
// the first, it calls load (the face's own load), so the bound never
// depends on whether a background load has finished; the default if that
// set none.
func (l *Live) ClientTimeout(load func()) time.Duration {
	if d := time.Duration(l.clientTimeout.Load()); d > 0 {
		return d
	}
	if load != nil {
		load()
	}
	if d := time.Duration(l.clientTimeout.Load()); d > 0 {
		return d
	}
	return time.Duration(Defaults().Client.RequestTimeoutSeconds) * time.Second
}

// Report passes to Tell the warnings and the lines of err that were not
// reported before on this connection: a connection reloads on every
// settings change and loads for every run, and the user hears of a broken
// file once, not on each load. Any goroutine may call it.
func (l *Live) Report(ctx context.Context, warnings []string, err error) {
	var errs []string
	if err != nil {
		errs = strings.Split(err.Error(), "\n")
	}
	l.mu.Lock()
	if l.shown == nil {
		l.shown = map[string]bool{}
	}
	fresh := func(kind string, list []string) []string {
		var out []string
		for _, s := range list {
			if s != "" && !l.shown[kind+s] {
				l.shown[kind+s] = true
				out = append(out, s)
			}
		}
		return out
	}
	newWarnings, newErrs := fresh("w:", warnings), fresh("e:", errs)
	tell := l.Tell
	l.mu.Unlock()
	if tell != nil && len(newWarnings)+len(newErrs) > 0 {
		tell(ctx, newWarnings, newErrs)
	}
}

// Reload runs load, reports its problems, gives its configuration to use
// and then to every OnLoad listener. Reloads run one at a time, each
// loading when it starts, so the last one to run has read the latest
// sources and what it starts (MCP servers) is what stays.
func (l *Live) Reload(ctx context.Context, load func() (Config, []string, error), use func(Config)) {
	l.reload.Lock()
	defer l.reload.Unlock()
	cfg, warnings, err := load()
	l.Report(ctx, warnings, err)
	if use != nil {
		use(cfg)
	}
	l.mu.Lock()
	listeners := l.listeners
	l.mu.Unlock()
	for _, fn := range listeners {
		fn(cfg)
	}
}

// OnLoad registers fn to get the configuration of every Reload.
func (l *Live) OnLoad(fn func(Config)) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.listeners = append(l.listeners, fn)
}
