// Package mcp connects agentls to users' MCP tool servers (stdio, SSE and
// streamable HTTP) through github.com/mark3labs/mcp-go and exposes their
// tools in the registry as mcp__<server>__<tool>.
package mcp

import "encoding/json"

// ServerConfig is one entry of "mcpServers", in the shape other MCP clients
// use: Command/Args/Env for stdio; Type ("sse" or "http") + URL + Headers
// for remote servers. It is the one definition of an MCP server entry:
// agent/config decodes the configuration files straight into it. ${VAR} and ${VAR:-default} in Command, Args, Env, URL and
// Headers values are expanded from the environment when the server is
// started (a bare $VAR is left alone).
//
// A stdio server does not inherit agentls's whole environment (which holds
// the model's API key), only a short allowlist (PATH, HOME, USER, locale,
// proxy and CA settings; see tools.ChildEnv) plus Env: pass anything else
// explicitly, e.g. "env": {"GITHUB_TOKEN": "${GITHUB_TOKEN}"}. This is what
// the reference MCP SDK does.
type ServerConfig struct {
	Command  string            `json:"command,omitempty"`
	Args     []string          `json:"args,omitempty"`
	Env      map[string]string `json:"env,omitempty"`
	Type     string            `json:"type,omitempty"` // "", "stdio", "sse", "http" (alias "streamable-http")
	URL      string            `json:"url,omitempty"`
	Headers  map[string]string `json:"headers,omitempty"`
	Disabled bool              `json:"disabled,omitempty"`
	// OAuth configures authorization for a remote server that asks for it
	// (optional: discovery and dynamic registration need nothing).
	OAuth *OAuthConfig `json:"oauth,omitempty"`
}

// SetKey identifies a set of servers, so a face can tell whether its
// running set must be replaced: equal sets give equal keys (encoding/json
// sorts map keys) and the empty set, nil or not, is "".
func SetKey(servers map[string]ServerConfig) string {
	if len(servers) == 0 {
		return ""
	}
	b, err := json.Marshal(servers)
	if err != nil {
		return "unmarshalable"
	}
	return string(b)
}
