package mcptest

import (
	"bufio"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentls/agentls/internal/childproc"
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

// StartNodeServer runs an npm MCP server's entry point in an HTTP mode
// ("streamableHttp", "sse") with PORT=port, in its own process group, and
// returns once a line of its stderr contains readyLine; the returned func
// kills the group and waits (tests also register it with t.Cleanup).
func StartNodeServer(t testing.TB, entry, mode, readyLine string, port int) (stop func()) {
	t.Helper()
	cmd := exec.Command("node", entry, mode)
	cmd.Env = append(os.Environ(), fmt.Sprintf("PORT=%d", port))
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	g, err := childproc.StartCmd(cmd)
	if err != nil {
		t.Fatal(err)
	}
	stop = g.Kill
	sc := bufio.NewScanner(stderr)
	for sc.Scan() {
		if strings.Contains(sc.Text(), readyLine) {
			go func() { // keep the pipe drained
				for sc.Scan() {
				}
			}()
			return stop
		}
	}
	stop()
	t.Fatalf("%s %s exited before listening", entry, mode)
	return nil
}

// FreePort returns a TCP port on 127.0.0.1 that was free a moment ago.
func FreePort(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}
