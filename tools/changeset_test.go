package tools

import (
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/agentls/agentls/internal/text"
)

func TestChangesetAPI(t *testing.T) {
	root := newWorkspace(t, map[string]string{"a.go": "package a\n\nvar x = 1 // 😀\n", "b.txt": "crlf\r\nline\r\n"})
	env := newEnv(t, root, Policy{})
	a, b, c := filepath.Join(root, "a.go"), filepath.Join(root, "b.txt"), filepath.Join(root, "new/c.md")
	var mu sync.Mutex
	var events []string
	cancel := env.Changes.Subscribe(func(p string) {
		mu.Lock()
		events = append(events, filepath.Base(p))
		mu.Unlock()
	})
	readAll(t, env, "a.go", "b.txt")
	mustOK(t, call(t, env, "edit_file", map[string]any{"path": "a.go", "old_string": "x = 1", "new_string": "x = 2"}))
	mustOK(t, call(t, env, "edit_file", map[string]any{"path": "b.txt", "old_string": "line", "new_string": "LINE"}))
	mustOK(t, call(t, env, "write_file", map[string]any{"path": "new/c.md", "content": "# new\n"}))

	if got := env.Changes.Files(); strings.Join(got, ",") != strings.Join([]string{a, b, c}, ",") {
		t.Fatalf("Files %v", got)
	}
	f, ok := env.Changes.Get(c)
	if !ok || !f.Created || f.Base != "" || f.Text != "# new\n" || !f.Pending() {
		t.Fatalf("created entry %+v", f)
	}
	wantDiff := "--- a/a.go\n+++ b/a.go\n@@ -1,3 +1,3 @@\n package a\n \n-var x = 1 // 😀\n+var x = 2 // 😀\n" +
		"--- a/b.txt\n+++ b/b.txt\n@@ -1,2 +1,2 @@\n crlf\r\n-line\r\n+LINE\r\n" +
		"--- /dev/null\n+++ b/new/c.md\n@@ -0,0 +1 @@\n+# new\n"
	if got := env.Changes.UnifiedDiff(); got != wantDiff {
		t.Fatalf("UnifiedDiff:\n%q\nwant\n%q", got, wantDiff)
	}
	// Edits are minimal and reproduce the proposal in every encoding.
	for _, enc := range encodings {
		edits, err := env.Changes.Edits(a, enc)
		if err != nil {
			t.Fatal(err)
		}
		if len(edits) != 1 || edits[0].NewText != "2" {
			t.Fatalf("%v: edits %v", enc, edits)
		}
		if got := applyTextEdits(t, "package a\n\nvar x = 1 // 😀\n", edits, enc); got != "package a\n\nvar x = 2 // 😀\n" {
			t.Fatalf("%v: %q", enc, got)
		}
	}
	if _, err := env.Changes.Edits(filepath.Join(root, "none"), text.UTF16); err == nil {
		t.Fatal("Edits of an unstaged path must fail")
	}

	// Partial apply: the editor applied part of the proposal; the rest
	// stays pending and the applied text is the run's own.
	env.Changes.MarkApplied(a, "package a\n\nvar x = 1 // 😀\n// applied\n")
	f, _ = env.Changes.Get(a)
	if f.Base != "package a\n\nvar x = 1 // 😀\n// applied\n" || f.Text != "package a\n\nvar x = 2 // 😀\n" || !f.Pending() {
		t.Fatalf("after partial MarkApplied %+v", f)
	}
	// User rejected some hunks: the proposal becomes what is left.
	if !env.Changes.SetProposed(b, "crlf\r\nline\r\n") {
		t.Fatal("SetProposed on a staged path")
	}
	if slices.Contains(env.Changes.Files(), b) {
		t.Fatal("b.txt has nothing pending after its hunk was rejected")
	}
	env.Changes.Discard(c)
	if _, ok := env.Changes.Get(c); ok {
		t.Fatal("Discard")
	}
	cancel()
	mustOK(t, call(t, env, "write_file", map[string]any{"path": "new/c.md", "content": "again\n"}))
	mu.Lock()
	defer mu.Unlock()
	if strings.Join(events, ",") != "a.go,b.txt,c.md,a.go,b.txt,c.md" {
		t.Fatalf("events %v", events)
	}
}

// TestChangesetConcurrent exercises the changeset and ledger from many
// goroutines (run with -race).
func TestChangesetConcurrent(t *testing.T) {
	files := map[string]string{}
	for i := range 8 {
		files[filepath.Join("d", string(rune('a'+i))+".txt")] = "value 0\n"
	}
	root := newWorkspace(t, files)
	env := newEnv(t, root, Policy{})
	var wg sync.WaitGroup
	for i := range 8 {
		name := filepath.Join("d", string(rune('a'+i))+".txt")
		wg.Go(func() {
			mustOK(t, call(t, env, "read_file", map[string]any{"path": name}))
			mustOK(t, call(t, env, "edit_file", map[string]any{"path": name, "old_string": "value 0", "new_string": "value 1"}))
			_ = env.Changes.UnifiedDiff()
			mustOK(t, call(t, env, "grep", map[string]any{"pattern": "value"}))
		})
	}
	wg.Wait()
	if n := len(env.Changes.Files()); n != 8 {
		t.Fatalf("%d staged", n)
	}
}
