package childproc

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"
)

// Group is a started child that leads a process group of its own: the
// unit agentls stops. Whatever the child spawns stays in the group unless
// it leaves on purpose (setsid), so signalling the group reaches the
// grandchildren a shell, a test runner or a launcher leaves behind.
type Group struct {
	cmd  *exec.Cmd
	pgid int

	exited  chan struct{} // closed once the child is reaped and its group killed
	exitErr error         // valid after exited

	stopMu sync.Mutex // one ladder at a time; a second Stop waits for the first
}

// StartCmd starts cmd as the leader of a new process group (on Linux with a
// parent death signal too) and reaps it in the background. The caller
// builds everything else on cmd: path, arguments, environment, directory,
// standard streams and extra files. cmd must not carry its own SysProcAttr
// or Cancel: how the child is grouped and ended is this package's job, and
// a second owner is how children leak. The one exception is a SysProcAttr
// that only asks for new namespaces (Cloneflags, id maps, ambient
// capabilities: internal/overlay's view), which is kept and given the
// group's settings on top.
//
// When a standard stream is an io.Writer other than an *os.File, os/exec
// copies from a pipe; a descendant that left the group could hold that pipe
// open for ever, so cmd.WaitDelay bounds that wait (StopGrace unless set).
func StartCmd(cmd *exec.Cmd) (*Group, error) {
	if cmd.Cancel != nil || cmd.SysProcAttr != nil && !onlyNamespaces(cmd.SysProcAttr) {
		return nil, errors.New("childproc: cmd must not set SysProcAttr (other than namespaces) or Cancel")
	}
	cmd.SysProcAttr = withNamespaces(sysProcAttr(), cmd.SysProcAttr)
	if cmd.WaitDelay == 0 {
		cmd.WaitDelay = StopGrace
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", cmd.Path, err)
	}
	g := &Group{cmd: cmd, pgid: cmd.Process.Pid, exited: make(chan struct{})}
	go g.wait()
	return g, nil
}

// wait reaps the child and kills the rest of its process group: once the
// leader is gone nothing of the group has an owner, and a background job
// must not outlive its command nor hold its output open.
func (g *Group) wait() {
	g.exitErr = waitAndKillGroup(g.cmd, g.pgid)
	close(g.exited)
}

// Pid is the child's process id, which is also its process group id.
func (g *Group) Pid() int { return g.pgid }

// Exited is closed once the child has exited, been reaped, and the rest of
// its process group has been sent SIGKILL.
func (g *Group) Exited() <-chan struct{} { return g.exited }

// Err is what exec.Cmd.Wait returned for the child. Call after Exited.
func (g *Group) Err() error { return g.exitErr }

// ProcessState is how the child ended. Call after Exited.
func (g *Group) ProcessState() *os.ProcessState { return g.cmd.ProcessState }

// Stop ends the whole group with a bounded ladder: SIGTERM, StopGrace for
// it to clean up, then SIGKILL. It returns once the child is reaped and no
// member of the group is left (a member that no signal ends, stuck in
// the kernel, is waited for at most StopGrace after SIGKILL). It is safe
// to call after the child exited and more than once.
func (g *Group) Stop() { g.ladder(syscall.SIGTERM, syscall.SIGKILL) }

// Kill ends the whole group at once with SIGKILL and waits as Stop does,
// for a child that is known to be broken (it hung, answered garbage, or
// its caller gave up): there is nothing left for it to save.
func (g *Group) Kill() { g.ladder(syscall.SIGKILL) }

// ladder sends each signal to the group in turn while some of it is
// left, giving each StopGrace, then waits for the reaper.
func (g *Group) ladder(steps ...syscall.Signal) {
	g.stopMu.Lock()
	defer g.stopMu.Unlock()
	for _, sig := range steps {
		if g.gone() {
			break
		}
		_ = syscall.Kill(-g.pgid, sig)
		g.waitGone(StopGrace)
	}
	// After SIGKILL the leader exits; wait reaps it and returns once
	// os/exec's copying ends, which WaitDelay bounds.
	<-g.exited
}

// gone reports whether the leader is reaped and nothing of its group is
// left.
func (g *Group) gone() bool {
	select {
	case <-g.exited:
		return !groupAlive(g.pgid)
	default:
		return false
	}
}

// waitGone waits up to d for the group to be gone.
func (g *Group) waitGone(d time.Duration) {
	deadline := time.NewTimer(d)
	defer deadline.Stop()
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for !g.gone() {
		select {
		case <-deadline.C:
			return
		case <-tick.C:
		}
	}
}
