package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"time"

	"github.com/agentls/agentls/agent/config"
	"github.com/agentls/agentls/tools"
	"github.com/agentls/agentls/tools/mcp"
)

// startRunMCP connects the configured MCP servers for a headless run and
// puts their tools into reg. Servers that fail are reported on stderr and
// the run goes on without their tools. The returned func stops every
// server (and its child processes).
func startRunMCP(ctx context.Context, cfg config.Config, dir string, reg *tools.Registry, logger *slog.Logger, stderr io.Writer) (closeAll func()) {
	if len(cfg.MCPServers) == 0 {
		return func() {}
	}
	m := mcp.NewManager(mcp.Options{Servers: cfg.MCPServers, Roots: []string{dir}, Registry: reg, Logger: logger, ClientVersion: currentVersion(),
		Elicit: cliElicit(os.Stdin, stderr), OAuth: cliOAuth(stderr, false)})
	m.Start(ctx)
	// Like a run in the editor, wait (bounded by mcp.startupTimeoutSeconds)
	// for the servers: a run without its configured tools would surprise.
	wait := time.Duration(cfg.MCP.StartupTimeoutSeconds) * time.Second
	wctx, cancel := context.WithTimeout(ctx, wait)
	err := m.WaitReady(wctx)
	cancel()
	for _, st := range m.Status() {
		switch st.State {
		case mcp.StateFailed:
			fmt.Fprintf(stderr, "agentls run: MCP server %q unavailable, going on without it: %s\n", st.Name, st.Err)
		case mcp.StateConnecting:
			fmt.Fprintf(stderr, "agentls run: MCP server %q still connecting after %s (mcp.startupTimeoutSeconds), going on without it\n", st.Name, wait)
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
