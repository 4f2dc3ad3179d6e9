package mcp

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	mcpserver "github.com/mark3labs/mcp-go/server"

	"github.com/agentls/agentls/internal/testpeers"
	"github.com/agentls/agentls/internal/testwait"
	"github.com/agentls/agentls/tools"
	"github.com/agentls/agentls/tools/mcp/mcptest"
)

// The test binary doubles as the MCP servers the tests need: run with
// AGENTLS_MCP_HELPER=<mode> it serves instead of testing.
const helperEnv = "AGENTLS_MCP_HELPER"

func TestMain(m *testing.M) {
	if mode := os.Getenv(helperEnv); mode != "" {
		os.Exit(runHelper(mode))
	}
	testwait.VerifyTestMain(m)
}

func runHelper(mode string) int {
	switch mode {
	case "basic":
		s := newHelperServer()
		ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM)
		defer stop()
		err := mcpserver.NewStdioServer(s).Listen(ctx, os.Stdin, os.Stdout)
		if err != nil && ctx.Err() == nil && err != io.EOF {
			fmt.Fprintln(os.Stderr, "helper:", err)
		}
		return 0
	case "requests": // basic plus the tools that send requests to the client
		s := newHelperServer()
		mcptest.AddClientRequestTools(s)
		ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM)
		defer stop()
		_ = mcpserver.NewStdioServer(s).Listen(ctx, os.Stdin, os.Stdout)
		return 0
	case "stubborn": // serves, then ignores EOF and SIGTERM: only SIGKILL ends it
		signal.Ignore(syscall.SIGTERM)
		_ = mcpserver.NewStdioServer(newHelperServer()).Listen(context.Background(), os.Stdin, os.Stdout)
		select {}
	case "silent": // reads requests, never answers
		_, _ = io.Copy(io.Discard, os.Stdin)
		return 0
	case "crash":
		fmt.Fprintln(os.Stderr, "fatal: HELPER_TOKEN is not set")
		return 2
	case "launcher": // like npx: the real server is a grandchild
		child := os.Getenv("AGENTLS_MCP_LAUNCH")
		if child == "" {
			child = "basic"
		}
		cmd := exec.Command(os.Args[0])
		cmd.Env = append(os.Environ(), helperEnv+"="+child)
		cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
		_ = cmd.Run()
		return 0
	case "agent": // plays agentls for the kill test
		return runHelperAgent()
	}
	fmt.Fprintln(os.Stderr, "unknown helper mode", mode)
	return 1
}

// runHelperAgent starts a Manager from the JSON config in
// AGENTLS_MCP_HELPER_CONFIG, prints the process group of each stdio server
// once ready, and waits to be killed.
func runHelperAgent() int {
	var servers map[string]ServerConfig
	if err := json.Unmarshal([]byte(os.Getenv("AGENTLS_MCP_HELPER_CONFIG")), &servers); err != nil {
		fmt.Println("bad config:", err)
		return 1
	}
	m := NewManager(Options{Servers: servers})
	m.Start(context.Background())
	_ = m.WaitReady(context.Background())
	for _, s := range m.servers {
		s.mu.Lock()
		if s.conn != nil && s.conn.proc != nil {
			fmt.Printf("pgid %d\n", s.conn.proc.pgid)
		}
		s.mu.Unlock()
	}
	fmt.Println("ready")
	select {}
}

// newHelperServer is the mcptest server with the "die" tool and N
// generated tools from AGENTLS_MCP_GEN_TOOLS.
func newHelperServer() *mcpserver.MCPServer {
	n, _ := strconv.Atoi(os.Getenv("AGENTLS_MCP_GEN_TOOLS"))
	return mcptest.NewServer(mcptest.Options{GeneratedTools: n, Log: os.Stderr, Exit: os.Exit})
}

// helperConfig runs this test binary as a stdio server in mode.
func helperConfig(t testing.TB, mode string, env map[string]string) ServerConfig {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	// Race-enabled binaries sleep 1 s at exit by default.
	e := map[string]string{helperEnv: mode, "GORACE": "atexit_sleep_ms=0"}
	for k, v := range env {
		e[k] = v
	}
	return ServerConfig{Command: exe, Env: e}
}

// npmPackage locates an installed npm package's entry point, or skips the
// test when node or the package is missing (CI installs both).
func npmPackage(t testing.TB, pkg string) string {
	t.Helper()
	return mcptest.NPMPackage(t, pkg)
}

// startManager starts a Manager on servers and closes it when the test ends.
func startManager(t testing.TB, opts Options) *Manager {
	t.Helper()
	if opts.Registry == nil {
		opts.Registry = tools.NewRegistry()
	}
	if opts.ReconnectDelay == 0 {
		opts.ReconnectDelay = 10 * time.Millisecond
	}
	if opts.Logger == nil {
		opts.Logger = testLogger(t)
	}
	m := NewManager(opts)
	m.Start(context.Background())
	t.Cleanup(func() { _ = m.Close() })
	return m
}

// waitFor blocks until cond holds, woken by the manager's change signal
// rather than by polling; it fails the test after a generous deadline.
func waitFor(t testing.TB, m *Manager, what string, cond func() bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	for {
		ch := m.Changed()
		if cond() {
			return
		}
		select {
		case <-ch:
		case <-ctx.Done():
			t.Fatalf("timed out waiting for %s; status %+v", what, m.Status())
		}
	}
}

func statusOf(m *Manager, name string) ServerStatus {
	for _, st := range m.Status() {
		if st.Name == name {
			return st
		}
	}
	return ServerStatus{}
}

func waitState(t testing.TB, m *Manager, name string, st State) ServerStatus {
	t.Helper()
	waitFor(t, m, name+" "+string(st), func() bool { return statusOf(m, name).State == st })
	return statusOf(m, name)
}

// call runs a registry tool and fails the test on a Go error.
func call(t testing.TB, reg *tools.Registry, name, args string) tools.Result {
	t.Helper()
	tool, ok := reg.Get(name)
	if !ok {
		t.Fatalf("tool %s not in registry", name)
	}
	res, err := tool.Call(context.Background(), nil, json.RawMessage(args))
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return res
}

// needProc skips tests that inspect processes through /proc.
func needProc(t testing.TB) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		testpeers.Missing(t, "needs /proc to inspect process groups: %v", err)
	}
}

// groupMembers lists the live (non-zombie) processes in process group pgid.
func groupMembers(pgid int) []int {
	var out []int
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// pid (comm) state ppid pgrp ...; comm may contain spaces.
		rest := string(b[strings.LastIndexByte(string(b), ')')+2:])
		f := strings.Fields(rest)
		if len(f) > 2 && f[0] != "Z" && f[2] == strconv.Itoa(pgid) {
			out = append(out, pid)
		}
	}
	return out
}

// waitGroupGone waits until process group pgid has no live member.
func waitGroupGone(t testing.TB, pgid int) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for len(groupMembers(pgid)) > 0 {
		if time.Now().After(deadline) {
			t.Fatalf("process group %d still has live processes %v", pgid, groupMembers(pgid))
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// testLogger sends the manager's logs to the test log (and to extra
// writers, such as a lineWaiter), until the test's cleanups have run.
func testLogger(t testing.TB, extra ...io.Writer) *slog.Logger {
	sink := &logSink{t: t, extra: extra}
	t.Cleanup(func() { sink.done.Store(true) })
	return slog.New(slog.NewTextHandler(sink, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

type logSink struct {
	t     testing.TB
	extra []io.Writer
	done  atomic.Bool
}

func (l *logSink) Write(p []byte) (int, error) {
	if l.done.Load() {
		return len(p), nil
	}
	l.t.Log(strings.TrimSpace(string(p)))
	for _, w := range l.extra {
		_, _ = w.Write(p)
	}
	return len(p), nil
}

// lineWaiter captures logged lines so a test can wait for one.
type lineWaiter struct{ ch chan string }

func newLineWaiter() *lineWaiter { return &lineWaiter{ch: make(chan string, 256)} }

func (w *lineWaiter) Write(p []byte) (int, error) {
	sc := bufio.NewScanner(strings.NewReader(string(p)))
	for sc.Scan() {
		select {
		case w.ch <- sc.Text():
		default:
		}
	}
	return len(p), nil
}

func (w *lineWaiter) waitFor(t testing.TB, substr string) {
	t.Helper()
	timeout := time.After(60 * time.Second)
	for {
		select {
		case l := <-w.ch:
			if strings.Contains(l, substr) {
				return
			}
		case <-timeout:
			t.Fatalf("no log line containing %q", substr)
		}
	}
}
