package runs

import (
	"context"
	"encoding/json"
	"sync"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/agent/config"
	"github.com/agentls/agentls/tools/lang"
)

// langState owns the workspace's language servers (tools/lang): one
// manager for the current languageServers configuration, made when a run
// first needs it (its servers start lazily, per server and folder, and
// stop when idle), replaced when the configuration changes, and closed
// with the server. Runs share it, so a warm server answers the next run in
// milliseconds.
type langState struct {
	mu      sync.Mutex
	key     string
	cur     *lang.Manager
	watched bool // the goroutine that closes the manager with the server runs
	closed  bool
}

// langManager returns the language servers for cfg (nil: none), making
// or replacing the manager when the configuration changed. A replaced
// manager is closed in the background; runs still using it get a one-line
// note in their results, never an error.
func (rs *Runs) langManager(cfg config.Config) *lang.Manager {
	servers := agent.LanguageServers(cfg)
	k, _ := json.Marshal(struct {
		S          []lang.ServerConfig
		Idle, Wait int
	}{servers, cfg.LanguageServerIdleSeconds, cfg.LanguageServerWaitSeconds})
	l := &rs.lang
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return nil
	}
	if !l.watched {
		l.watched = true
		rs.core.Go("language servers", func(ctx context.Context) {
			<-ctx.Done()
			l.mu.Lock()
			m := l.cur
			l.cur, l.closed = nil, true
			l.mu.Unlock()
			m.Close()
		})
	}
	if string(k) == l.key {
		return l.cur
	}
	old := l.cur
	l.key, l.cur = string(k), nil
	if len(servers) > 0 {
		l.cur = agent.NewLanguageManager(cfg, rs.log.With("component", "lang"))
	}
	if old != nil {
		rs.core.Go("stop language servers", func(context.Context) { old.Close() })
	}
	return l.cur
}
