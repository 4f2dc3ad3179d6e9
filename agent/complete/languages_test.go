package complete

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/agentls/agentls/internal/workspace"
	"github.com/agentls/agentls/tools/lang"
)

// Languages asks nothing without a manager or when no server serves the
// workspace, keeps the run it made for its manager, and drops it when the
// configuration brings another manager.
func TestLanguagesKeepsOneRunPerManager(t *testing.T) {
	root, _ := filepath.EvalSymlinks(t.TempDir())
	src := filepath.Join(root, "a.go")
	if err := os.WriteFile(src, []byte("package a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	view := workspace.New(workspace.Options{Folders: []string{root}})
	l := NewLanguages(view)
	ctx := context.Background()

	if got, err := l.Declarations(ctx, src, "package a\n", []int{0}); got != nil || err != nil {
		t.Fatalf("no manager: %v, %v", got, err)
	}

	unserved := lang.NewManager(lang.Options{Servers: []lang.ServerConfig{{Name: "zz", Command: []string{"zz-ls"}, Extensions: []string{".zz"}}}})
	t.Cleanup(unserved.Close)
	l.Use(unserved)
	if got, err := l.Declarations(ctx, src, "package a\n", []int{0}); got != nil || err != nil || l.run != nil {
		t.Fatalf("no server for the workspace: %v, %v, run %v", got, err, l.run)
	}

	// A server for .go files whose program does not exist: a run is made
	// (the workspace has a .go file) and asking it fails, without
	// dropping the run.
	served := lang.NewManager(lang.Options{Servers: []lang.ServerConfig{{Name: "nope", Command: []string{filepath.Join(root, "no-such-ls")}, Extensions: []string{".go"}}}})
	t.Cleanup(served.Close)
	l.Use(served)
	got, err := l.Declarations(ctx, src, "package a\n", []int{0})
	if err == nil {
		t.Fatalf("a server that cannot start answered %q", got)
	}
	run := l.run
	if run == nil {
		t.Fatal("the run over the manager was not kept")
	}
	l.Use(served)
	if l.run != run {
		t.Fatal("using the same manager again dropped its run")
	}
	l.Use(unserved)
	if l.run != nil {
		t.Fatal("a new manager kept the old manager's run")
	}
}
