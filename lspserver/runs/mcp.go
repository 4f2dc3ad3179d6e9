package runs

import (
	"context"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/agent/mcpset"
	"github.com/agentls/agentls/internal/safetext"
	"github.com/agentls/agentls/tools"
	"github.com/agentls/agentls/tools/mcp"
)

// MCP servers in the editor. The server's mcpset.Set (agent/mcpset, the
// one owner of the rules: restart on change only, bounded waits, state
// reports) runs the configured servers; this face maps it to LSP: each
// configuration load hands its servers to the set (applyMCP), state
// changes go to window/logMessage, a run's wait is reported in its
// progress, and the set closes with the server on every exit path (Serve
// cancels rs.ctx and waits for its background work).

// mcpState is the server's set and the configuration loads it has seen.
//
// expected and applied let a run wait for a configuration that is still on
// its way: expected counts configuration loads started (expect), applied the
// highest of them handed to the set. A run started while a load is in
// flight waits for it, so the servers it then waits on are the latest
// configuration's.
type mcpState struct {
	mu       sync.Mutex
	set      *mcpset.Set // nil until StartServices
	expected uint64
	applied  uint64
	changed  chan struct{} // closed and replaced when applied changes
}

// startMCP creates the server's set and the goroutine that closes it
// with the server.
func (rs *Runs) startMCP() {
	set := mcpset.New(rs.ctx, mcpset.Options{Logger: rs.log.With("component", "mcp"), OnState: rs.reportMCP})
	rs.mcp.mu.Lock()
	rs.mcp.set, rs.mcp.changed = set, make(chan struct{})
	rs.mcp.mu.Unlock()
	rs.core.Go("mcp servers", func(ctx context.Context) { <-ctx.Done(); set.Close() })
}

// expect records that a configuration load has started and returns its
// number, to be passed to applyMCP.
func (m *mcpState) expect() uint64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.expected++
	return m.expected
}

// settled reports whether every configuration load started up to now has
// been applied, the set, and a channel closed at the next load applied.
func (m *mcpState) settled() (bool, *mcpset.Set, <-chan struct{}) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.applied >= m.expected, m.set, m.changed
}

// manager returns the running manager (nil if none).
func (m *mcpState) manager() *mcp.Manager {
	m.mu.Lock()
	set := m.set
	m.mu.Unlock()
	if set == nil {
		return nil
	}
	return set.Current()
}

// applyMCP hands the servers of configuration load gen to the set. Loads
// run one at a time (reloadConfig), so the latest configuration's servers
// are the ones that stay.
func (rs *Runs) applyMCP(ctx context.Context, servers map[string]mcp.ServerConfig, gen uint64) {
	_, set, _ := rs.mcp.settled()
	if set != nil {
		opts := rs.cfg.options()
		_, stopped := set.Switch(servers, mcp.Options{
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
	rs.mcp.mu.Lock()
	defer rs.mcp.mu.Unlock()
	if gen > rs.mcp.applied {
		rs.mcp.applied = gen
	}
	if rs.mcp.changed != nil {
		close(rs.mcp.changed)
		rs.mcp.changed = make(chan struct{})
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
func (rs *Runs) syncMCPTools(reg *tools.Registry) { rs.mcp.manager().SyncInto(reg) }

// FoldersChanged follows didChangeWorkspaceFolders (after the documents
// part took the new folders): the MCP servers' roots follow the folders.
func (rs *Runs) FoldersChanged() {
	if mgr := rs.mcp.manager(); mgr != nil {
		mgr.SetRoots(rs.docs.Folders()) // does not block: notifies servers in the background
	}
}

// waitMCP holds a run back, for at most seconds, until the configuration
// loaded so far has reached the set and the set's servers are ready or
// have failed (mcpset.Set.Wait), reporting in the run's progress what it
// waits for. A server still connecting at the deadline, or failed, is left
// out: the run's turns offer only the tools of ready servers.
func (rs *Runs) waitMCP(ctx context.Context, seconds int, prog *runProgress) {
	if seconds <= 0 {
		return
	}
	timeout := time.Duration(seconds) * time.Second
	wctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	last := ""
	report := func(msg string) {
		if msg != last {
			last = msg
			prog.report(ctx, msg)
		}
	}
	for {
		ok, set, changed := rs.mcp.settled()
		if !ok {
			report("waiting for the MCP configuration")
			select {
			case <-wctx.Done():
				rs.warnMCPWait(ctx, timeout, last)
				return
			case <-changed:
				continue
			}
		}
		if set == nil {
			return
		}
		left := set.Wait(wctx, timeout, func(names []string) {
			if len(names) == 1 {
				report("waiting for MCP server " + names[0] + " to start")
			} else {
				report("waiting for MCP servers " + strings.Join(names, ", ") + " to start")
			}
		})
		if left != nil {
			rs.warnMCPWait(ctx, timeout, last)
			return
		}
		if ok, _, _ := rs.mcp.settled(); ok {
			return
		}
	}
}

func (rs *Runs) warnMCPWait(ctx context.Context, waited time.Duration, status string) {
	if ctx.Err() == nil {
		rs.log.Warn("run starts without MCP servers still connecting", "waited", waited, "status", status)
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
	item, err := rs.core.Client().ShowMessageRequest(ctx, &protocol.ShowMessageRequestParams{
		Type: protocol.MessageTypeInfo,
		Message: fmt.Sprintf("agentls: MCP server %s asks you to sign in at %s%s. Open the sign-in page in your browser?",
			safetext.Line(strconv.Quote(server)), safetext.Line(host), access),
		Actions: []protocol.MessageActionItem{{Title: actionSignIn}, {Title: actionNotNowMCP}},
	})
	if err != nil {
		return fmt.Errorf("asking to sign in: %w", err)
	}
	if item == nil || item.Title != actionSignIn {
		return fmt.Errorf("sign-in not started (you chose not to); reload the configuration or run 'agentls mcp login %s' to sign in", server)
	}
	rs.openExternal(ctx, authURL)
	return nil
}
