package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agentls/agentls/internal/testwait"
	"github.com/agentls/agentls/tools"
	"github.com/agentls/agentls/tools/mcp/mcptest"
)

// startNodeServer runs an npm MCP server in an HTTP mode on a free port and
// returns the port once the server says it is listening.
func startNodeServer(t *testing.T, entry, mode, readyLine string) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	_ = l.Close()
	t.Cleanup(startNodeServerOn(t, entry, mode, readyLine, port))
	return port
}

// startNodeServerOn runs an npm MCP server on port and returns once it is
// listening; the returned func stops it (and waits for it).
func startNodeServerOn(t *testing.T, entry, mode, readyLine string, port int) (stop func()) {
	t.Helper()
	return mcptest.StartNodeServer(t, entry, mode, readyLine, port)
}

func TestEverythingServer(t *testing.T) {
	entry := npmPackage(t, "server-everything")
	cases := []struct {
		name string
		cfg  func(t *testing.T) ServerConfig
	}{
		{"stdio", func(t *testing.T) ServerConfig {
			t.Setenv("OPENAI_API_KEY", "sk-must-not-leak")
			t.Setenv("EXTRA_SOURCE", "passed-explicitly")
			return ServerConfig{Command: "node", Args: []string{entry, "stdio"}, Env: map[string]string{"EXTRA": "${EXTRA_SOURCE}"}}
		}},
		{"streamable-http", func(t *testing.T) ServerConfig {
			port := startNodeServer(t, entry, "streamableHttp", "listening on port")
			return ServerConfig{Type: "http", URL: fmt.Sprintf("http://127.0.0.1:%d/mcp", port)}
		}},
		{"sse", func(t *testing.T) ServerConfig {
			port := startNodeServer(t, entry, "sse", "running on port")
			return ServerConfig{Type: "sse", URL: fmt.Sprintf("http://127.0.0.1:%d/sse", port)}
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) { testEverything(t, tc.cfg(t)) })
	}
}

func testEverything(t *testing.T, cfg ServerConfig) {
	root := t.TempDir()
	progress := make(chan Progress, 256)
	reg := tools.NewRegistry()
	m := startManager(t, Options{Registry: reg, Roots: []string{root},
		Servers:    map[string]ServerConfig{"everything": cfg},
		OnProgress: func(p Progress) { progress <- p }})
	st := waitState(t, m, "everything", StateReady)
	for _, want := range []string{"mcp__everything__echo", "mcp__everything__get-sum", "mcp__everything__get-tiny-image",
		"mcp__everything__trigger-long-running-operation"} {
		if !slices.Contains(st.Tools, want) {
			t.Fatalf("tool %s missing from %v", want, st.Tools)
		}
	}

	if res := call(t, reg, "mcp__everything__echo", `{"message":"héllo"}`); res.IsError || res.Text != "Echo: héllo" {
		t.Errorf("echo: %+v", res)
	}
	if res := call(t, reg, "mcp__everything__get-sum", `{"a":2,"b":40}`); res.IsError || !strings.Contains(res.Text, "42") {
		t.Errorf("get-sum: %+v", res)
	}
	if res := call(t, reg, "mcp__everything__get-tiny-image", `{}`); res.IsError || !strings.Contains(res.Text, "[image: image/png, ") {
		t.Errorf("get-tiny-image: %+v", res)
	}
	if cfg.Command != "" {
		// The child sees the allowlist and its configured env, not our secrets.
		res := call(t, reg, "mcp__everything__get-env", `{}`)
		if strings.Contains(res.Text, "sk-must-not-leak") || !strings.Contains(res.Text, "passed-explicitly") || !strings.Contains(res.Text, `"PATH"`) {
			t.Errorf("child environment: %s", res.Text)
		}
	}
	if res := call(t, reg, "mcp__everything__echo", `{"message":42}`); !res.IsError {
		t.Errorf("invalid arguments not reported as a tool error: %+v", res)
	}

	// Progress: one notification per step, routed to the calling tool.
	res := call(t, reg, "mcp__everything__trigger-long-running-operation", `{"duration":0.3,"steps":3}`)
	if res.IsError || !strings.Contains(res.Text, "Long running operation completed") {
		t.Errorf("long-running: %+v", res)
	}
	for i := 1; i <= 3; i++ {
		p := testwait.Recv(t, progress, "progress")
		if p.Tool != "mcp__everything__trigger-long-running-operation" || p.Server != "everything" || p.Progress != float64(i) || p.Total != 3 {
			t.Errorf("progress %d: %+v", i, p)
		}
	}

	// Cancellation mid-call: cancel after the first progress step of a
	// 60-step minute; the call must end with the context's error.
	tool, _ := reg.Get("mcp__everything__trigger-long-running-operation")
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := tool.Call(ctx, nil, json.RawMessage(`{"duration":60,"steps":60}`))
		done <- err
	}()
	testwait.Recv(t, progress, "progress")
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled call returned %v", err)
	}
	if res := call(t, reg, "mcp__everything__echo", `{"message":"after cancel"}`); res.Text != "Echo: after cancel" {
		t.Errorf("server unusable after a cancel: %+v", res)
	}

	if cfg.Type == "sse" {
		// No roots over SSE (see dial), so the server has no roots tool.
		if slices.Contains(statusOf(m, "everything").Tools, "mcp__everything__get-roots-list") {
			t.Error("get-roots-list registered although SSE advertises no roots")
		}
		return
	}
	// The server registers get-roots-list after initialization, because we
	// advertise roots, and announces it with tools/list_changed.
	waitFor(t, m, "get-roots-list", func() bool {
		st := statusOf(m, "everything")
		return slices.Contains(st.Tools, "mcp__everything__get-roots-list")
	})
	res = call(t, reg, "mcp__everything__get-roots-list", `{}`)
	rootURI := "file://" + filepath.ToSlash(root)
	if !strings.Contains(res.Text, rootURI) {
		t.Errorf("roots not advertised: want %s in %q", rootURI, res.Text)
	}
	if cfg.Type == "" {
		// Over streamable HTTP the notification is sent before the listening
		// stream exists; TestRemoteListChanged covers remote refreshes.
		waitFor(t, m, "tools/list_changed refresh", func() bool { return statusOf(m, "everything").Refreshes >= 1 })
	}
}
