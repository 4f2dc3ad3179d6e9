package lspserver_test

import (
	"bytes"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"go.lsp.dev/uri"

	"github.com/agentls/agentls/internal/testwait"
	"github.com/agentls/agentls/lspserver"
	"github.com/agentls/agentls/lspserver/lsptest"
)

func TestMain(m *testing.M) {
	code := lsptest.RunMain(m)
	if code == 0 {
		if err := testwait.Leaks(); err != nil {
			fmt.Fprintln(os.Stderr, "goroutine leak:", err)
			code = 1
		}
	}
	os.Exit(code)
}

// logBuffer collects a server's logs so tests can assert on them.
type logBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func (l *logBuffer) logger() *slog.Logger {
	return slog.New(slog.NewTextHandler(l, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

// session is an initialized in-process server on a fresh workspace folder.
type session struct {
	c    *lsptest.Client
	srv  *lspserver.Server
	root string
	logs *logBuffer
}

// newSession starts an in-process server and initializes it with init
// (its Folders default to one fresh temporary directory).
func newSession(t *testing.T, init lsptest.InitOptions, opts lspserver.Options) *session {
	t.Helper()
	logs := &logBuffer{}
	if opts.Logger == nil {
		opts.Logger = logs.logger()
	}
	opts.NoWatcher = true
	root := t.TempDir()
	if init.Folders == nil {
		init.Folders = []string{root}
	}
	srv := lspserver.New(opts)
	c := lsptest.NewInProcessServer(t, srv)
	if _, err := c.Initialize(lsptest.Context(t), init); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("server logs:\n%s", logs.String())
		}
	})
	return &session{c: c, srv: srv, root: root, logs: logs}
}

func (s *session) uri(name string) uri.URI { return uri.File(filepath.Join(s.root, name)) }

func (s *session) write(t *testing.T, name, content string) string {
	t.Helper()
	p := filepath.Join(s.root, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// wantCode asserts err is a JSON-RPC error with code, whose message
// contains fragment.
func wantCode(t *testing.T, err error, code int64, fragment string) {
	t.Helper()
	e, ok := err.(*lsptest.Error)
	if !ok {
		t.Fatalf("got %v (%T), want JSON-RPC error %d", err, err, code)
	}
	if e.Code != code || !strings.Contains(e.Message, fragment) {
		t.Fatalf("got error %d %q, want %d containing %q", e.Code, e.Message, code, fragment)
	}
}
