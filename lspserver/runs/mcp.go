package runs

import (
	"context"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/internal/safetext"
	"github.com/agentls/agentls/tools"
	"github.com/agentls/agentls/tools/mcp"
)

// MCP servers in the editor. One goroutine owned by the Server (the
// supervisor, started after initialized) owns the mcp.Manager: it starts one
// when the configuration names servers, replaces it when their
// configuration changes, and closes it when the server stops, on every exit
// path (exit, input closed, editor gone: Serve cancels rs.ctx and waits for
// its background work). A run waits, before its first turn and for at most
// mcp.startupTimeoutSeconds, for servers still connecting (waitMCP); each
// turn then offers the tools that are ready (syncMCPTools).

// mcpState is the supervisor's mailbox and the current manager.
//
// expected and applied let a run wait for a configuration that is still on
// its way: expected counts configuration loads started (expect), applied the
// highest of them the supervisor has acted on. A run started while a load
// is in flight waits for it, so the manager it then waits on is the one for
// the latest configuration.
type mcpState struct {
	mu       sync.Mutex
	wants    chan mcpWant // latest configuration; capacity 1
	current  *mcp.Manager // nil when no server is configured
	expected uint64
	applied  uint64
	changed  chan struct{} // closed and replaced when applied or current changes
}

// mcpWant is one loaded configuration's servers and its load number.
type mcpWant struct {
	servers map[string]mcp.ServerConfig
	gen     uint64
}

func (m *mcpState) init() {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.wants == nil {
		m.wants = make(chan mcpWant, 1)
		m.changed = make(chan struct{})
	}
}

// expect records that a configuration load has started and returns its
// number, to be passed to want.
func (m *mcpState) expect() uint64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.expected++
	return m.expected
}

// want hands the configured servers of load gen to the supervisor; only the
// latest configuration counts.
func (m *mcpState) want(servers map[string]mcp.ServerConfig, gen uint64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.wants == nil {
		return
	}
	select {
	case old := <-m.wants: // drop an older configuration not yet taken
		gen = max(gen, old.gen)
	default:
	}
	m.wants <- mcpWant{servers: servers, gen: gen}
}

// markApplied records that the supervisor acted on load gen.
func (m *mcpState) markApplied(gen uint64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if gen > m.applied {
		m.applied = gen
	}
	m.wake()
}

// wake must be called with mu held.
func (m *mcpState) wake() {
	if m.changed != nil {
		close(m.changed)
		m.changed = make(chan struct{})
	}
}

// settled reports whether every configuration load started up to now has
// been acted on, the current manager, and a channel closed at the next
// change.
func (m *mcpState) settled() (bool, *mcp.Manager, <-chan struct{}) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.applied >= m.expected, m.current, m.changed
}

// manager returns the current manager (nil if none).
func (m *mcpState) manager() *mcp.Manager {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.current
}

func (m *mcpState) setManager(mgr *mcp.Manager) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.current = mgr
	m.wake()
}

// superviseMCP is the goroutine that owns the MCP manager.
func (rs *Runs) superviseMCP(ctx context.Context) {
	var cur *mcp.Manager
	curKey := ""
	stop := func() {
		if cur == nil {
			return
		}
		rs.mcp.setManager(nil)
		if err := cur.Close(); err != nil {
			rs.log.Warn("closing MCP servers", "err", err)
		}
		cur = nil
	}
	defer stop()
	seen := map[string]string{}
	for {
		var changed <-chan struct{}
		if cur != nil {
			changed = cur.Changed() // before looking, so no change slips by
			rs.reportMCP(ctx, cur, seen)
		}
		select {
		case <-ctx.Done():
			return
		case <-changed:
		case w := <-rs.mcp.wants:
			servers := w.servers
			key := mcp.SetKey(servers)
			if key == curKey {
				rs.mcp.markApplied(w.gen)
				continue
			}
			if cur != nil {
				stop()
				rs.core.LogToEditor(ctx, protocol.MessageTypeInfo, "agentls: MCP servers stopped (their configuration changed)")
			}
			clear(seen)
			curKey = key
			if len(servers) == 0 {
				rs.mcp.markApplied(w.gen)
				continue
			}
			opts := rs.cfg.options()
			cur = mcp.NewManager(mcp.Options{
				Servers:       servers,
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
			cur.Start(ctx)
			rs.mcp.setManager(cur)
			rs.mcp.markApplied(w.gen)
			rs.log.Info("MCP servers starting", "servers", strings.Join(serverNames(servers), ", "))
		}
	}
}

// reportMCP writes each server's new state to the editor's log
// (window/logMessage): ready with its tool count, or failed with the
// reason. seen holds what was reported last, by server.
func (rs *Runs) reportMCP(ctx context.Context, mgr *mcp.Manager, seen map[string]string) {
	for _, st := range mgr.Status() {
		var msg string
		typ := protocol.MessageTypeInfo
		switch st.State {
		case mcp.StateReady:
			msg = fmt.Sprintf("agentls: MCP server %q is ready with %d tools", st.Name, len(st.Tools))
		case mcp.StateFailed:
			msg = fmt.Sprintf("agentls: MCP server %q failed: %s", st.Name, st.Err)
			typ = protocol.MessageTypeWarning
		default:
			continue
		}
		if seen[st.Name] == msg {
			continue
		}
		seen[st.Name] = msg
		rs.log.Info("MCP server state", "server", st.Name, "state", st.State, "tools", len(st.Tools), "err", st.Err)
		rs.core.LogToEditor(ctx, typ, msg)
	}
}

func serverNames(servers map[string]mcp.ServerConfig) []string {
	out := make([]string, 0, len(servers))
	for n := range servers {
		out = append(out, n)
	}
	slices.Sort(out)
	return out
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

// waitMCP holds a run back, for at most timeout, until the configuration
// loaded so far has reached the supervisor and every server of the current
// manager is ready or has failed, reporting which server it waits for. A
// server still connecting at the deadline, or failed, is left out: the
// run's turns offer only the tools of ready servers.
func (rs *Runs) waitMCP(ctx context.Context, seconds int, prog *runProgress) {
	if seconds <= 0 {
		return
	}
	timeout := time.Duration(seconds) * time.Second
	wctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	last := ""
	for {
		ok, mgr, changed := rs.mcp.settled()
		var mchanged <-chan struct{}
		msg := ""
		switch {
		case !ok:
			msg = "waiting for the MCP configuration"
		case mgr != nil:
			mchanged = mgr.Changed() // before looking, so no change slips by
			var waiting []string
			for _, st := range mgr.Status() {
				if st.State == mcp.StateConnecting {
					waiting = append(waiting, st.Name)
				}
			}
			if len(waiting) > 0 {
				msg = "waiting for MCP server " + waiting[0] + " to start"
				if len(waiting) > 1 {
					msg = "waiting for MCP servers " + strings.Join(waiting, ", ") + " to start"
				}
			}
		}
		if msg == "" {
			return
		}
		if msg != last {
			last = msg
			prog.report(ctx, msg)
		}
		select {
		case <-wctx.Done():
			if ctx.Err() == nil {
				rs.log.Warn("run starts without MCP servers still connecting", "waited", timeout, "status", msg)
			}
			return
		case <-changed:
		case <-mchanged:
		}
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
