package mcptest

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/agentls/agentls/internal/testpeers"
)

// NPMPackage locates the entry point (dist/index.js) of an installed
// @modelcontextprotocol npm package such as "server-everything", in
// $AGENTLS_NPM_DIR or ~/.cache/agentls-ci/npm where .ci/run installs them,
// or skips the test (see testpeers.Missing).
func NPMPackage(t testing.TB, pkg string) string {
	t.Helper()
	if _, err := exec.LookPath("node"); err != nil {
		testpeers.Missing(t, "node is not installed; CI installs it (see .ci/run)")
	}
	dir := os.Getenv("AGENTLS_NPM_DIR")
	if dir == "" {
		home, _ := os.UserHomeDir()
		dir = filepath.Join(home, ".cache", "agentls-ci", "npm")
	}
	entry := filepath.Join(dir, "node_modules", "@modelcontextprotocol", pkg, "dist", "index.js")
	if _, err := os.Stat(entry); err != nil {
		testpeers.Missing(t, "%s is not installed in %s (npm install @modelcontextprotocol/%s there, or set AGENTLS_NPM_DIR)", pkg, dir, pkg)
	}
	return entry
}
