package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"time"

	"github.com/agentls/agentls/agent/config"
	"github.com/agentls/agentls/agent/mcpset"
	"github.com/agentls/agentls/tools"
	"github.com/agentls/agentls/tools/mcp"
)

// startRunMCP connects the configured MCP servers for a headless run and
// puts their tools into reg, waiting for them like a run in the editor
// (mcpset.Set.Ensure, bounded by mcp.startupTimeoutSeconds): a run without
// its configured tools would surprise. Servers that fail or are still
// connecting are reported on stderr and the run goes on without their
// tools. The returned func stops every server (and its child processes).
func startRunMCP(ctx context.Context, cfg config.Config, dir string, reg *tools.Registry, logger *slog.Logger, stderr io.Writer) (closeAll func()) {
	set := mcpset.New(ctx, mcpset.Options{Logger: logger})
	wait := time.Duration(cfg.MCP.StartupTimeoutSeconds) * time.Second
	m := set.Ensure(ctx, cfg.MCPServers, mcp.Options{Roots: []string{dir}, Registry: reg, Logger: logger, ClientVersion: currentVersion(),
		Elicit: cliElicit(os.Stdin, stderr), OAuth: cliOAuth(stderr, false)}, wait)
	if m == nil {
		return set.Close
	}
	for _, st := range m.Status() {
		switch st.State {
		case mcp.StateFailed:
			fmt.Fprintf(stderr, "agentls run: MCP server %q unavailable, going on without it: %s\n", st.Name, st.Err)
		case mcp.StateConnecting:
			fmt.Fprintf(stderr, "agentls run: MCP server %q still connecting after %s (mcp.startupTimeoutSeconds), going on without it\n", st.Name, wait)
		}
	}
	return set.Close
}
