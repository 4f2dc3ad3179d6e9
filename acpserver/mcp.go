package acpserver

import (
	"context"
	"maps"
	"strings"
	"time"

	acp "github.com/coder/acp-go-sdk"

	"github.com/agentls/agentls/agent/config"
	"github.com/agentls/agentls/tools/mcp"
)

// MCP servers over ACP: the client's mcpServers (session/new, load,
// resume) are merged with the configured ones, the client's entry winning
// a name both use. The client's servers are the user's own choice, made
// in the editor, so they start whatever the workspace trust; configured
// ones come through agent/config, where a workspace file's servers need
// the user's trust. Each session has its own mcp.Manager, started on the
// first prompt and restarted when the merged set changes (agent/mcpset);
// a prompt waits for servers still connecting (mcp.startupTimeoutSeconds),
// and each turn offers the tools that are ready.

// convertMCPServers turns the client's entries into the MCP client's.
func convertMCPServers(in []acp.McpServer) (map[string]mcp.ServerConfig, error) {
	out := map[string]mcp.ServerConfig{}
	for i, s := range in {
		var name string
		var sc mcp.ServerConfig
		switch {
		case s.Stdio != nil:
			name = s.Stdio.Name
			sc = mcp.ServerConfig{Command: s.Stdio.Command, Args: s.Stdio.Args}
			if len(s.Stdio.Env) > 0 {
				sc.Env = map[string]string{}
				for _, e := range s.Stdio.Env {
					sc.Env[e.Name] = e.Value
				}
			}
		case s.Http != nil:
			name = s.Http.Name
			sc = mcp.ServerConfig{Type: "http", URL: s.Http.Url, Headers: headers(s.Http.Headers)}
		case s.Sse != nil:
			name = s.Sse.Name
			sc = mcp.ServerConfig{Type: "sse", URL: s.Sse.Url, Headers: headers(s.Sse.Headers)}
		default:
			return nil, invalidParams("mcpServers[%d]: agentls connects stdio, http and sse MCP servers", i)
		}
		if strings.TrimSpace(name) == "" {
			return nil, invalidParams("mcpServers[%d] has no name", i)
		}
		out[name] = sc
	}
	return out, nil
}

func headers(hs []acp.HttpHeader) map[string]string {
	if len(hs) == 0 {
		return nil
	}
	out := make(map[string]string, len(hs))
	for _, h := range hs {
		out[h.Name] = h.Value
	}
	return out
}

// ensureMCP makes the session's set the configured servers plus the
// client's (mcpset.Set.Ensure: restarted only when that changed, servers
// still connecting waited for up to bound, mcp.startupTimeoutSeconds as
// agent.Take passes it).
func (ss *session) ensureMCP(ctx context.Context, cfg config.Config, bound time.Duration) *mcp.Manager {
	want := map[string]mcp.ServerConfig{}
	maps.Copy(want, cfg.MCPServers) // the client's servers join a copy, not the configuration
	ss.mu.Lock()
	maps.Copy(want, ss.clientMCP)
	ss.mu.Unlock()
	return ss.mcp.Ensure(ctx, want, mcp.Options{Roots: []string{ss.cwd}, Env: ss.srv.opts.Env,
		Logger: ss.srv.log.With("component", "mcp", "session", ss.id), ClientVersion: ss.srv.opts.Version, Elicit: ss.elicit}, bound)
}
