package mcptest

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// SkipWithoutPeer skips a test whose real peer (node, an npm MCP server) is
// missing, or fails it when AGENTLS_REQUIRE_PEERS is set (CI), so CI never
// passes by skipping.
func SkipWithoutPeer(t testing.TB, format string, args ...any) {
	t.Helper()
	if os.Getenv("AGENTLS_REQUIRE_PEERS") != "" {
		t.Fatalf("AGENTLS_REQUIRE_PEERS is set but a peer is missing: "+format, args...)
	}
	t.Skipf(format, args...)
}

// NPMPackage locates the entry point (dist/index.js) of an installed
// @modelcontextprotocol npm package such as "server-everything", in
// $AGENTLS_NPM_DIR or ~/.cache/agentls-ci/npm where .ci/run installs them,
// or skips the test (see SkipWithoutPeer).
func NPMPackage(t testing.TB, pkg string) string {
	t.Helper()
	if _, err := exec.LookPath("node"); err != nil {
		SkipWithoutPeer(t, "node is not installed; CI installs it (see .ci/run)")
	}
	dir := os.Getenv("AGENTLS_NPM_DIR")
	if dir == "" {
		home, _ := os.UserHomeDir()
		dir = filepath.Join(home, ".cache", "agentls-ci", "npm")
	}
	entry := filepath.Join(dir, "node_modules", "@modelcontextprotocol", pkg, "dist", "index.js")
	if _, err := os.Stat(entry); err != nil {
		SkipWithoutPeer(t, "%s is not installed in %s (npm install @modelcontextprotocol/%s there, or set AGENTLS_NPM_DIR)", pkg, dir, pkg)
	}
	return entry
}
