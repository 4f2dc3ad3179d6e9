package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"time"

	"github.com/agentls/agentls/agent/config"
	"github.com/agentls/agentls/tools"
	"github.com/agentls/agentls/tools/mcp"
)

// mcpConnectWait bounds how long `agentls run` waits for MCP servers before
// starting the model: a headless run, unlike the editor, has nothing else
// to do meanwhile, and a run without its configured tools would surprise.
const mcpConnectWait = 30 * time.Second

// startRunMCP connects the configured MCP servers for a headless run and
// puts their tools into reg. Servers that fail are reported on stderr and
// the run goes on without their tools. The returned func stops every
// server (and its child processes).
func startRunMCP(ctx context.Context, cfg config.Config, dir string, reg *tools.Registry, logger *slog.Logger, stderr io.Writer) (closeAll func()) {
	if len(cfg.MCPServers) == 0 {
		return func() {}
	}
	m := mcp.NewManager(mcp.Options{Servers: cfg.MCPServers, Roots: []string{dir}, Registry: reg, Logger: logger, ClientVersion: currentVersion()})
	m.Start(ctx)
	wctx, cancel := context.WithTimeout(ctx, mcpConnectWait)
	err := m.WaitReady(wctx)
	cancel()
	for _, st := range m.Status() {
		switch st.State {
		case mcp.StateFailed:
			fmt.Fprintf(stderr, "agentls run: MCP server %q unavailable, going on without it: %s\n", st.Name, st.Err)
		case mcp.StateConnecting:
			fmt.Fprintf(stderr, "agentls run: MCP server %q still connecting after %s, going on without it for now\n", st.Name, mcpConnectWait)
		}
	}
	if err != nil && ctx.Err() == nil {
		logger.Warn("waiting for MCP servers", "err", err)
	}
	return func() {
		if err := m.Close(); err != nil {
			logger.Warn("stopping MCP servers", "err", err)
		}
	}
}
