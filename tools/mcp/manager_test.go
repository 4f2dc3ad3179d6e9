package mcp

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agentls/agentls/internal/testwait"
	"github.com/agentls/agentls/tools"
	"github.com/agentls/agentls/tools/mcp/mcptest"
)

var validName = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)

func TestHelperServerTools(t *testing.T) {
	reg := tools.NewRegistry()
	m := startManager(t, Options{Servers: map[string]ServerConfig{"go helper": helperConfig(t, "basic", nil)}, Registry: reg})
	st := waitState(t, m, "go helper", StateReady)

	// 9 tools over pages of 7: pagination was followed.
	if len(st.Tools) != 9 {
		t.Fatalf("tools %v, want 9", st.Tools)
	}
	for _, n := range st.Tools {
		if !validName.MatchString(n) || !strings.HasPrefix(n, "mcp__go_helper__") {
			t.Errorf("bad tool name %q", n)
		}
		if _, ok := reg.Get(n); !ok {
			t.Errorf("%s listed in status but not in registry", n)
		}
	}
	if !slices.Contains(st.Tools, "mcp__go_helper__weird_name_with_spaces") {
		t.Errorf("sanitised name missing: %v", st.Tools)
	}
	long := toolName("go_helper", mcptest.LongToolName)
	if len(long) != 64 || !slices.Contains(st.Tools, long) {
		t.Errorf("shortened name %q (%d bytes) missing from %v", long, len(long), st.Tools)
	}
	if res := call(t, reg, long, `{}`); res.Text != "long ok" {
		t.Errorf("shortened name calls the wrong tool: %+v", res)
	}
	if res := call(t, reg, "mcp__go_helper__weird_name_with_spaces", ``); res.Text != "weird ok" {
		t.Errorf("sanitised name calls the wrong tool: %+v", res)
	}

	echo, _ := reg.Get("mcp__go_helper__echo")
	var schema struct {
		Type       string                     `json:"type"`
		Properties map[string]json.RawMessage `json:"properties"`
		Required   []string                   `json:"required"`
	}
	if err := json.Unmarshal(echo.Schema(), &schema); err != nil || schema.Type != "object" || schema.Properties["text"] == nil || !slices.Equal(schema.Required, []string{"text"}) {
		t.Errorf("echo schema not passed through: %s", echo.Schema())
	}
	die, _ := reg.Get("mcp__go_helper__die")
	if !echo.ReadOnly() || die.ReadOnly() {
		t.Errorf("ReadOnly: echo %v (hint true), die %v (no hint)", echo.ReadOnly(), die.ReadOnly())
	}
	if echo.Description() != "Echo the text back." {
		t.Errorf("description %q", echo.Description())
	}
	if !strings.Contains(string(die.Schema()), `"properties":{}`) {
		t.Errorf("schema without parameters must still have properties: %s", die.Schema())
	}

	if res := call(t, reg, "mcp__go_helper__echo", `{"text":"héllo 👋"}`); res.IsError || res.Text != "helper: héllo 👋" {
		t.Errorf("echo: %+v", res)
	}
	// A program (the script tool) gets the structured content as values.
	if res, err := echo.Call(tools.WithData(context.Background()), nil, json.RawMessage(`{"text":"x"}`)); err != nil ||
		fmt.Sprint(res.Data) != "map[echo:helper: x length:9]" || res.Text != "helper: x" {
		t.Errorf("echo for a program: %+v %v", res, err)
	}
	if res := call(t, reg, "mcp__go_helper__fail", `{}`); !res.IsError || res.Text != "the widget is broken" {
		t.Errorf("isError not passed on: %+v", res)
	}
	if res := call(t, reg, "mcp__go_helper__echo", `[1,2]`); !res.IsError || !strings.Contains(res.Text, "JSON object") {
		t.Errorf("non-object arguments: %+v", res)
	}

	res := call(t, reg, "mcp__go_helper__big", `{}`)
	if !strings.Contains(res.Text, "[output truncated: showed the first") || len(res.Text) > MaxOutputBytes+300 {
		t.Errorf("big output not truncated: %d bytes, tail %q", len(res.Text), res.Text[max(0, len(res.Text)-200):])
	}

	res = call(t, reg, "mcp__go_helper__mixed", `{}`)
	for _, want := range []string{"intro", "[image: image/png, 1234 bytes]", "[audio: audio/wav, 10 bytes]",
		"[resource link: file:///tmp/report.txt (report), text/plain: the report]", "[resource: mem://note]\nnote body",
		"[resource: mem://blob, application/gzip, 99 bytes]"} {
		if !strings.Contains(res.Text, want) {
			t.Errorf("mixed content lacks %q:\n%s", want, res.Text)
		}
	}
}

func TestHelperListChangedRefreshes(t *testing.T) {
	reg := tools.NewRegistry()
	m := startManager(t, Options{Servers: map[string]ServerConfig{"h": helperConfig(t, "basic", nil)}, Registry: reg})
	waitState(t, m, "h", StateReady)
	if res := call(t, reg, "mcp__h__add_tool", `{"name":"late"}`); res.Text != "added late" {
		t.Fatalf("add_tool: %+v", res)
	}
	waitFor(t, m, "late tool", func() bool { _, ok := reg.Get("mcp__h__late"); return ok })
	if res := call(t, reg, "mcp__h__late", `{}`); res.Text != "I am late" {
		t.Fatalf("late tool: %+v", res)
	}
	if st := statusOf(m, "h"); st.Refreshes < 1 || !slices.Contains(st.Tools, "mcp__h__late") {
		t.Fatalf("status after refresh: %+v", st)
	}
}

func TestServerExitsMidCall(t *testing.T) {
	reg := tools.NewRegistry()
	m := startManager(t, Options{Registry: reg, Servers: map[string]ServerConfig{
		"a": helperConfig(t, "basic", nil), "b": helperConfig(t, "basic", nil)}})
	waitState(t, m, "a", StateReady)
	waitState(t, m, "b", StateReady)
	oldEcho, _ := reg.Get("mcp__a__echo")

	res := call(t, reg, "mcp__a__die", `{}`)
	if !res.IsError || !strings.Contains(res.Text, `MCP server "a" is unavailable`) ||
		!strings.Contains(res.Text, "exit status 3") || !strings.Contains(res.Text, "helper: dying on purpose") {
		t.Fatalf("mid-call exit: %+v", res)
	}
	if res := call(t, reg, "mcp__b__echo", `{"text":"still here"}`); res.Text != "helper: still here" {
		t.Fatalf("other server affected: %+v", res)
	}
	// The server is restarted and its tools come back.
	waitFor(t, m, "a back", func() bool {
		st := statusOf(m, "a")
		return st.State == StateReady && slices.Contains(st.Tools, "mcp__a__echo")
	})
	if res := call(t, reg, "mcp__a__echo", `{"text":"again"}`); res.Text != "helper: again" {
		t.Fatalf("after restart: %+v", res)
	}
	// A tool object held from before the crash uses the new connection.
	if res, err := oldEcho.Call(context.Background(), nil, json.RawMessage(`{"text":"old"}`)); err != nil || res.Text != "helper: old" {
		t.Fatalf("old tool object after restart: %+v %v", res, err)
	}
}

// TestStartupFailures: each way a server can fail to start fails it alone,
// with a reason; the good one's tools are there. The connect timeout is
// testwait's bound: the helper servers are this (race-built) test binary,
// which on a loaded machine can take longer than a short timeout to start,
// and a good server or one that crashes must not be failed by the clock
// (a 500 ms timeout failed 'good' and 'crash' in 4 of 20 runs). The
// silent server, which only the timeout can fail, has its own manager.
func TestStartupFailures(t *testing.T) {
	silent := startManager(t, Options{ConnectTimeout: 500 * time.Millisecond, ReconnectAttempts: 2,
		Servers: map[string]ServerConfig{"silent": helperConfig(t, "silent", nil)}})
	reg := tools.NewRegistry()
	m := startManager(t, Options{Registry: reg, ConnectTimeout: testwait.Limit, ReconnectAttempts: 2, Servers: map[string]ServerConfig{
		"crash":    helperConfig(t, "crash", nil),
		"missing":  {Command: "/nonexistent/mcp-server", Args: []string{"--stdio"}},
		"nourl":    {Type: "sse"},
		"badtype":  {Type: "websocket", URL: "ws://x"},
		"off":      {Command: "/nonexistent", Disabled: true},
		"good":     helperConfig(t, "basic", nil),
		"refused":  {Type: "http", URL: "http://127.0.0.1:1/mcp"},
		"noformat": {},
	}})
	if err := silent.WaitReady(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := m.WaitReady(context.Background()); err != nil {
		t.Fatal(err)
	}
	if st := statusOf(silent, "silent"); st.State != StateFailed || !strings.Contains(st.Err, "no answer within 500ms: initialize: ") {
		t.Errorf("silent: state %s, error %q, want failed with no answer within 500ms", st.State, st.Err)
	}
	want := map[string][]string{
		"crash":    {"server exited during start-up: process exited: exit status 2; stderr: fatal: HELPER_TOKEN is not set"},
		"missing":  {"/nonexistent/mcp-server", "no such file or directory"},
		"nourl":    {`type "sse" needs a "url"`},
		"badtype":  {`unknown type "websocket"`},
		"refused":  {"connection refused"},
		"noformat": {`no "command"`},
	}
	for name, subs := range want {
		st := statusOf(m, name)
		if st.State != StateFailed {
			t.Errorf("%s: state %s, want failed (%s)", name, st.State, st.Err)
		}
		for _, s := range subs {
			if !strings.Contains(st.Err, s) {
				t.Errorf("%s: error %q lacks %q", name, st.Err, s)
			}
		}
	}
	if st := statusOf(m, "off"); st.State != StateDisabled {
		t.Errorf("disabled server: %+v", st)
	}
	if res := call(t, reg, "mcp__good__echo", `{"text":"ok"}`); res.Text != "helper: ok" {
		t.Errorf("good server's tool: %+v", res)
	}
	for _, tool := range reg.List() {
		if !strings.HasPrefix(tool.Name(), "mcp__good__") {
			t.Errorf("failed server left tool %s", tool.Name())
		}
	}
}

func TestSilentServerProcessStopped(t *testing.T) {
	needProc(t)
	m := startManager(t, Options{ConnectTimeout: 300 * time.Millisecond, ReconnectAttempts: 1,
		Servers: map[string]ServerConfig{"silent": helperConfig(t, "silent", nil)}})
	// Catch the process while the handshake waits.
	var pgid int
	waitFor(t, m, "silent process", func() bool {
		pgid = serverPgid(m, "silent")
		return pgid != 0 || statusOf(m, "silent").State == StateFailed
	})
	waitState(t, m, "silent", StateFailed)
	if pgid != 0 {
		waitGroupGone(t, pgid)
	}
}

// serverPgid is the process group of a stdio server's current connection.
func serverPgid(m *Manager, name string) int {
	s := m.servers[name]
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.conn != nil && s.conn.proc != nil {
		return s.conn.proc.pgid
	}
	return 0
}

func TestCancellationReachesServer(t *testing.T) {
	lines := newLineWaiter()
	reg := tools.NewRegistry()
	m := startManager(t, Options{Registry: reg, Logger: testLogger(t, lines),
		Servers: map[string]ServerConfig{"h": helperConfig(t, "basic", nil)}})
	waitState(t, m, "h", StateReady)
	tool, _ := reg.Get("mcp__h__wait")

	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := tool.Call(ctx, nil, json.RawMessage(`{}`))
		done <- err
	}()
	lines.waitFor(t, "helper: wait started")
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled call returned %v", err)
	}
	// notifications/cancelled reached the server, which cancelled the handler.
	lines.waitFor(t, "helper: wait cancelled")
}

func TestCallTimeout(t *testing.T) {
	reg := tools.NewRegistry()
	m := startManager(t, Options{Registry: reg, CallTimeout: 200 * time.Millisecond,
		Servers: map[string]ServerConfig{"h": helperConfig(t, "basic", nil)}})
	waitState(t, m, "h", StateReady)
	res := call(t, reg, "mcp__h__wait", `{}`)
	if !res.IsError || !strings.Contains(res.Text, "mcp__h__wait timed out after 200ms") {
		t.Fatalf("timeout: %+v", res)
	}
	if res := call(t, reg, "mcp__h__echo", `{"text":"x"}`); res.Text != "helper: x" {
		t.Fatalf("server unusable after a timeout: %+v", res)
	}
}

// TestCloseStopsLauncherGroup closes a launcher whose grandchild ignores
// stdin EOF and SIGTERM: Close must escalate to SIGKILL on the whole group.
func TestCloseStopsLauncherGroup(t *testing.T) {
	needProc(t)
	reg := tools.NewRegistry()
	m := startManager(t, Options{Registry: reg, Servers: map[string]ServerConfig{
		"npx": helperConfig(t, "launcher", map[string]string{"AGENTLS_MCP_LAUNCH": "stubborn"})}})
	waitState(t, m, "npx", StateReady)
	pgid := serverPgid(m, "npx")
	if n := len(groupMembers(pgid)); n != 2 {
		t.Fatalf("launcher group has %d live processes, want launcher + server", n)
	}
	tool, _ := reg.Get("mcp__npx__echo")
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	if n := groupMembers(pgid); len(n) != 0 {
		t.Fatalf("Close returned with live processes %v in the server's group", n)
	}
	if len(reg.List()) != 0 {
		t.Fatalf("tools left after Close: %v", reg.List())
	}
	res, err := tool.Call(context.Background(), nil, json.RawMessage(`{"text":"x"}`))
	if err != nil || !res.IsError || res.Text != `MCP server "npx" is unavailable: the MCP client was shut down` {
		t.Fatalf("call after Close: %+v %v", res, err)
	}
}

// TestKilledAgentLeavesNoOrphans kills (SIGKILL) a process playing agentls.
// Its servers: an npx-style launcher with the real server as a grandchild
// (ended by stdin EOF), and a server that ignores EOF and SIGTERM (ended by
// the parent-death signal). None may survive.
func TestKilledAgentLeavesNoOrphans(t *testing.T) {
	needProc(t)
	cfg, _ := json.Marshal(map[string]ServerConfig{
		"npx":      helperConfig(t, "launcher", nil),
		"stubborn": helperConfig(t, "stubborn", nil)})
	exe, _ := os.Executable()
	agent := exec.Command(exe)
	agent.Env = append(os.Environ(), helperEnv+"=agent", "AGENTLS_MCP_HELPER_CONFIG="+string(cfg), "GORACE=atexit_sleep_ms=0")
	out, err := agent.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := agent.Start(); err != nil {
		t.Fatal(err)
	}
	var pgids []int
	sc := bufio.NewScanner(out)
	for sc.Scan() && sc.Text() != "ready" {
		var pgid int
		if _, err := fmt.Sscanf(sc.Text(), "pgid %d", &pgid); err == nil {
			pgids = append(pgids, pgid)
		}
	}
	alive := 0
	for _, g := range pgids {
		alive += len(groupMembers(g))
	}
	if len(pgids) != 2 || alive != 3 {
		_ = agent.Process.Kill()
		_ = agent.Wait()
		t.Fatalf("before the kill: groups %v with %d live processes, want 2 groups and 3 processes", pgids, alive)
	}
	if err := agent.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = agent.Wait()
	for _, g := range pgids {
		waitGroupGone(t, g)
	}
}

// At most MaxServers servers start: the first by name (disabled ones not
// counted); the others are failed with a message saying why and never run
// their command.
func TestManagerStartsAtMostMaxServers(t *testing.T) {
	dir := t.TempDir()
	servers := map[string]ServerConfig{"aa-off": {Command: "/nonexistent", Disabled: true}}
	for i := range MaxServers + 5 {
		name := fmt.Sprintf("s%02d", i)
		// Not an MCP server: it leaves a mark that it was started, then exits.
		servers[name] = ServerConfig{Command: "sh", Args: []string{"-c", "touch " + filepath.Join(dir, name)}}
	}
	m := startManager(t, Options{ConnectTimeout: testwait.Limit, ReconnectAttempts: 1, Servers: servers})
	if err := m.WaitReady(context.Background()); err != nil {
		t.Fatal(err)
	}
	for i := range MaxServers + 5 {
		name := fmt.Sprintf("s%02d", i)
		st := statusOf(m, name)
		_, err := os.Stat(filepath.Join(dir, name))
		ran := err == nil
		if over := i >= MaxServers; over {
			if ran || st.State != StateFailed || !strings.Contains(st.Err, fmt.Sprintf("%d MCP servers are configured and agentls starts at most %d", MaxServers+5, MaxServers)) {
				t.Errorf("%s (over the limit): ran %v, state %s, error %q", name, ran, st.State, st.Err)
			}
		} else if !ran || strings.Contains(st.Err, "at most") {
			t.Errorf("%s (within the limit): ran %v, error %q", name, ran, st.Err)
		}
	}
	if st := statusOf(m, "aa-off"); st.State != StateDisabled {
		t.Errorf("disabled server: %+v", st)
	}
}
