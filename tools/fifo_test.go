package tools

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// callNoHang runs call in a goroutine so that a hang shows as a failure
// naming the tool instead of a suite timeout. The bound is a hang guard
// far above any real duration, not a timing assertion; on failure a writer
// is attached to the FIFO to release the blocked open.
func callNoHang(t *testing.T, env *Env, fifo, name string, args any) Result {
	t.Helper()
	done := make(chan Result, 1)
	go func() { done <- call(t, env, name, args) }()
	select {
	case r := <-done:
		return r
	case <-time.After(time.Minute):
	}
	if f, err := os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
		f.Close() // a reader blocked in open(2) gets EOF
	}
	t.Fatalf("%s hung on the FIFO", name)
	return Result{}
}

// Failure 3 of the security campaign: a named pipe in the workspace hung
// grep (and with it the run) forever.
func TestFIFOInWorkspace(t *testing.T) {
	root := newWorkspace(t, map[string]string{"a.txt": "needle here\n"})
	pipe := filepath.Join(root, "pipe.txt")
	if err := syscall.Mkfifo(pipe, 0o644); err != nil {
		t.Fatal(err)
	}
	env := newEnv(t, root, Policy{})

	mustErr(t, callNoHang(t, env, pipe, "read_file", map[string]any{"path": "pipe.txt"}), "pipe.txt", "not a regular file")
	mustErr(t, callNoHang(t, env, pipe, "grep", map[string]any{"pattern": "needle", "path": "pipe.txt"}), "pipe.txt", "not a regular file")
	out := mustOK(t, callNoHang(t, env, pipe, "grep", map[string]any{"pattern": "needle"}))
	if !strings.Contains(out, "a.txt:1:needle here") || !strings.Contains(out, "not regular files") || !strings.Contains(out, "pipe.txt") {
		t.Fatalf("grep over a folder with a FIFO:\n%s", out)
	}
	mustErr(t, callNoHang(t, env, pipe, "edit_file", map[string]any{"path": "pipe.txt", "old_string": "x", "new_string": "y"}), "pipe.txt")
}

// Failure 5: a path flipped between a file and a symlink to an outside
// file while read_file and grep run; no outside content may ever come back.
func TestSymlinkSwapRaceTools(t *testing.T) {
	root := newWorkspace(t, map[string]string{"f.txt": "inside\n"})
	outside := newWorkspace(t, map[string]string{"secret.txt": "OUTSIDE inside\n"})
	env := newEnv(t, root, Policy{})
	path := filepath.Join(root, "f.txt")
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		for {
			select {
			case <-stop:
				return
			default:
			}
			_ = os.Remove(path + ".l")
			if os.Symlink(filepath.Join(outside, "secret.txt"), path+".l") == nil {
				_ = os.Rename(path+".l", path)
			}
			if os.WriteFile(path+".f", []byte("inside\n"), 0o644) == nil {
				_ = os.Rename(path+".f", path)
			}
		}
	})
	defer func() { close(stop); wg.Wait() }()
	byName := map[string]Tool{}
	for _, tl := range Builtins(Policy{}) {
		byName[tl.Name()] = tl
	}
	calls := []struct{ tool, args string }{
		{"read_file", `{"path":"f.txt"}`},
		{"grep", `{"pattern":"inside","path":"f.txt"}`},
		{"grep", `{"pattern":"inside"}`},
	}
	hits := 0
	for range 3000 {
		for _, c := range calls {
			r, err := byName[c.tool].Call(context.Background(), env, json.RawMessage(c.args))
			if err != nil {
				t.Fatal(err)
			}
			if strings.Contains(r.Text, "OUTSIDE") {
				t.Fatalf("%s returned outside content:\n%s", c.tool, r.Text)
			}
			if !r.IsError && strings.Contains(r.Text, "inside") {
				hits++
			}
		}
	}
	if hits == 0 {
		t.Fatal("no call ever read the file: the loop tested nothing")
	}
}
