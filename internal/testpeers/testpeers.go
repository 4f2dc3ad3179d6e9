// Package testpeers decides, in one place for every test package, what a
// missing peer means. Tests drive real peers (Neovim, Emacs, ripgrep, git,
// node and the npm MCP servers, code-server); on a developer machine
// without one, its tests skip and say what is missing. In CI (.ci/run sets
// AGENTLS_REQUIRE_PEERS=1) a missing peer is a broken setup, so the test
// fails instead: CI can never pass by skipping.
//
// It imports only the standard library, so any package's tests (tools,
// agent, lspserver, editors) can use it without bending the import
// direction.
package testpeers

import (
	"os"
	"os/exec"
	"testing"
)

// RequireEnv is the environment variable that turns missing peers into
// failures.
const RequireEnv = "AGENTLS_REQUIRE_PEERS"

// Required reports whether missing peers fail tests (RequireEnv is set to
// anything but "" or "0").
func Required() bool {
	v := os.Getenv(RequireEnv)
	return v != "" && v != "0"
}

// Missing ends the test because a peer is missing: a skip with the
// message, or a failure when Required.
func Missing(tb testing.TB, format string, args ...any) {
	tb.Helper()
	if Required() {
		tb.Fatalf(RequireEnv+" is set but a peer is missing: "+format, args...)
		return
	}
	tb.Skipf(format, args...)
}

// LookPath returns the path of program name, or ends the test through
// Missing; hint says how to install it.
func LookPath(tb testing.TB, name, hint string) string {
	tb.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		Missing(tb, "%s not on PATH (%s): %v", name, hint, err)
	}
	return p
}

// Pytest returns a Python interpreter that has pytest (Debian's
// python3-pytest installs it for /usr/bin/python3, which may not be the
// first python3 on PATH), or ends the test through Missing.
func Pytest(tb testing.TB) string {
	tb.Helper()
	var tried []string
	for _, name := range []string{"python3", "/usr/bin/python3"} {
		p, err := exec.LookPath(name)
		if err != nil {
			continue
		}
		if exec.Command(p, "-m", "pytest", "--version").Run() == nil {
			return p
		}
		tried = append(tried, p)
	}
	Missing(tb, "no python3 with pytest (apt-get install python3-pytest); tried %v", tried)
	return ""
}
