package runs

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"go.lsp.dev/protocol"

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

// workspaceTrust is the editor's trust state.
type workspaceTrust struct {
	mu      sync.Mutex
	granted map[[2]string]bool // trusted this session (even if the store could not remember)
	asked   map[[2]string]bool // asked this session: pending, or answered
}

// trustStore is the store for the configured environment (its
// XDG_STATE_HOME or HOME); it trusts nothing when neither is known.
func (rs *Runs) trustStore() *config.TrustStore {
	return config.NewTrustStore(config.DefaultTrustFile(rs.cfg.options().Env))
}

// trusted is LoadOptions.Trusted for the editor.
func (rs *Runs) trusted(store *config.TrustStore) func(file, sum string) bool {
	return func(file, sum string) bool {
		t := &rs.cfg.trust
		t.mu.Lock()
		ok := t.granted[[2]string{file, sum}]
		t.mu.Unlock()
		return ok || store.Trusted(file, sum)
	}
}

// askTrust starts a prompt for each untrusted file content not asked about
// yet in this session. It never blocks: the prompts wait for the user on
// their own goroutines.
func (rs *Runs) askTrust(untrusted []config.Untrusted) {
	t := &rs.cfg.trust
	for _, u := range untrusted {
		key := [2]string{u.File, u.SHA256}
		t.mu.Lock()
		if t.asked == nil {
			t.asked = map[[2]string]bool{}
		}
		first := !t.asked[key]
		t.asked[key] = true
		t.mu.Unlock()
		if first {
			rs.core.Go("workspace trust prompt", func(ctx context.Context) { rs.promptTrust(ctx, u) })
		}
	}
}

// promptTrust asks the user about one file and, on "Trust", remembers it
// and reloads the configuration (which starts its MCP servers).
func (rs *Runs) promptTrust(ctx context.Context, u config.Untrusted) {
	item, err := rs.core.Client().ShowMessageRequest(ctx, &protocol.ShowMessageRequestParams{
		Type:    protocol.MessageTypeWarning,
		Message: trustMessage(u),
		Actions: []protocol.MessageActionItem{{Title: actionTrust}, {Title: actionNotNow}},
	})
	if err != nil || item == nil || item.Title != actionTrust {
		rs.log.Info("workspace config not trusted", "file", u.File, "answer", item, "err", err)
		return
	}
	t := &rs.cfg.trust
	t.mu.Lock()
	if t.granted == nil {
		t.granted = map[[2]string]bool{}
	}
	t.granted[[2]string{u.File, u.SHA256}] = true
	t.mu.Unlock()
	store := rs.trustStore()
	if err := store.Trust(u.File, u.SHA256); err != nil {
		rs.log.Warn("trust not remembered", "file", u.File, "err", err)
		rs.core.LogToEditor(ctx, protocol.MessageTypeWarning, fmt.Sprintf("agentls: %s is trusted for this session only: %v", u.File, err))
	}
	rs.log.Info("workspace config trusted", "file", u.File, "sha256", u.SHA256, "store", store.Path())
	rs.reloadConfig(ctx, rs.mcp.expect())
	rs.core.LogToEditor(ctx, protocol.MessageTypeInfo, fmt.Sprintf("agentls: %s is trusted; its settings now apply", u.File))
}

// trustMessage names exactly what trusting the file would do, one line
// per action (config bounds and escapes them; the file's path is escaped
// here, since a folder's name is the repository's to choose).
func trustMessage(u config.Untrusted) string {
	var b strings.Builder
	fmt.Fprintf(&b, "agentls: this workspace's %s wants to act on your behalf. Trusting its current content would:\n", safetext.Line(u.File))
	for _, a := range u.Actions {
		fmt.Fprintf(&b, "- %s\n", a)
	}
	fmt.Fprintf(&b, "Until you trust it, these settings are ignored: %s.", strings.Join(u.Keys, ", "))
	return b.String()
}
