package lspserver_test

import (
	"context"
	"encoding/json"
	"os/exec"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/internal/testwait"
	"github.com/agentls/agentls/lspserver"
	"github.com/agentls/agentls/lspserver/lsptest"
)

// badHeaders are inputs whose header cannot be framed; each must end the
// session with ExitBadInput and a log line, never a hang.
var badHeaders = []struct {
	name  string
	raw   string
	close bool // close the input after writing (EOF inside a frame)
}{
	{name: "non-numeric length", raw: "Content-Length: abc\r\n\r\n{}"},
	{name: "no colon", raw: "Content-Length 12\r\n\r\n"},
	{name: "zero length", raw: "Content-Length: 0\r\n\r\n"},
	{name: "negative length", raw: "Content-Length: -5\r\n\r\n"},
	{name: "huge length", raw: "Content-Length: 99999999999\r\n\r\n"},
	{name: "no Content-Length", raw: "Content-Type: application/json\r\n\r\n{}"},
	{name: "EOF mid-header", raw: "Content-Length: 5\r\n", close: true},
	{name: "EOF mid-body", raw: "Content-Length: 50\r\n\r\n{\"jsonrpc\"", close: true},
	{name: "header line too long", raw: strings.Repeat("x", 70000)},
}

func TestBadHeaderEndsSession(t *testing.T) {
	for _, tc := range badHeaders {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := newSession(t, lsptest.InitOptions{}, lspserver.Options{})
			ctx := lsptest.Context(t)
			// The server stops reading mid-way through long garbage: write
			// from a goroutine that the pipe's closing at cleanup releases.
			written := make(chan struct{})
			go func() { _ = s.c.WriteRaw([]byte(tc.raw)); close(written) }()
			if tc.close {
				<-written
				_ = s.c.CloseInput()
			}
			code, err := s.c.Wait(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if code != lspserver.ExitBadInput {
				t.Errorf("exit code %d, want %d", code, lspserver.ExitBadInput)
			}
			if !strings.Contains(s.logs.String(), "cannot read LSP input") || !strings.Contains(s.logs.String(), "unreadable LSP header") {
				t.Errorf("no log line for the bad header:\n%s", s.logs.String())
			}
		})
	}
}

// TestLenientFraming: LF-only headers, extra fields, any case, and blank
// padding between frames are accepted.
func TestLenientFraming(t *testing.T) {
	s := newSession(t, lsptest.InitOptions{}, lspserver.Options{})
	ctx := lsptest.Context(t)
	body := `{"jsonrpc":"2.0","id":"s1","method":"agentls/document","params":{"uri":"untitled:x"}}`
	raw := "\r\n\ncontent-length: " + itoa(len(body)) + "\nContent-Type: application/vscode-jsonrpc; charset=utf-8\n\n" + body
	if err := s.c.WriteRaw([]byte(raw)); err != nil {
		t.Fatal(err)
	}
	m, err := s.c.Await(ctx, "", func(m lsptest.Message) bool { return string(m.ID) == `"s1"` })
	if err != nil {
		t.Fatal(err)
	}
	if m.Error == nil || m.Error.Code != lsptest.CodeInvalidParams {
		t.Fatalf("got %s, want the document request answered with -32602", m)
	}
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

func TestServerInfoAndCapabilities(t *testing.T) {
	c := lsptest.NewInProcess(t, lspserver.Options{Version: "1.2.3", NoWatcher: true})
	res, err := c.Initialize(lsptest.Context(t), lsptest.InitOptions{Folders: []string{t.TempDir()}})
	if err != nil {
		t.Fatal(err)
	}
	if v, _ := res.ServerInfo.Version.Get(); res.ServerInfo.Name != "agentls" || v != "1.2.3" {
		t.Errorf("serverInfo = %+v", res.ServerInfo)
	}
	sync, ok := res.Capabilities.TextDocumentSync.(*protocol.TextDocumentSyncOptions)
	if !ok || sync.OpenClose == nil || !*sync.OpenClose || sync.Change == nil || *sync.Change != protocol.TextDocumentSyncKindIncremental {
		t.Fatalf("textDocumentSync = %#v", res.Capabilities.TextDocumentSync)
	}
	save, ok := sync.Save.(*protocol.SaveOptions)
	if !ok || save.IncludeText == nil || *save.IncludeText {
		t.Errorf("save = %#v, want includeText false", sync.Save)
	}
	if ws := res.Capabilities.Workspace; ws == nil || ws.WorkspaceFolders == nil || !*ws.WorkspaceFolders.Supported {
		t.Errorf("workspace folders not supported: %#v", res.Capabilities.Workspace)
	}
}

func TestPositionEncodingNegotiation(t *testing.T) {
	for _, tc := range []struct {
		offered []string
		want    string
	}{
		{nil, "utf-16"},
		{[]string{"utf-16"}, "utf-16"},
		{[]string{"utf-32", "utf-16"}, "utf-32"},
		{[]string{"utf-16", "utf-8"}, "utf-8"},
		{[]string{"klingon"}, "utf-16"},
	} {
		c := lsptest.NewInProcess(t, lspserver.Options{NoWatcher: true})
		res, err := c.Initialize(lsptest.Context(t), lsptest.InitOptions{PositionEncodings: tc.offered})
		if err != nil {
			t.Fatal(err)
		}
		if got := string(res.Capabilities.PositionEncoding); got != tc.want {
			t.Errorf("offered %v: got %q, want %q", tc.offered, got, tc.want)
		}
	}
}

// TestPanicRecovered: a panicking request gets -32603 and a panicking
// notification is logged; the connection keeps serving.
func TestPanicRecovered(t *testing.T) {
	logs := &logBuffer{}
	srv := lspserver.New(lspserver.Options{Logger: logs.logger(), NoWatcher: true})
	lspserver.AddTestRoute(srv, "test/panic", false, func(context.Context, json.RawMessage) (any, error) { panic("boom") })
	lspserver.AddTestRoute(srv, "test/panicNote", true, func(context.Context, json.RawMessage) (any, error) { panic("bang") })
	c := lsptest.NewInProcessServer(t, srv)
	ctx := lsptest.Context(t)
	if _, err := c.Initialize(ctx, lsptest.InitOptions{}); err != nil {
		t.Fatal(err)
	}
	wantCode(t, c.Call(ctx, "test/panic", nil, nil), lsptest.CodeInternalError, "boom")
	if err := c.Notify(ctx, "test/panicNote", nil); err != nil {
		t.Fatal(err)
	}
	wantCode(t, c.Call(ctx, "test/panic", nil, nil), lsptest.CodeInternalError, "boom")
	if err := c.Shutdown(ctx); err != nil {
		t.Fatalf("server stopped serving after panics: %v", err)
	}
	if !strings.Contains(logs.String(), "bang") {
		t.Errorf("notification panic not logged:\n%s", logs.String())
	}
}

// blockRoute adds test/block: it waits for its context to end and reports
// that on started/cancelled.
func blockRoute(srv *lspserver.Server) (started, cancelled chan struct{}) {
	started, cancelled = make(chan struct{}, 1), make(chan struct{}, 1)
	lspserver.AddTestRoute(srv, "test/block", false, func(ctx context.Context, _ json.RawMessage) (any, error) {
		started <- struct{}{}
		<-ctx.Done()
		cancelled <- struct{}{}
		return nil, protocol.ErrRequestCancelled
	})
	return started, cancelled
}

// TestSlowRequestDoesNotBlockAndCancels: a request that never finishes by
// itself does not hold up later messages, and $/cancelRequest ends it with
// RequestCancelled.
func TestSlowRequestDoesNotBlockAndCancels(t *testing.T) {
	srv := lspserver.New(lspserver.Options{NoWatcher: true})
	started, _ := blockRoute(srv)
	c := lsptest.NewInProcessServer(t, srv)
	ctx := lsptest.Context(t)
	if _, err := c.Initialize(ctx, lsptest.InitOptions{Folders: []string{t.TempDir()}}); err != nil {
		t.Fatal(err)
	}
	if err := c.WriteFrame([]byte(`{"jsonrpc":"2.0","id":"slow","method":"test/block"}`)); err != nil {
		t.Fatal(err)
	}
	testwait.Recv(t, started, "started")
	if _, err := c.Document(ctx, "untitled:none"); err == nil {
		t.Fatal("want an error for an unopened untitled document")
	} // answered while test/block is still running
	if err := c.Notify(ctx, "$/cancelRequest", map[string]any{"id": "slow"}); err != nil {
		t.Fatal(err)
	}
	m, err := c.Await(ctx, "", func(m lsptest.Message) bool { return string(m.ID) == `"slow"` })
	if err != nil {
		t.Fatal(err)
	}
	if m.Error == nil || m.Error.Code != lsptest.CodeRequestCancelled {
		t.Fatalf("got %s, want -32800", m)
	}
}

// TestInputCloseCancelsHandlers: when the editor closes the input, running
// handlers are cancelled and Serve returns.
func TestInputCloseCancelsHandlers(t *testing.T) {
	srv := lspserver.New(lspserver.Options{NoWatcher: true})
	started, cancelled := blockRoute(srv)
	c := lsptest.NewInProcessServer(t, srv)
	ctx := lsptest.Context(t)
	if _, err := c.Initialize(ctx, lsptest.InitOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := c.WriteFrame([]byte(`{"jsonrpc":"2.0","id":1000,"method":"test/block"}`)); err != nil {
		t.Fatal(err)
	}
	testwait.Recv(t, started, "started")
	if err := c.CloseInput(); err != nil {
		t.Fatal(err)
	}
	code, err := c.Wait(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if code != lspserver.ExitNoShutdown {
		t.Errorf("exit code %d, want %d", code, lspserver.ExitNoShutdown)
	}
	select {
	case <-cancelled:
	default:
		t.Fatal("Serve returned before the running handler was cancelled")
	}
}

// TestParentProcessDeath: the server exits when the process named by
// processId dies. The child is reaped after the kill: a zombie still exists.
func TestParentProcessDeath(t *testing.T) {
	child := exec.Command("sleep", "600")
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = child.Process.Kill(); _ = child.Wait() })
	pid := int32(child.Process.Pid)

	c := lsptest.NewInProcess(t, lspserver.Options{NoWatcher: true, ParentPollInterval: 20 * time.Millisecond})
	ctx := lsptest.Context(t)
	if _, err := c.Initialize(ctx, lsptest.InitOptions{ProcessID: &pid}); err != nil {
		t.Fatal(err)
	}
	// Alive: the server keeps answering (one round trip is many poll periods
	// only by chance, so assert liveness, not timing).
	if err := c.Call(ctx, lspserver.MethodDocument, map[string]string{"uri": "untitled:x"}, nil); err == nil {
		t.Fatal("want an error for an unopened untitled document")
	}
	select {
	case <-c.Done():
		t.Fatal("server exited while the editor process was alive")
	default:
	}
	if err := child.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = child.Wait()
	code, err := c.Wait(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if code != lspserver.ExitNoShutdown {
		t.Errorf("exit code %d, want %d", code, lspserver.ExitNoShutdown)
	}
}

// TestConcurrentRepliesDoNotInterleave: error replies to bad frames (written
// by the reader) and responses of released requests (written by handler
// goroutines) share the output; every frame must arrive whole. The client's
// strict frame reader fails on any interleaving.
func TestConcurrentRepliesDoNotInterleave(t *testing.T) {
	s := newSession(t, lsptest.InitOptions{}, lspserver.Options{})
	ctx := lsptest.Context(t)
	s.write(t, "big.txt", strings.Repeat("日本語 😀 text\n", 1000)) // large responses
	const n = 100
	errs := make(chan error, n)
	for range n {
		go func() {
			_, err := s.c.Document(ctx, s.uri("big.txt"))
			errs <- err
		}()
	}
	for range n {
		if err := s.c.WriteFrame([]byte("not json")); err != nil {
			t.Fatal(err)
		}
	}
	for range n {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	for range n {
		m, err := s.c.Await(ctx, "", func(m lsptest.Message) bool { return m.IsResponse() && string(m.ID) == "null" })
		if err != nil {
			t.Fatal(err)
		}
		if m.Error == nil || m.Error.Code != lsptest.CodeParseError {
			t.Fatalf("got %s", m)
		}
	}
}

// TestPipelinedLifecycleAnswered: a client that writes initialize,
// initialized, shutdown and exit at once (a script, a test) gets both
// answers, initialize's first. The ordered requests are answered before
// the next message is read; released after their work instead, their
// answers raced the later messages, and exit could end the session before
// initialize's answer was written (9 of 300 CLI runs lost it). Each round
// is a fresh server; the race needed many rounds to show.
func TestPipelinedLifecycleAnswered(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	var in strings.Builder
	for _, m := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"processId":null,"rootUri":null,"capabilities":{}}}`,
		`{"jsonrpc":"2.0","method":"initialized","params":{}}`,
		`{"jsonrpc":"2.0","id":2,"method":"shutdown"}`,
		`{"jsonrpc":"2.0","method":"exit"}`,
	} {
		in.WriteString("Content-Length: " + itoa(len(m)) + "\r\n\r\n" + m)
	}
	for round := range 200 {
		var out testwait.Buffer
		code := lspserver.Serve(lsptest.Context(t), strings.NewReader(in.String()), &out, lspserver.Options{NoWatcher: true})
		var ids []string
		for _, frame := range strings.Split(out.String(), "Content-Length: ")[1:] {
			_, body, _ := strings.Cut(frame, "\r\n\r\n")
			var m struct {
				ID     json.RawMessage `json:"id"`
				Result json.RawMessage `json:"result"`
			}
			if err := json.Unmarshal([]byte(body), &m); err != nil {
				t.Fatalf("round %d: frame %q: %v", round, frame, err)
			}
			if string(m.ID) == "1" && !strings.Contains(string(m.Result), `"serverInfo"`) {
				t.Fatalf("round %d: initialize answered %s", round, body)
			}
			ids = append(ids, string(m.ID))
		}
		if code != lspserver.ExitOK || strings.Join(ids, ",") != "1,2" {
			t.Fatalf("round %d: exit %d, answers to ids %v, want 1 then 2:\n%s", round, code, ids, out.String())
		}
	}
}
