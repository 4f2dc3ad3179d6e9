package watch

import (
	"log/slog"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/agentls/agentls/internal/workspace"
)

// takeQueue empties the queue Run would apply, for tests that check what
// Set and Change asked of the watcher without running it.
func (f *Folders) takeQueue() []folderOp {
	f.mu.Lock()
	defer f.mu.Unlock()
	q := f.queue
	f.queue = nil
	return q
}

// Set and Change keep the editor's list, confine the view at once and
// queue only the difference for the watcher.
func TestFoldersSetAndChangeQueueTheDifference(t *testing.T) {
	a, _ := filepath.EvalSymlinks(t.TempDir())
	b, _ := filepath.EvalSymlinks(t.TempDir())
	c, _ := filepath.EvalSymlinks(t.TempDir())
	view := workspace.New(workspace.Options{})
	fs := NewFolders(view, slog.New(slog.DiscardHandler))

	fs.Set([]string{a, b})
	if got := view.Folders(); !reflect.DeepEqual(got, []string{a, b}) {
		t.Fatalf("view folders after Set = %v", got)
	}
	if got, want := fs.takeQueue(), []folderOp{{dir: a, add: true}, {dir: b, add: true}}; !reflect.DeepEqual(got, want) {
		t.Fatalf("queue after Set = %+v, want %+v", got, want)
	}
	fs.Set([]string{a, b}) // the same list: nothing to watch anew
	if got := fs.takeQueue(); len(got) != 0 {
		t.Fatalf("queue after the same Set = %+v", got)
	}

	got := fs.Change([]string{a}, []string{c, b, c})
	if want := []string{b, c}; !reflect.DeepEqual(got, want) || !reflect.DeepEqual(fs.List(), want) || !reflect.DeepEqual(view.Folders(), want) {
		t.Fatalf("after Change: returned %v, List %v, view %v; want %v", got, fs.List(), view.Folders(), want)
	}
	if got, want := fs.takeQueue(), []folderOp{{dir: a}, {dir: c, add: true}}; !reflect.DeepEqual(got, want) {
		t.Fatalf("queue after Change = %+v, want %+v", got, want)
	}
	l := fs.List()
	l[0] = "mutated"
	if fs.List()[0] != b {
		t.Fatal("List handed out the list itself")
	}
}

func TestAppendFoldersKeepsEachOnceInOrder(t *testing.T) {
	got := AppendFolders([]string{"/a"}, "/b", "/a", "/c", "/b")
	if want := []string{"/a", "/b", "/c"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("AppendFolders = %v, want %v", got, want)
	}
}
