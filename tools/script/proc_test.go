package script

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/agentls/agentls/internal/testwait"
)

// The interpreter is started through internal/childproc: it leads a
// process group of its own and closing it leaves nothing behind.
func TestInterpreterLeadsItsOwnGroup(t *testing.T) {
	c, err := startChild(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	pid := c.g.Pid()
	if m := testwait.GroupMembers(pid); !slices.Contains(m, pid) {
		t.Fatalf("interpreter %d is not in its own group (group members %v)", pid, m)
	}
	c.close()
	if m := testwait.GroupMembers(pid); len(m) != 0 {
		t.Fatalf("group %d still has %v after close", pid, m)
	}
}

// A child of the script tool that spawned a grandchild (the interpreter
// never does, but the rule is childproc's, not the program's) has its
// whole group ended when the call's context ends and when it is closed.
func TestChildGroupEnds(t *testing.T) {
	for _, tc := range []struct {
		name   string
		script string
		end    func(cancel context.CancelFunc, c *childProc)
	}{
		{"cancel", spawner, func(cancel context.CancelFunc, c *childProc) {
			cancel()
			testwait.Recv(t, c.g.Exited(), "the child's end")
		}},
		{"close", spawner, func(_ context.CancelFunc, c *childProc) { c.close() }},
		{"close ignoring TERM", `trap "" TERM; ` + spawner, func(_ context.CancelFunc, c *childProc) { c.close() }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			cmd := exec.Command("sh", "-c", tc.script)
			cmd.Dir = dir
			cmd.Env = []string{"PATH=" + os.Getenv("PATH")}
			c, err := startProc(ctx, cmd)
			if err != nil {
				t.Fatal(err)
			}
			defer c.close()
			gc, err := strconv.Atoi(strings.TrimSpace(testwait.File(t, filepath.Join(dir, "gc.pid"))))
			if err != nil {
				t.Fatal(err)
			}
			pgid := c.g.Pid()
			if m := testwait.GroupMembers(pgid); !slices.Contains(m, gc) {
				t.Fatalf("grandchild %d is not in the group %d (%v)", gc, pgid, m)
			}
			tc.end(cancel, c)
			if tc.name == "cancel" {
				// The stop runs in the background; Exited was closed
				// with SIGKILL sent to the rest of the group.
				testwait.GroupGone(t, pgid)
			} else if m := testwait.GroupMembers(pgid); len(m) != 0 {
				t.Fatalf("group %d still has %v after close", pgid, m)
			}
			if testwait.Alive(gc) {
				t.Fatalf("grandchild %d still runs", gc)
			}
		})
	}
}

// spawner backgrounds a grandchild, writes its pid, and waits in the
// foreground; it ignores its pipes, so only a signal ends it.
const spawner = `sleep 100 & echo $! > gc.pid; sleep 100`
