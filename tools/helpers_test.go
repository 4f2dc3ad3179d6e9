package tools

import (
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentls/agentls/internal/workspace"
)

var update = flag.Bool("update", false, "rewrite golden files in testdata/golden")

// newWorkspace creates a temporary workspace holding files (path → content)
// and returns its real (symlink-resolved) root.
func newWorkspace(t testing.TB, files map[string]string) string {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for p, c := range files {
		writeFileT(t, filepath.Join(root, p), c)
	}
	return root
}

func writeFileT(t testing.TB, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func readFileT(t testing.TB, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// newEnv returns a run environment over a fresh view of root.
func newEnv(t testing.TB, root string, policy Policy) *Env {
	t.Helper()
	return NewEnv("run-1", workspace.New(workspace.Options{Folders: []string{root}}), nil, policy)
}

// call runs a built-in by name with args (marshalled to JSON).
func call(t testing.TB, env *Env, name string, args any) Result {
	t.Helper()
	var tool Tool
	for _, tl := range Builtins(Policy{RunCommand: "ask"}) {
		if tl.Name() == name {
			tool = tl
		}
	}
	if tool == nil {
		t.Fatalf("no tool %s", name)
	}
	raw, err := json.Marshal(args)
	if err != nil {
		t.Fatal(err)
	}
	res, err := tool.Call(context.Background(), env, raw)
	if err != nil {
		t.Fatalf("%s: Go error %v", name, err)
	}
	return res
}

// mustOK fails unless res is a success, and returns its text.
func mustOK(t testing.TB, res Result) string {
	t.Helper()
	if res.IsError {
		t.Fatalf("unexpected tool error: %s", res.Text)
	}
	return res.Text
}

// mustErr fails unless res is a tool error containing every want.
func mustErr(t testing.TB, res Result, want ...string) string {
	t.Helper()
	if !res.IsError {
		t.Fatalf("expected a tool error, got success: %s", res.Text)
	}
	for _, w := range want {
		if !strings.Contains(res.Text, w) {
			t.Fatalf("error %q does not contain %q", res.Text, w)
		}
	}
	return res.Text
}

// golden compares got with testdata/golden/name (rewritten with -update).
func golden(t testing.TB, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", "golden", name)
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("golden %s missing (run with -update): %v", name, err)
	}
	if string(want) != got {
		t.Fatalf("golden %s differs:\n--- got ---\n%s\n--- want ---\n%s", name, got, want)
	}
}

// stagedText returns the run's proposed text for a workspace-relative path.
func stagedText(t testing.TB, env *Env, root, rel string) string {
	t.Helper()
	f, ok := env.Changes.Get(filepath.Join(root, rel))
	if !ok {
		t.Fatalf("%s is not staged", rel)
	}
	return f.Text
}
