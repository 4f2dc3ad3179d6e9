package agent

import (
	"encoding/json"
	"log/slog"
	"sync"

	"github.com/agentls/agentls/agent/config"
	"github.com/agentls/agentls/tools/lang"
)

// LanguageServerSet is a front-end's language servers (Setup.Lang): one
// manager for the current languageServers configuration, made when a run
// first needs it (its servers start lazily, per server and folder, and
// stop when idle), replaced when the configuration changes, closed with
// the front-end. Runs share it, so a warm server answers the next run in
// milliseconds. The zero value is ready to use.
type LanguageServerSet struct {
	mu      sync.Mutex
	key     string
	cur     *lang.Manager
	closed  bool
	retired sync.WaitGroup // replaced managers still closing
}

// For returns the language servers for cfg (nil: none), making or
// replacing the manager when the configuration changed. A replaced
// manager is closed in the background; runs still using it get a one-line
// note in their edit results, never an error.
func (l *LanguageServerSet) For(cfg config.Config, logger *slog.Logger) *lang.Manager {
	servers := LanguageServers(cfg)
	k, _ := json.Marshal(struct {
		S          []lang.ServerConfig
		Idle, Wait int
	}{servers, cfg.LanguageServerIdleSeconds, cfg.LanguageServerWaitSeconds})
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return nil
	}
	if string(k) == l.key {
		return l.cur
	}
	old := l.cur
	l.key, l.cur = string(k), nil
	if len(servers) > 0 {
		l.cur = NewLanguageManager(cfg, logger)
	}
	if old != nil {
		l.retired.Go(old.Close)
	}
	return l.cur
}

// Close stops every language server and waits until their processes are
// gone; For returns nil afterwards.
func (l *LanguageServerSet) Close() {
	l.mu.Lock()
	m := l.cur
	l.cur, l.closed = nil, true
	l.mu.Unlock()
	m.Close()
	l.retired.Wait()
}
