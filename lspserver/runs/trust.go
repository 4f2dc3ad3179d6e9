package runs

import (
	"context"
	"fmt"

	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/agent/config"
	"github.com/agentls/agentls/internal/safetext"
)

// Workspace trust in the editor (the rule, key by key, is in
// agent/config/trust.go). When a workspace's .agentls/config.json sets keys
// that act on the user's behalf and the user has not trusted its current
// content, Load withholds them and the server asks once per file content
// and session with window/showMessageRequest, naming exactly what trusting
// would do (the URL the key would go to, each command line). Until the
// answer is "Trust" (and while the question is open) those keys stay
// ignored, and Load's warning says so in the editor's log; MCP servers from
// the file do not start. "Trust" is remembered in the state directory by
// file path and content hash, so a restarted server does not ask again and
// a changed file asks anew. "Not now" (or a dismissed prompt) is not
// remembered beyond this session.

// Trust prompt actions.
const (
	actionTrust  = "Trust"
	actionNotNow = "Not now"
)

// trustChoices are the trust prompt's actions as agent.Decide reads them.
var trustChoices = []agent.Choice{{ID: actionTrust, Allow: true, Always: true}, {ID: actionNotNow}}

// askTrust starts a prompt for each untrusted file content not asked about
// yet in this session. It never blocks: the prompts wait for the user on
// their own goroutines.
func (rs *Runs) askTrust(untrusted []config.Untrusted) {
	for _, u := range untrusted {
		if rs.cfg.live.Trust().FirstAsk(u) {
			rs.core.Go("workspace trust prompt", func(ctx context.Context) { rs.promptTrust(ctx, u) })
		}
	}
}

// promptTrust asks the user about one file and, on "Trust", remembers it
// and reloads the configuration (which starts its MCP servers).
func (rs *Runs) promptTrust(ctx context.Context, u config.Untrusted) {
	if c, err := rs.core.Ask(ctx, protocol.MessageTypeWarning, "agentls: "+config.TrustQuestion(u), trustChoices); !c.Allow {
		rs.log.Info("workspace config not trusted", "file", u.File, "answer", c.ID, "err", err)
		return
	}
	if err := rs.cfg.live.Trust().Grant(u); err != nil {
		rs.log.Warn("trust not remembered", "file", u.File, "err", err)
		rs.core.LogToEditor(ctx, protocol.MessageTypeWarning, fmt.Sprintf("agentls: %s is trusted for this session only: %v", safetext.Line(u.File), err))
	}
	rs.log.Info("workspace config trusted", "file", u.File, "sha256", u.SHA256, "store", rs.cfg.live.Trust().Store().Path())
	rs.reloadConfig(ctx, rs.mcp.Expect())
	rs.core.LogToEditor(ctx, protocol.MessageTypeInfo, fmt.Sprintf("agentls: %s is trusted; its settings now apply", safetext.Line(u.File)))
}
