//go:build unix && !linux

package childproc

import (
	"os/exec"
	"syscall"
)

// sysProcAttr puts the child in its own process group so the group can be
// killed as one. There is no parent death signal outside Linux; descendants
// see EOF on stdin when agentls is gone, which ends stdio servers.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}

// onlyNamespaces: namespaces are Linux's.
func onlyNamespaces(*syscall.SysProcAttr) bool { return false }

func withNamespaces(a, _ *syscall.SysProcAttr) *syscall.SysProcAttr { return a }

// waitAndKillGroup reaps the child and then kills the rest of its group.
func waitAndKillGroup(cmd *exec.Cmd, pgid int) error {
	err := cmd.Wait()
	_ = syscall.Kill(-pgid, syscall.SIGKILL)
	return err
}

// groupAlive reports whether any process is left in group pgid (a zombie
// not yet reaped by its new parent counts until it is).
func groupAlive(pgid int) bool {
	return pgid > 0 && syscall.Kill(-pgid, 0) == nil
}
