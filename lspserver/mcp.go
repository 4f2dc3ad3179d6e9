package lspserver

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"

	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/tools"
	"github.com/agentls/agentls/tools/mcp"
)

// MCP servers in the editor. One goroutine owned by the Server (the
// supervisor, started after initialized) owns the mcp.Manager: it starts one
// when the configuration names servers, replaces it when their
// configuration changes, and closes it when the server stops, on every exit
// path (exit, input closed, editor gone: Serve cancels s.ctx and waits for
// its background work). Runs never wait for servers to connect: each turn
// offers the tools that are ready then (syncMCPTools).

// mcpState is the supervisor's mailbox and the current manager.
type mcpState struct {
	mu      sync.Mutex
	wants   chan map[string]mcp.ServerConfig // latest configuration; capacity 1
	current *mcp.Manager                     // nil when no server is configured
}

func (m *mcpState) init() {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.wants == nil {
		m.wants = make(chan map[string]mcp.ServerConfig, 1)
	}
}

// want hands the configured servers to the supervisor; only the latest
// configuration counts.
func (m *mcpState) want(servers map[string]mcp.ServerConfig) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.wants == nil {
		return
	}
	select {
	case <-m.wants: // drop an older configuration not yet taken
	default:
	}
	m.wants <- servers
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
}

// superviseMCP is the goroutine that owns the MCP manager.
func (s *Server) superviseMCP(ctx context.Context) {
	var cur *mcp.Manager
	curKey := ""
	stop := func() {
		if cur == nil {
			return
		}
		s.runs.mcp.setManager(nil)
		if err := cur.Close(); err != nil {
			s.log.Warn("closing MCP servers", "err", err)
		}
		cur = nil
	}
	defer stop()
	seen := map[string]string{}
	for {
		var changed <-chan struct{}
		if cur != nil {
			changed = cur.Changed() // before looking, so no change slips by
			s.reportMCP(ctx, cur, seen)
		}
		select {
		case <-ctx.Done():
			return
		case <-changed:
		case servers := <-s.runs.mcp.wants:
			key := serversKey(servers)
			if key == curKey {
				continue
			}
			if cur != nil {
				stop()
				s.logToEditor(ctx, protocol.MessageTypeInfo, "agentls: MCP servers stopped (their configuration changed)")
			}
			clear(seen)
			curKey = key
			if len(servers) == 0 {
				continue
			}
			opts := s.runs.cfg.options()
			cur = mcp.NewManager(mcp.Options{
				Servers:       servers,
				Roots:         s.Folders(),
				Logger:        s.log.With("component", "mcp"),
				Env:           opts.Env,
				ClientVersion: s.opts.Version,
			})
			cur.Start(ctx)
			s.runs.mcp.setManager(cur)
			s.log.Info("MCP servers starting", "servers", strings.Join(serverNames(servers), ", "))
		}
	}
}

// reportMCP writes each server's new state to the editor's log
// (window/logMessage): ready with its tool count, or failed with the
// reason. seen holds what was reported last, by server.
func (s *Server) reportMCP(ctx context.Context, mgr *mcp.Manager, seen map[string]string) {
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
		s.log.Info("MCP server state", "server", st.Name, "state", st.State, "tools", len(st.Tools), "err", st.Err)
		s.logToEditor(ctx, typ, msg)
	}
}

// logToEditor writes msg to the editor's log for this server.
func (s *Server) logToEditor(ctx context.Context, typ protocol.MessageType, msg string) {
	if err := s.client.LogMessage(ctx, &protocol.LogMessageParams{Type: typ, Message: msg}); err != nil {
		s.log.Debug("logMessage not sent", "err", err)
	}
}

// serversKey identifies a configuration (json.Marshal sorts map keys).
func serversKey(servers map[string]mcp.ServerConfig) string {
	if len(servers) == 0 {
		return ""
	}
	b, err := json.Marshal(servers)
	if err != nil {
		return "unmarshalable"
	}
	return string(b)
}

func serverNames(servers map[string]mcp.ServerConfig) []string {
	out := make([]string, 0, len(servers))
	for n := range servers {
		out = append(out, n)
	}
	slices.Sort(out)
	return out
}

// syncMCPTools makes the MCP tools in reg those of the current manager:
// tools of servers that connected since the last turn appear, tools of
// servers that failed or were removed disappear.
func (s *Server) syncMCPTools(reg *tools.Registry) {
	var have []tools.Tool
	if mgr := s.runs.mcp.manager(); mgr != nil {
		have = mgr.Registry().List()
	}
	present := make(map[string]bool, len(have))
	for _, t := range have {
		present[t.Name()] = true
		reg.Add(t)
	}
	for _, t := range reg.List() {
		if strings.HasPrefix(t.Name(), tools.DeferPrefix) && !present[t.Name()] {
			reg.Remove(t.Name())
		}
	}
}

// foldersChanged is the didChangeWorkspaceFolders notification: the
// workspace's own handling, then the MCP roots follow the folders.
func (s *Server) foldersChanged(ctx context.Context, p *protocol.DidChangeWorkspaceFoldersParams) error {
	err := s.didChangeWorkspaceFolders(ctx, p)
	if mgr := s.runs.mcp.manager(); mgr != nil {
		mgr.SetRoots(s.Folders()) // does not block: notifies servers in the background
	}
	return err
}
