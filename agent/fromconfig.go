package agent

import (
	"github.com/agentls/agentls/agent/config"
	"github.com/agentls/agentls/tools/mcp"
)

// LimitsFromConfig maps the user's configuration onto run limits, so that
// lspserver and the CLI apply the same settings the same way. Fields the
// configuration does not cover keep their defaults.
func LimitsFromConfig(c config.Config) Limits {
	l := Limits{
		MaxTurns:                 c.MaxTurns,
		WallClock:                c.WallClock(),
		TokenBudget:              c.TokenBudget,
		MaxConsecutiveToolErrors: c.MaxConsecutiveToolErrors,
		RepeatStopAt:             c.MaxRepeatedCalls,
		ContextWindow:            c.Model.ContextWindow,
		TaskMaxTurns:             c.TaskMaxTurns,
		MaxToolCallsPerTurn:      c.MaxToolCallsPerTurn,
	}
	if c.TokenBudget == 0 { // the config's "unlimited"
		l.TokenBudget = -1
	}
	if l.RepeatStopAt > 0 {
		// Warn two calls before stopping (3 then 5 by default), at least once.
		l.RepeatWarnAt = max(1, l.RepeatStopAt-2)
	}
	return l
}

// MCPServers converts the configuration's MCP servers for the MCP client
// (tools/mcp), which the configuration package does not depend on.
func MCPServers(c config.Config) map[string]mcp.ServerConfig {
	if c.MCPServers == nil {
		return nil
	}
	out := make(map[string]mcp.ServerConfig, len(c.MCPServers))
	for name, s := range c.MCPServers {
		sc := mcp.ServerConfig{Command: s.Command, Args: s.Args, Env: s.Env, Type: s.Type, URL: s.URL, Headers: s.Headers, Disabled: s.Disabled}
		if o := s.OAuth; o != nil {
			sc.OAuth = &mcp.OAuthConfig{ClientID: o.ClientID, ClientSecret: o.ClientSecret, Scopes: o.Scopes, ClientMetadataURL: o.ClientMetadataURL}
		}
		out[name] = sc
	}
	return out
}
