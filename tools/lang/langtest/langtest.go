// Package langtest finds the real language servers that tests drive
// (gopls, pyright, typescript-language-server), where .ci/run installs
// them: gopls in $AGENTLS_GOBIN (default ~/.cache/agentls-ci/bin), the npm
// servers under $AGENTLS_LSP_DIR/node_modules/.bin (default
// ~/.cache/agentls-ci/lsp). A missing one skips the test, or fails it in CI
// (internal/testpeers).
package langtest

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/agentls/agentls/internal/testpeers"
)

// Programs of the servers tests use, by built-in entry name.
var programs = map[string]string{
	"gopls":      "gopls",
	"pyright":    "pyright-langserver",
	"typescript": "typescript-language-server",
}

// Path returns the absolute path of a language server's program
// ("gopls", "pyright-langserver", "typescript-language-server"), or ends
// the test through testpeers.Missing.
func Path(tb testing.TB, program string) string {
	tb.Helper()
	home, _ := os.UserHomeDir()
	cache := filepath.Join(home, ".cache", "agentls-ci")
	var p string
	switch program {
	case "gopls":
		dir := os.Getenv("AGENTLS_GOBIN")
		if dir == "" {
			dir = filepath.Join(cache, "bin")
		}
		p = filepath.Join(dir, "gopls")
	default:
		dir := os.Getenv("AGENTLS_LSP_DIR")
		if dir == "" {
			dir = filepath.Join(cache, "lsp")
		}
		p = filepath.Join(dir, "node_modules", ".bin", program)
	}
	if _, err := os.Stat(p); err != nil {
		testpeers.Missing(tb, "%s is not installed at %s (.ci/run installs it; or set AGENTLS_GOBIN / AGENTLS_LSP_DIR)", program, p)
	}
	return p
}

// LookPath returns a lookPath for lang.Resolve that finds exactly the
// servers named (built-in entry names: "gopls", "pyright", "typescript")
// where .ci/run installs them, and nothing else, so that whatever else is
// on the machine's PATH (a broken rust-analyzer proxy, say) stays out.
func LookPath(tb testing.TB, servers ...string) func(string) (string, error) {
	tb.Helper()
	found := map[string]string{}
	for _, s := range servers {
		prog, ok := programs[s]
		if !ok {
			tb.Fatalf("langtest: unknown server %q", s)
		}
		found[prog] = Path(tb, prog)
	}
	return func(name string) (string, error) {
		if p, ok := found[name]; ok {
			return p, nil
		}
		return "", errors.New("not found")
	}
}
