package childproc

import (
	"bytes"
	"os"
	"os/exec"
	"reflect"
	"strconv"
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

// onlyNamespaces reports whether a asks for new namespaces and nothing
// else.
func onlyNamespaces(a *syscall.SysProcAttr) bool {
	if a.Cloneflags == 0 {
		return false
	}
	rest := *a
	rest.Cloneflags, rest.UidMappings, rest.GidMappings, rest.AmbientCaps = 0, nil, nil, nil
	return reflect.DeepEqual(rest, syscall.SysProcAttr{})
}

// withNamespaces adds ns's namespace fields (nil: none) to a.
func withNamespaces(a, ns *syscall.SysProcAttr) *syscall.SysProcAttr {
	if ns != nil {
		a.Cloneflags, a.UidMappings, a.GidMappings, a.AmbientCaps = ns.Cloneflags, ns.UidMappings, ns.GidMappings, ns.AmbientCaps
	}
	return a
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

// groupAlive reports whether a live process is left in group pgid. A
// zombie does not count: it holds nothing any more, and its new parent
// (init, or a container's PID 1 that reaps lazily) may take seconds to
// reap it, which would hold every stop to its bound.
func groupAlive(pgid int) bool {
	if pgid <= 0 || syscall.Kill(-pgid, 0) != nil {
		return false
	}
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return true // no /proc: the signal's answer is all there is
	}
	for _, e := range ents {
		if e.Name()[0] < '0' || e.Name()[0] > '9' {
			continue
		}
		st, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue // gone meanwhile
		}
		// pid (comm) state ppid pgrp ...; comm may hold spaces and parens.
		i := bytes.LastIndexByte(st, ')')
		if i < 0 {
			continue
		}
		f := bytes.Fields(st[i+1:])
		if len(f) < 3 || string(f[0]) == "Z" {
			continue
		}
		if g, err := strconv.Atoi(string(f[2])); err == nil && g == pgid {
			return true
		}
	}
	return false
}
