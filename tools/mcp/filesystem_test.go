package mcp

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentls/agentls/tools"
)

// TestFilesystemServerRoots starts server-filesystem without directory
// arguments: it may only touch what we advertise as roots, and follows
// SetRoots through notifications/roots/list_changed.
func TestFilesystemServerRoots(t *testing.T) {
	entry := npmPackage(t, "server-filesystem")
	rootA, rootB := t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(rootA, "hello.txt"), []byte("héllo from A\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(rootB, "other.txt"), []byte("from B\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	reg := tools.NewRegistry()
	m := startManager(t, Options{Registry: reg, Roots: []string{rootA},
		Servers: map[string]ServerConfig{"fs": {Command: "node", Args: []string{entry}}}})
	waitState(t, m, "fs", StateReady)

	// The server asks for roots right after initialization; wait until it
	// has applied them.
	waitAllowed(t, reg, rootA)
	res := call(t, reg, "mcp__fs__read_text_file", `{"path":`+quote(filepath.Join(rootA, "hello.txt"))+`}`)
	if res.IsError || !strings.Contains(res.Text, "héllo from A") {
		t.Fatalf("read_text_file: %+v", res)
	}
	res = call(t, reg, "mcp__fs__list_directory", `{"path":`+quote(rootA)+`}`)
	if res.IsError || !strings.Contains(res.Text, "[FILE] hello.txt") {
		t.Fatalf("list_directory: %+v", res)
	}
	res = call(t, reg, "mcp__fs__read_text_file", `{"path":`+quote(filepath.Join(rootB, "other.txt"))+`}`)
	if !res.IsError {
		t.Fatalf("read outside the roots allowed: %+v", res)
	}
	if tool, _ := reg.Get("mcp__fs__read_text_file"); !tool.ReadOnly() {
		t.Error("read_text_file carries readOnlyHint but is not read-only")
	}
	if tool, _ := reg.Get("mcp__fs__write_file"); tool.ReadOnly() {
		t.Error("write_file is read-only")
	}

	m.SetRoots([]string{rootB})
	waitAllowed(t, reg, rootB)
	res = call(t, reg, "mcp__fs__read_text_file", `{"path":`+quote(filepath.Join(rootB, "other.txt"))+`}`)
	if res.IsError || !strings.Contains(res.Text, "from B") {
		t.Fatalf("read in the new root: %+v", res)
	}
}

// waitAllowed asks the server for its allowed directories until dir is one
// of them. The server applies roots asynchronously and announces nothing,
// so asking again is the only way to observe it.
func waitAllowed(t *testing.T, reg *tools.Registry, dir string) {
	t.Helper()
	real, _ := filepath.EvalSymlinks(dir)
	for i := 0; i < 500; i++ {
		res := call(t, reg, "mcp__fs__list_allowed_directories", `{}`)
		if strings.Contains(res.Text, real) {
			return
		}
	}
	t.Fatalf("%s never became an allowed directory", dir)
}

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
