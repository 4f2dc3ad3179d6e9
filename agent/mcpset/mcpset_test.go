package mcpset

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"syscall"
	"testing"
	"time"

	mcpserver "github.com/mark3labs/mcp-go/server"

	"github.com/agentls/agentls/internal/testwait"
	"github.com/agentls/agentls/tools/mcp"
	"github.com/agentls/agentls/tools/mcp/mcptest"
)

// The test binary doubles as a stdio MCP server (the mcptest one): run with
// helperEnv set it serves instead of testing.
const helperEnv = "AGENTLS_MCPSET_HELPER"

func TestMain(m *testing.M) {
	if os.Getenv(helperEnv) != "" {
		s := mcptest.NewServer(mcptest.Options{})
		ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM)
		defer stop()
		if err := mcpserver.NewStdioServer(s).Listen(ctx, os.Stdin, os.Stdout); err != nil && ctx.Err() == nil && err != io.EOF {
			fmt.Fprintln(os.Stderr, "helper:", err)
		}
		os.Exit(0)
	}
	testwait.VerifyTestMain(m)
}

// helper is a stdio server running this binary, marked with tag in its
// environment so the test can see whether it still runs.
func helper(t *testing.T, tag string) mcp.ServerConfig {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	// Race-enabled binaries sleep 1 s at exit by default.
	return mcp.ServerConfig{Command: exe, Env: map[string]string{helperEnv: "1", "MCPSET_TAG": tag, "GORACE": "atexit_sleep_ms=0"}}
}

func running(tag string) bool { return len(testwait.WithEnv("MCPSET_TAG="+tag)) > 0 }

func TestSetRestartsOnlyOnChange(t *testing.T) {
	tag := fmt.Sprintf("%d-%s", os.Getpid(), t.Name())
	ctx := t.Context()
	events := make(chan string, 16)
	s := New(ctx, Options{OnState: func(st mcp.ServerStatus) {
		events <- fmt.Sprintf("%s %s %v", st.Name, st.State, slices.Contains(st.Tools, "mcp__"+st.Name+"__echo"))
	}})
	defer s.Close()
	mo := mcp.Options{ReconnectAttempts: 1}
	wait := 30 * time.Second

	first := map[string]mcp.ServerConfig{"a": helper(t, tag+"-1")}
	before := mcp.SetKey(first)
	m1 := s.Ensure(ctx, first, mo, wait)
	if m1 == nil || s.Current() != m1 {
		t.Fatalf("Ensure = %v, Current = %v; want the running manager", m1, s.Current())
	}
	if st := m1.Status(); len(st) != 1 || st[0].State != mcp.StateReady {
		t.Fatalf("after Ensure: %+v; want a ready (Ensure waits)", st)
	}
	if got := testwait.Recv(t, events, "state of a"); got != "a ready true" {
		t.Fatalf("state = %q, want a ready with its tools", got)
	}

	// The same set, in another map: the servers keep running.
	if m := s.Ensure(ctx, map[string]mcp.ServerConfig{"a": helper(t, tag+"-1")}, mo, wait); m != m1 {
		t.Fatal("the same set restarted its servers")
	}
	// The caller's map is neither changed nor kept.
	if mcp.SetKey(first) != before || len(first) != 1 {
		t.Fatalf("the caller's map changed: %s", mcp.SetKey(first))
	}
	first["x"] = helper(t, tag+"-x")
	if st := m1.Status(); len(st) != 1 {
		t.Fatalf("a later change of the caller's map reached the running set: %+v", st)
	}

	// A changed set: the old servers stop (their processes are gone when
	// Ensure returns) and the new ones start.
	second := map[string]mcp.ServerConfig{"b": helper(t, tag+"-2"), "c": {Command: "/nonexistent/mcp-server"}}
	m2 := s.Ensure(ctx, second, mo, wait)
	if m2 == nil || m2 == m1 {
		t.Fatal("a changed set did not start a new manager")
	}
	if running(tag + "-1") {
		t.Fatal("the old set's server still runs")
	}
	if len(m1.Registry().List()) != 0 {
		t.Fatalf("the old set still offers tools: %d", len(m1.Registry().List()))
	}
	if !running(tag + "-2") {
		t.Fatal("the new set's server does not run")
	}
	got := []string{testwait.Recv(t, events, "state"), testwait.Recv(t, events, "state")}
	slices.Sort(got)
	if want := []string{"b ready true", "c failed false"}; !slices.Equal(got, want) {
		t.Fatalf("states = %q, want %q", got, want)
	}

	// An empty set stops everything.
	if m := s.Ensure(ctx, nil, mo, wait); m != nil || s.Current() != nil {
		t.Fatalf("an empty set left a manager: %v", m)
	}
	if running(tag + "-2") {
		t.Fatal("the server still runs after an empty set")
	}

	// After Close, nothing starts.
	s.Close()
	if m, _ := s.Switch(map[string]mcp.ServerConfig{"a": helper(t, tag+"-3")}, mo); m != nil || running(tag+"-3") {
		t.Fatal("a closed set started servers")
	}
	// Each change was reported once: nothing is left over.
	select {
	case e := <-events:
		t.Fatalf("state reported again: %q", e)
	default:
	}
}

// Reconnecting to the same state is no news; a changed tool list is.
func TestSetReportsChangesOnly(t *testing.T) {
	tag := fmt.Sprintf("%d-%s", os.Getpid(), t.Name())
	ctx := t.Context()
	events := make(chan mcp.ServerStatus, 16)
	s := New(ctx, Options{OnState: func(st mcp.ServerStatus) { events <- st }})
	defer s.Close()
	var waited [][]string
	m, stopped := s.Switch(map[string]mcp.ServerConfig{"a": helper(t, tag)}, mcp.Options{})
	if m == nil || stopped {
		t.Fatalf("Switch = %v, %v; want a new manager, nothing stopped", m, stopped)
	}
	if !s.Wait(ctx, 30*time.Second, func(names []string) { waited = append(waited, names) }) {
		t.Fatal("still connecting")
	}
	if len(waited) > 1 || (len(waited) == 1 && !slices.Equal(waited[0], []string{"a"})) {
		t.Fatalf("waiting reports = %q, want at most [a]", waited)
	}
	st := testwait.Recv(t, events, "ready")
	n := len(st.Tools)
	add, ok := m.Tool("a", "add_tool")
	if !ok {
		t.Fatal("no add_tool")
	}
	if res, err := add.Call(ctx, nil, []byte(`{"name":"extra"}`)); err != nil || res.IsError {
		t.Fatalf("add_tool: %v %+v", err, res)
	}
	st = testwait.Recv(t, events, "the new tool count")
	if st.State != mcp.StateReady || len(st.Tools) != n+1 {
		t.Fatalf("after add_tool: %+v, want ready with %d tools", st, n+1)
	}
	s.Close()
	select {
	case e := <-events:
		t.Fatalf("state reported again: %+v", e)
	default:
	}
}

// A set announced (Expect) holds Wait until it is applied.
func TestSetWaitsForAnnouncedSet(t *testing.T) {
	s := New(t.Context(), Options{})
	defer s.Close()
	gen := s.Expect()
	var told [][]string
	if s.Wait(t.Context(), 0, func(names []string) { told = append(told, names) }) {
		t.Fatal("Wait settled while a set was on its way")
	}
	if len(told) != 1 || told[0] != nil {
		t.Fatalf("waiting told %q, want once, no server names (the set itself is awaited)", told)
	}
	done := make(chan bool)
	go func() { done <- s.Wait(t.Context(), time.Minute, nil) }()
	s.Applied(gen)
	if !testwait.Recv(t, done, "Wait after Applied") {
		t.Fatal("Wait did not settle once the announced set was applied")
	}
}

// TestAwaitForRun: no bound, no wait; a run held back is told what it
// waits for in words, and goes on once the announced set is applied.
func TestAwaitForRun(t *testing.T) {
	s := New(t.Context(), Options{})
	defer s.Close()
	gen := s.Expect()
	var told []string
	if !s.AwaitForRun(t.Context(), 0, func(m string) { told = append(told, m) }) || told != nil {
		t.Fatalf("a zero bound waited (told %q)", told)
	}
	done := make(chan bool)
	reported := make(chan string, 4)
	go func() { done <- s.AwaitForRun(t.Context(), time.Minute, func(m string) { reported <- m }) }()
	if m := testwait.Recv(t, reported, "the wait's report"); m != "waiting for the MCP configuration" {
		t.Fatalf("reported %q", m)
	}
	s.Applied(gen)
	if !testwait.Recv(t, done, "AwaitForRun after Applied") {
		t.Fatal("the run was held back after the set was applied")
	}
	if got := Waiting([]string{"a"}); got != "waiting for MCP server a to start" {
		t.Errorf("Waiting(a) = %q", got)
	}
	if got := Waiting([]string{"a", "b"}); got != "waiting for MCP servers a, b to start" {
		t.Errorf("Waiting(a, b) = %q", got)
	}
}
