package watch

import (
	"context"
	"fmt"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentls/agentls/internal/testwait"
	"github.com/agentls/agentls/internal/workspace"
)

// Folders watches the folders added before and after Run starts, drops a
// removed one, and closes its watcher when Run's context ends (the leak
// check in TestMain fails otherwise).
func TestFoldersFollowTheView(t *testing.T) {
	dirA, _ := filepath.EvalSymlinks(t.TempDir())
	dirB, _ := filepath.EvalSymlinks(t.TempDir())
	view := workspace.New(workspace.Options{Folders: []string{dirA}})
	evs := make(chan workspace.Event, 256)
	t.Cleanup(view.Subscribe(func(ev workspace.Event) {
		select {
		case evs <- ev:
		default:
		}
	}))
	waitFor := func(path string) {
		t.Helper()
		timeout := time.After(eventWait)
		for {
			select {
			case ev := <-evs:
				if ev.Path == path && ev.Kind == workspace.Created {
					return
				}
			case <-timeout:
				t.Fatalf("no Created event for %s", path)
			}
		}
	}
	var logs testwait.Buffer
	fs := NewFolders(view, slog.New(slog.NewTextHandler(&logs, nil)), WithDebounce(5*time.Millisecond))
	fs.Add(dirA) // queued before Run: applied when it starts
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { fs.Run(ctx); close(done) }()
	defer func() {
		cancel()
		<-done
	}()

	for deadline := time.Now().Add(eventWait); !strings.Contains(logs.String(), "file watcher ready"); {
		if time.Now().After(deadline) {
			t.Fatalf("no ready line:\n%s", logs.String())
		}
		time.Sleep(time.Millisecond)
	}
	write(t, filepath.Join(dirA, "a.txt"), "a")
	waitFor(filepath.Join(dirA, "a.txt"))

	view.SetFolders([]string{dirA, dirB})
	fs.Add(dirB)
	// Add returns before the folder is watched: write until a file in it
	// is seen.
	seen := false
	for i, deadline := 0, time.Now().Add(eventWait); !seen; i++ {
		if time.Now().After(deadline) {
			t.Fatal("no event from the folder added while running")
		}
		write(t, filepath.Join(dirB, fmt.Sprintf("b%d.txt", i)), "b")
		probe := time.After(50 * time.Millisecond)
	wait:
		for {
			select {
			case ev := <-evs:
				if strings.HasPrefix(ev.Path, dirB+string(filepath.Separator)) {
					seen = true
					break wait
				}
			case <-probe:
				break wait
			}
		}
	}

	view.SetFolders([]string{dirB})
	fs.Remove(dirA)
	// Remove returns before the watches are dropped: wait for that, then
	// nothing written in the folder may be seen.
	sctx, stopSync := context.WithTimeout(context.Background(), eventWait)
	defer stopSync()
	if err := fs.Sync(sctx); err != nil {
		t.Fatalf("the removal was not applied: %v", err)
	}
	write(t, filepath.Join(dirA, "gone.txt"), "x")
	write(t, filepath.Join(dirB, "sentinel.txt"), "s")
	timeout := time.After(eventWait)
	for sentinel := filepath.Join(dirB, "sentinel.txt"); ; {
		select {
		case ev := <-evs:
			if strings.HasPrefix(ev.Path, dirA) {
				t.Fatalf("event from a removed folder: %+v", ev)
			}
			if ev.Path != sentinel {
				continue
			}
		case <-timeout:
			t.Fatal("no event for the sentinel")
		}
		break
	}
	if n := strings.Count(logs.String(), "file watcher ready"); n != 1 {
		t.Fatalf("watcher created %d times, want once:\n%s", n, logs.String())
	}
}

// Removing before any folder was added does not create a watcher, and Run
// ends with its context.
func TestFoldersRemoveFirstWatchesNothing(t *testing.T) {
	view := workspace.New(workspace.Options{})
	var logs testwait.Buffer
	fs := NewFolders(view, slog.New(slog.NewTextHandler(&logs, nil)))
	fs.Remove("/nowhere")
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { fs.Run(ctx); close(done) }()
	fs.Remove("/elsewhere")
	cancel()
	<-done
	if logs.String() != "" {
		t.Fatalf("a watcher was made without a folder:\n%s", logs.String())
	}
}
