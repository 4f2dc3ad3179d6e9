package runs

import (
	"context"

	"github.com/agentls/agentls/agent/config"
	"github.com/agentls/agentls/tools/lang"
)

// langManager returns the workspace's language servers for cfg (nil:
// none; agent.LanguageServerSet). They are closed with the server.
func (rs *Runs) langManager(cfg config.Config) *lang.Manager {
	rs.langOnce.Do(func() {
		rs.core.Go("language servers", func(ctx context.Context) {
			<-ctx.Done()
			rs.lang.Close()
		})
	})
	return rs.lang.For(cfg, rs.log.With("component", "lang"))
}

// LanguageServers is langManager for the other parts of the face
// (completions ask the same servers for declarations).
func (rs *Runs) LanguageServers(cfg config.Config) *lang.Manager { return rs.langManager(cfg) }
