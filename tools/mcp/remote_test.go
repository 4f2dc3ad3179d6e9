package mcp

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/agentls/agentls/tools"
	"github.com/agentls/agentls/tools/mcp/mcptest"
	mcpserver "github.com/mark3labs/mcp-go/server"
)

// TestRemoteServers runs the Go helper server behind a real HTTP listener in
// both remote transports: headers with ${VAR} expansion, tools/list_changed
// refreshes, and a server that goes away.
func TestRemoteServers(t *testing.T) {
	for _, kind := range []string{"http", "sse"} {
		t.Run(kind, func(t *testing.T) {
			srv := mcptest.NewServer(mcptest.Options{})
			var auth atomic.Value
			auth.Store("")
			ts := httptest.NewUnstartedServer(nil)
			var shutdown func(context.Context) error
			path := "/mcp"
			switch kind {
			case "http":
				h := mcpserver.NewStreamableHTTPServer(srv)
				ts.Config.Handler, shutdown = h, h.Shutdown
			case "sse":
				ts.Start()
				h := mcpserver.NewSSEServer(srv, mcpserver.WithBaseURL(ts.URL))
				ts.Config.Handler, shutdown, path = h, h.Shutdown, "/sse"
			}
			inner := ts.Config.Handler
			ts.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if a := r.Header.Get("Authorization"); a != "" {
					auth.Store(a)
				}
				inner.ServeHTTP(w, r)
			})
			if kind == "http" {
				ts.Start()
			}
			stopServer := func() {
				_ = shutdown(context.Background())
				ts.CloseClientConnections()
				ts.Close()
			}
			t.Cleanup(stopServer)

			reg := tools.NewRegistry()
			env := func(k string) string {
				if k == "HELPER_TOKEN" {
					return "s3cret"
				}
				return ""
			}
			m := startManager(t, Options{Registry: reg, Env: env, Servers: map[string]ServerConfig{
				"r": {Type: kind, URL: ts.URL + path, Headers: map[string]string{"Authorization": "Bearer ${HELPER_TOKEN}"}}}})
			waitState(t, m, "r", StateReady)
			if got := auth.Load(); got != "Bearer s3cret" {
				t.Errorf("Authorization header %q, want the expanded token", got)
			}
			if res := call(t, reg, "mcp__r__echo", `{"text":"remote"}`); res.Text != "helper: remote" {
				t.Fatalf("echo: %+v", res)
			}
			if res := call(t, reg, "mcp__r__add_tool", `{"name":"late"}`); res.Text != "added late" {
				t.Fatalf("add_tool: %+v", res)
			}
			waitFor(t, m, "late tool", func() bool { _, ok := reg.Get("mcp__r__late"); return ok })
			if st := statusOf(m, "r"); st.Refreshes < 1 {
				t.Errorf("no refresh counted: %+v", st)
			}

			// The server goes away: calls fail with a clear error, the tools
			// leave the registry, and reconnecting gives up.
			echo, _ := reg.Get("mcp__r__echo")
			stopServer()
			// The loss may be noticed by this call (HTTP) or already by the
			// broken event stream (SSE); either way the model gets an error.
			res, err := echo.Call(context.Background(), nil, []byte(`{"text":"gone?"}`))
			if err != nil || !res.IsError || !strings.Contains(res.Text, `MCP server "r" is unavailable`) {
				t.Fatalf("call to a stopped server: %+v %v", res, err)
			}
			st := waitState(t, m, "r", StateFailed)
			if !strings.Contains(st.Err, "connection refused") || len(st.Tools) != 0 {
				t.Errorf("after the server stopped: %+v", st)
			}
			if _, ok := reg.Get("mcp__r__echo"); ok {
				t.Error("tools of a failed server still in the registry")
			}
		})
	}
}
