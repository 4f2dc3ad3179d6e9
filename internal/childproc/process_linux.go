package childproc

import (
	"os/exec"
	"syscall"

	"golang.org/x/sys/unix"
)

// sysProcAttr puts the child in its own process group (so the group can be
// killed as one) and asks the kernel to SIGKILL it when agentls dies, even
// by SIGKILL. Pdeathsig reaches the direct child only; its descendants see
// EOF on stdin when agentls and the child are gone, which ends stdio servers.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}

// waitAndKillGroup waits for the child to exit without reaping it (WNOWAIT),
// kills its process group while the group id still cannot be reused by an
// unrelated process, and then reaps the child.
func waitAndKillGroup(cmd *exec.Cmd, pgid int) error {
	var info unix.Siginfo
	for {
		err := unix.Waitid(unix.P_PID, cmd.Process.Pid, &info, unix.WEXITED|unix.WNOWAIT, nil)
		if err != unix.EINTR {
			break
		}
	}
	_ = syscall.Kill(-pgid, syscall.SIGKILL)
	return cmd.Wait()
}
