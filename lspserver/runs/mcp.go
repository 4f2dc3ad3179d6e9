package runs

import (
	"context"
	"fmt"
	"net/url"
	"strconv"

	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/internal/safetext"
	"github.com/agentls/agentls/tools"
	"github.com/agentls/agentls/tools/mcp"
)

// MCP servers in the editor. The server's mcpset.Set (rs.mcp, agent/mcpset:
// the one owner of the rules) runs the configured servers; this face maps
// it to LSP. Each configuration load is announced (Set.Expect) when it
// starts and hands its servers to the set when done (applyMCP), so a run
// started meanwhile waits for the latest configuration's servers
// (Set.AwaitForRun, reported in the run's progress); state changes go to
// window/logMessage; the set closes with the server on every exit path
// (Serve cancels rs.ctx and waits for its background work).

// applyMCP hands the servers of configuration load gen to the set. Loads
// run one at a time (reloadConfig), so the latest configuration's servers
// are the ones that stay.
func (rs *Runs) applyMCP(ctx context.Context, servers map[string]mcp.ServerConfig, gen uint64) {
	defer rs.mcp.Applied(gen)
	rs.mcpOnce.Do(func() { rs.core.Go("mcp servers", func(ctx context.Context) { <-ctx.Done(); rs.mcp.Close() }) })
	opts := rs.cfg.options()
	_, stopped := rs.mcp.Switch(servers, mcp.Options{
		Roots:         rs.docs.Folders(),
		Logger:        rs.log.With("component", "mcp"),
		Env:           opts.Env,
		ClientVersion: rs.core.Version(),
		Elicit:        rs.elicit,
		OAuth: mcp.OAuthOptions{
			Store: mcp.NewTokenStore(mcp.DefaultTokenDir(opts.Env)),
			Open:  rs.openAuthorization,
		},
	})
	if stopped {
		rs.core.LogToEditor(ctx, protocol.MessageTypeInfo, "agentls: MCP servers stopped (their configuration changed)")
	}
}

// reportMCP writes a server's new state to the editor's log
// (window/logMessage): ready with its tool count, or failed with the
// reason.
func (rs *Runs) reportMCP(st mcp.ServerStatus) {
	if st.State == mcp.StateFailed {
		rs.core.LogToEditor(rs.ctx, protocol.MessageTypeWarning, fmt.Sprintf("agentls: MCP server %q failed: %s", st.Name, st.Err))
		return
	}
	rs.core.LogToEditor(rs.ctx, protocol.MessageTypeInfo, fmt.Sprintf("agentls: MCP server %q is ready with %d tools", st.Name, len(st.Tools)))
}

// syncMCPTools makes the MCP tools in reg those of the current manager
// (mcp.Manager.SyncInto).
func (rs *Runs) syncMCPTools(reg *tools.Registry) { rs.mcp.Current().SyncInto(reg) }

// FoldersChanged follows didChangeWorkspaceFolders (after the documents
// part took the new folders): the MCP servers' roots follow the folders.
func (rs *Runs) FoldersChanged() {
	if mgr := rs.mcp.Current(); mgr != nil {
		mgr.SetRoots(rs.docs.Folders()) // does not block: notifies servers in the background
	}
}

// Actions of the sign-in offer.
const (
	actionSignIn    = "Sign in"
	actionNotNowMCP = "Not now"
)

// openAuthorization offers the user an MCP server's sign-in page and
// opens it only when they say so: nothing is opened at server start
// without a click. The address must be https (or http on this machine,
// mcp.CheckBrowserURL); the offer names its host and the scopes asked for
// (a tool that needs more access asks again, for more). Declining (or
// dismissing) fails that server's connection with a message saying how
// to sign in later.
func (rs *Runs) openAuthorization(ctx context.Context, server, authURL string) error {
	if err := mcp.CheckBrowserURL(authURL); err != nil {
		rs.core.LogToEditor(ctx, protocol.MessageTypeWarning, fmt.Sprintf("agentls: MCP server %s: sign-in page not opened: %v", safetext.Line(strconv.Quote(server)), err))
		return err
	}
	host, access := authURL, ""
	if u, err := url.Parse(authURL); err == nil {
		host = u.Scheme + "://" + u.Host
		if sc := u.Query().Get("scope"); sc != "" {
			// A step-up's second sign-in names the scopes it asks for.
			access = fmt.Sprintf(" for access to %q", safetext.Bound(safetext.Line(sc), 200))
		}
	}
	c, err := rs.core.Ask(ctx, protocol.MessageTypeInfo,
		fmt.Sprintf("agentls: MCP server %s asks you to sign in at %s%s. Open the sign-in page in your browser?",
			safetext.Line(strconv.Quote(server)), safetext.Line(host), access),
		[]agent.Choice{{ID: actionSignIn, Allow: true}, {ID: actionNotNowMCP}})
	if err != nil {
		return fmt.Errorf("asking to sign in: %w", err)
	}
	if !c.Allow {
		return fmt.Errorf("sign-in not started (you chose not to); reload the configuration or run 'agentls mcp login %s' to sign in", server)
	}
	rs.openExternal(ctx, authURL)
	return nil
}
