package lspserver_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/agentls/agentls/internal/workspace"
	"github.com/agentls/agentls/lspserver"
	"github.com/agentls/agentls/lspserver/lsptest"
)

// awaitDiskEvent rewrites path until the view reports a disk event for it:
// the watcher starts in the background, so the first writes may come before
// its watches are in place. Each wait is a retry period, not an assertion;
// the test's context bounds the whole.
func awaitDiskEvent(t *testing.T, view *workspace.View, path string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(lsptest.Context(t), 30*time.Second) // hang guard
	defer cancel()
	seen := make(chan struct{}, 1)
	defer view.Subscribe(func(e workspace.Event) {
		if e.Path == path && !e.Buffer {
			select {
			case seen <- struct{}{}:
			default:
			}
		}
	})()
	for i := 0; ; i++ {
		if err := os.WriteFile(path, []byte(fmt.Sprintf("version %d\n", i)), 0o644); err != nil {
			t.Fatal(err)
		}
		select {
		case <-seen:
			return
		case <-ctx.Done():
			t.Fatalf("the watcher never reported %s", path)
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// TestWatcherFollowsFolders: with the fsnotify watcher on, disk changes in
// the workspace reach the view without any LSP message, including in a
// folder added later by didChangeWorkspaceFolders.
func TestWatcherFollowsFolders(t *testing.T) {
	a, b := t.TempDir(), t.TempDir()
	srv := lspserver.New(lspserver.Options{})
	c := lsptest.NewInProcessServer(t, srv)
	ctx := lsptest.Context(t)
	if _, err := c.Initialize(ctx, lsptest.InitOptions{Folders: []string{a}}); err != nil {
		t.Fatal(err)
	}
	realA, _ := filepath.EvalSymlinks(a)
	awaitDiskEvent(t, srv.View(), filepath.Join(realA, "a.txt"))

	err := c.Notify(ctx, protocol.MethodWorkspaceDidChangeWorkspaceFolders, &protocol.DidChangeWorkspaceFoldersParams{
		Event: protocol.WorkspaceFoldersChangeEvent{Added: []protocol.WorkspaceFolder{{URI: uri.File(b), Name: "b"}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	realB, _ := filepath.EvalSymlinks(b)
	awaitDiskEvent(t, srv.View(), filepath.Join(realB, "sub.txt"))
	if err := c.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
}
