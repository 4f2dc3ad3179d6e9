package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentls/agentls/tools/mcp/mcptest"
	mcpserver "github.com/mark3labs/mcp-go/server"
)

// methodSpy serves h and reports the JSON-RPC method of every POSTed
// message on a channel.
type methodSpy struct {
	h       http.Handler
	methods chan string
}

func newMethodSpy(h http.Handler) *methodSpy {
	return &methodSpy{h: h, methods: make(chan string, 1024)}
}

func (s *methodSpy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodPost {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		var msg struct {
			Method string `json:"method"`
		}
		if json.Unmarshal(body, &msg) == nil && msg.Method != "" {
			select {
			case s.methods <- msg.Method:
			default:
			}
		}
	}
	s.h.ServeHTTP(w, r)
}

// await waits (bounded) for a POST of method.
func (s *methodSpy) await(t *testing.T, method string) {
	t.Helper()
	timeout := time.After(20 * time.Second)
	for {
		select {
		case m := <-s.methods:
			if m == method {
				return
			}
		case <-timeout:
			t.Fatalf("the server never received %s", method)
		}
	}
}

// serveOn serves h on l until the returned stop is called.
func serveOn(l net.Listener, h http.Handler) (stop func()) {
	srv := &http.Server{Handler: h}
	done := make(chan struct{})
	go func() { _ = srv.Serve(l); close(done) }()
	var once sync.Once
	return func() {
		once.Do(func() {
			ctx, cancel := context.WithTimeout(context.Background(), time.Second)
			defer cancel()
			_ = srv.Shutdown(ctx)
			_ = srv.Close()
			<-done
		})
	}
}

func startSpyServer(t *testing.T, opts mcptest.Options, extra func(*mcpserver.MCPServer)) (*methodSpy, string) {
	t.Helper()
	srv := mcptest.NewServer(opts)
	if extra != nil {
		extra(srv)
	}
	spy := newMethodSpy(mcpserver.NewStreamableHTTPServer(srv))
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(serveOn(l, spy))
	return spy, "http://" + l.Addr().String() + "/mcp"
}

// TestHTTPCancellationReachesServer: a call cancelled over streamable HTTP
// sends notifications/cancelled (mcp-go sends it only over stdio), and the
// server's handler is cancelled.
func TestHTTPCancellationReachesServer(t *testing.T) {
	lines := newLineWaiter()
	spy, url := startSpyServer(t, mcptest.Options{Log: lines}, nil)
	m := startManager(t, Options{Servers: map[string]ServerConfig{"h": {Type: "http", URL: url}}})
	waitState(t, m, "h", StateReady)
	tool, _ := m.Registry().Get("mcp__h__wait")
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
	spy.await(t, "notifications/cancelled")
	lines.waitFor(t, "helper: wait cancelled")
}

// TestHTTPSessionRestart: the real server-everything (streamable HTTP)
// restarts on the same port and forgets the session; the client notices on
// its own (the listening stream's 404), initializes a new session, lists
// the tools again, and calls work.
func TestHTTPSessionRestart(t *testing.T) {
	entry := npmPackage(t, "server-everything")
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	_ = l.Close()
	stop1 := startNodeServerOn(t, entry, "streamableHttp", "listening on port", port)
	t.Cleanup(stop1)
	lines := newLineWaiter()
	m := startManager(t, Options{Logger: testLogger(t, lines), ReconnectDelay: time.Second,
		Servers: map[string]ServerConfig{"e": {Type: "http", URL: fmt.Sprintf("http://127.0.0.1:%d/mcp", port)}}})
	waitState(t, m, "e", StateReady)
	lines.waitFor(t, "mcp server ready")

	stop1()
	t.Cleanup(startNodeServerOn(t, entry, "streamableHttp", "listening on port", port))
	lines.waitFor(t, "mcp server ready") // a new session, tools listed again
	waitState(t, m, "e", StateReady)
	if res := call(t, m.Registry(), "mcp__e__echo", `{"message":"again"}`); !strings.Contains(res.Text, "Echo: again") {
		t.Fatalf("call after the restart: %+v", res)
	}
}

// TestHTTPServerVanishes: a streamable HTTP server that goes away while
// idle is a lost connection, noticed without a call, with a clear reason.
func TestHTTPServerVanishes(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	stop := serveOn(l, mcpserver.NewStreamableHTTPServer(mcptest.NewServer(mcptest.Options{})))
	t.Cleanup(stop)
	m := startManager(t, Options{Servers: map[string]ServerConfig{"h": {Type: "http", URL: "http://" + l.Addr().String() + "/mcp"}}})
	waitState(t, m, "h", StateReady)
	stop()
	st := waitState(t, m, "h", StateFailed)
	if !strings.Contains(st.Err, "connection refused") || strings.Contains(st.Err, "unexpected nil response") {
		t.Errorf("reason %q", st.Err)
	}
}

// TestServerRequests: sampling (unsupported) is answered with -32601;
// elicitation is advertised and answered through Options.Elicit, with the
// schema's defaults applied, and declined without it.
func TestServerRequests(t *testing.T) {
	_, url := startSpyServer(t, mcptest.Options{}, mcptest.AddClientRequestTools)
	var got Elicitation
	m := startManager(t, Options{Servers: map[string]ServerConfig{"h": {Type: "http", URL: url}},
		Elicit: func(ctx context.Context, e Elicitation) (ElicitResult, error) {
			got = e
			return ElicitResult{Action: ElicitAccept, Content: map[string]any{"color": "green"}}, nil
		}})
	waitState(t, m, "h", StateReady)
	if res := call(t, m.Registry(), "mcp__h__sample", `{}`); !strings.Contains(res.Text, "-32601") && !strings.Contains(res.Text, "method not found") {
		t.Errorf("sampling answered with %q, want method not found", res.Text)
	}
	res := call(t, m.Registry(), "mcp__h__ask", `{"message":"Pick a color"}`)
	if res.Text != `accept {"color":"green","name":"anon"}` {
		t.Errorf("elicitation result %q", res.Text)
	}
	if got.Message != "Pick a color" || got.Server != "h" || got.Mode != "form" || !strings.Contains(string(got.Schema), `"enum"`) {
		t.Errorf("elicitation seen as %+v", got)
	}

	m2 := startManager(t, Options{Servers: map[string]ServerConfig{"h": {Type: "http", URL: url}}})
	waitState(t, m2, "h", StateReady)
	if res := call(t, m2.Registry(), "mcp__h__ask", `{}`); res.Text != "decline null" {
		t.Errorf("without Elicit: %q", res.Text)
	}
}

// TestMCPGoLogsAtDebug: mcp-go's own log records reach our logger at debug
// level only, so an Info logger (agentls without -v) shows none of them.
func TestMCPGoLogsAtDebug(t *testing.T) {
	var buf bytes.Buffer
	info := slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelInfo}))
	slog.New(debugOnly{info.Handler()}).Error("failed to listen to server", "err", "boom")
	if buf.Len() != 0 {
		t.Errorf("at info level: %s", buf.String())
	}
	buf.Reset()
	dbg := slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug}))
	slog.New(debugOnly{dbg.Handler()}).With("k", 1).Error("failed")
	if !strings.Contains(buf.String(), "level=DEBUG") || !strings.Contains(buf.String(), "k=1") {
		t.Errorf("at debug level: %s", buf.String())
	}
}
