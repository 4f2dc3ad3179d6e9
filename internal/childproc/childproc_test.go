package childproc

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/agentls/agentls/internal/testwait"
)

func TestMain(m *testing.M) { testwait.VerifyTestMain(m) }

// The scripts background a grandchild, write its pid, and then run a
// foreground child: three processes in the group, none of which exits on
// its own or on EOF; the second ignores SIGTERM (and so do its children,
// which inherit that).
const (
	spawner     = `sleep 100 & echo $! > gc.pid; sleep 100`
	termIgnorer = `trap "" TERM; ` + spawner
)

// startGroup starts sh -c script in dir through StartCmd and returns the
// group and its grandchild's pid once the grandchild runs in the group.
func startGroup(t *testing.T, dir, script string) (*Group, int) {
	t.Helper()
	cmd := exec.Command("sh", "-c", script)
	cmd.Dir = dir
	cmd.Env = []string{"PATH=" + os.Getenv("PATH")}
	g, err := StartCmd(cmd)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(g.Kill)
	return g, grandchild(t, dir, g.Pid())
}

// grandchild reads the grandchild's pid from dir/gc.pid and checks that
// it is a member of the child's group (so only a group kill reaches it).
func grandchild(t *testing.T, dir string, pgid int) int {
	t.Helper()
	gc, err := strconv.Atoi(strings.TrimSpace(testwait.File(t, filepath.Join(dir, "gc.pid"))))
	if err != nil {
		t.Fatal(err)
	}
	if m := testwait.GroupMembers(pgid); !slices.Contains(m, gc) || !slices.Contains(m, pgid) {
		t.Fatalf("group %d is %v; want the child and grandchild %d in it", pgid, m, gc)
	}
	return gc
}

// assertGroupGone checks, right after a stop returned, that nothing of
// the group runs and the child was reaped.
func assertGroupGone(t *testing.T, g *Group, gc int) {
	t.Helper()
	select {
	case <-g.Exited():
	default:
		t.Fatal("the stop returned before the child was reaped")
	}
	if m := testwait.GroupMembers(g.Pid()); len(m) != 0 {
		t.Fatalf("group %d still has %v", g.Pid(), m)
	}
	if testwait.Alive(gc) {
		t.Fatalf("grandchild %d still runs", gc)
	}
	if g.ProcessState() == nil {
		t.Fatal("the child was not reaped")
	}
}

func TestGroupStopEndsTheWholeGroup(t *testing.T) {
	dir := t.TempDir()
	g, gc := startGroup(t, dir, spawner)
	g.Stop()
	assertGroupGone(t, g, gc)
	// SIGTERM was enough: the shell did not need SIGKILL.
	if ws := g.ProcessState().Sys().(syscall.WaitStatus); !ws.Signaled() || ws.Signal() != syscall.SIGTERM {
		t.Fatalf("the child ended with %v; want SIGTERM", g.ProcessState())
	}
	g.Stop() // a second stop is a no-op
}

func TestGroupStopKillsWhatIgnoresTerm(t *testing.T) {
	dir := t.TempDir()
	g, gc := startGroup(t, dir, termIgnorer)
	g.Stop()
	assertGroupGone(t, g, gc)
	if ws := g.ProcessState().Sys().(syscall.WaitStatus); !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
		t.Fatalf("the child ended with %v; want SIGKILL after SIGTERM was ignored", g.ProcessState())
	}
}

func TestGroupKill(t *testing.T) {
	dir := t.TempDir()
	g, gc := startGroup(t, dir, termIgnorer)
	g.Kill()
	assertGroupGone(t, g, gc)
}

// A child that exits by itself takes its background jobs with it: nobody
// would be left to stop them.
func TestGroupExitKillsLeftovers(t *testing.T) {
	dir := t.TempDir()
	cmd := exec.Command("sh", "-c", `sleep 100 & echo $! > gc.pid; read line; exit 0`)
	cmd.Dir = dir
	cmd.Env = []string{"PATH=" + os.Getenv("PATH")}
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	g, err := StartCmd(cmd)
	if err != nil {
		t.Fatal(err)
	}
	gc := grandchild(t, dir, g.Pid())
	in.Close()
	testwait.Recv(t, g.Exited(), "the shell's exit")
	if err := g.Err(); err != nil {
		t.Fatalf("exit: %v", err)
	}
	testwait.GroupGone(t, g.Pid())
	if testwait.Alive(gc) {
		t.Fatalf("grandchild %d still runs", gc)
	}
}

func TestStartCmdRefusesASecondOwner(t *testing.T) {
	cmd := exec.Command("true")
	cmd.SysProcAttr = &syscall.SysProcAttr{}
	if _, err := StartCmd(cmd); err == nil || cmd.Process != nil {
		t.Fatalf("StartCmd with SysProcAttr: err %v, started %v", err, cmd.Process != nil)
	}
}

func TestProcessStopEndsTheWholeGroup(t *testing.T) {
	for _, tc := range []struct {
		name, script string
		stop         func(*Process)
	}{
		{"stop", spawner, (*Process).Stop},
		{"stop ignoring TERM", termIgnorer, (*Process).Stop},
		{"kill", spawner, (*Process).Kill},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			p, err := Start(Spec{Command: "sh", Args: []string{"-c", tc.script}, Dir: dir, Env: []string{"PATH=" + os.Getenv("PATH")}})
			if err != nil {
				t.Fatal(err)
			}
			gc := grandchild(t, dir, p.Pid())
			tc.stop(p)
			assertGroupGone(t, p.Group, gc)
			if _, err := p.Stdout().Read(make([]byte, 1)); err == nil {
				t.Fatal("stdout still open after the stop")
			}
		})
	}
}

func TestProcessExitError(t *testing.T) {
	p, err := Start(Spec{Command: "sh", Args: []string{"-c", "echo first >&2; echo why it quit >&2; exit 7"}})
	if err != nil {
		t.Fatal(err)
	}
	testwait.Recv(t, p.Exited(), "the child's exit")
	got := p.ExitError().Error()
	if !strings.Contains(got, "exit status 7") || !strings.Contains(got, "first | why it quit") {
		t.Fatalf("ExitError = %q", got)
	}
	p.Stop()
}
