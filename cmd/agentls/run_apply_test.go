package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/agentls/agentls/internal/workspace"
	"github.com/agentls/agentls/tools"
)

// --apply writes through the same confinement as reads: while the
// directory holding the staged files flips between itself and a symlink
// to a folder outside the workspace, applying never writes outside (a
// write by path, MkdirAll/CreateTemp/Rename following symlinks, did once
// the check had passed).
func TestApplyNeverWritesThroughASymlinkedDirectory(t *testing.T) {
	root := t.TempDir()
	ws, outside := filepath.Join(root, "ws"), filepath.Join(root, "outside")
	sub, parked := filepath.Join(ws, "sub"), filepath.Join(ws, "sub.real")
	if err := os.MkdirAll(outside, 0o755); err != nil {
		t.Fatal(err)
	}
	const rounds = 300
	for round := range rounds {
		if err := os.RemoveAll(ws); err != nil {
			t.Fatal(err)
		}
		writeFile(t, filepath.Join(sub, "a.txt"), "one\n", 0o644)
		writeFile(t, filepath.Join(outside, "a.txt"), "one\n", 0o644) // same text: the base hash matches through the link
		view := workspace.New(workspace.Options{Folders: []string{ws}})
		env := tools.NewEnv("r", view, nil, tools.Policy{})
		call := func(tool tools.Tool, args map[string]any) {
			raw, _ := json.Marshal(args)
			if res, err := tool.Call(context.Background(), env, raw); err != nil || res.IsError {
				t.Fatalf("%s: %v %s", tool.Name(), err, res.Text)
			}
		}
		call(tools.ReadFile(), map[string]any{"path": "sub/a.txt"})
		call(tools.WriteFile(), map[string]any{"path": "sub/a.txt", "content": "two\n"})
		call(tools.WriteFile(), map[string]any{"path": "sub/new.txt", "content": "new\n"})

		var stop atomic.Bool
		var wg sync.WaitGroup
		wg.Add(1)
		go func() { // flip sub between the real directory and a symlink to outside
			defer wg.Done()
			for !stop.Load() {
				if os.Rename(sub, parked) == nil {
					_ = os.Symlink(outside, sub)
					_ = os.Remove(sub)
					_ = os.Rename(parked, sub)
				}
			}
		}()
		applyChanges(env.Changes, view)
		stop.Store(true)
		wg.Wait()
		if got := readFile(t, filepath.Join(outside, "a.txt")); got != "one\n" {
			t.Fatalf("round %d: the file outside was overwritten: %q", round, got)
		}
		ents, _ := os.ReadDir(outside)
		for _, e := range ents {
			if e.Name() != "a.txt" {
				t.Fatalf("round %d: %s was created outside the workspace", round, e.Name())
			}
		}
	}
}
