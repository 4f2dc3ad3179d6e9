package tools

import (
	"sort"
	"strings"
)

// inheritedEnv are the variables a child process (an MCP stdio server, a
// run_command shell) gets from agentls's environment. Everything else, and
// above all the model's API key, stays with agentls: a child that needs a
// variable must be given it explicitly (an MCP server's "env").
var inheritedEnv = []string{
	"HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER", "TMPDIR", "TZ", "LANG", "LANGUAGE",
	"XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME", "XDG_STATE_HOME", "XDG_RUNTIME_DIR",
	"HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY", "http_proxy", "https_proxy", "no_proxy", "ALL_PROXY", "all_proxy",
	"SSL_CERT_FILE", "SSL_CERT_DIR", "NODE_EXTRA_CA_CERTS",
}

// ChildEnv is the environment of every process agentls starts: the
// inherited allowlist (plus LC_* locale settings) from environ, then extra,
// sorted by name so the child's environment is stable. It is the one place
// that decides what a child sees, shared by run_command and MCP servers.
func ChildEnv(environ []string, extra map[string]string) []string {
	keep := make(map[string]bool, len(inheritedEnv))
	for _, k := range inheritedEnv {
		keep[k] = true
	}
	out := make([]string, 0, len(inheritedEnv)+len(extra))
	for _, kv := range environ {
		k, _, _ := strings.Cut(kv, "=")
		if _, set := extra[k]; !set && (keep[k] || strings.HasPrefix(k, "LC_")) {
			out = append(out, kv)
		}
	}
	keys := make([]string, 0, len(extra))
	for k := range extra {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		out = append(out, k+"="+extra[k])
	}
	return out
}
