package testwait

import (
	"bytes"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// File waits for a file a command under test writes (its own signal that
// it got going, so tests need no fixed sleeps); the file counts once it
// ends in a newline. It returns the content.
func File(tb testing.TB, path string) string {
	tb.Helper()
	deadline := time.Now().Add(Limit)
	for time.Now().Before(deadline) {
		if b, err := os.ReadFile(path); err == nil && strings.HasSuffix(string(b), "\n") {
			return string(b)
		}
		time.Sleep(5 * time.Millisecond)
	}
	tb.Fatalf("testwait: gave up after %v waiting for %s", Limit, path)
	return ""
}

// ProcessGone waits until the process whose pid the file holds is gone
// (or a zombie waiting for its parent), failing the test if it still runs
// after Limit: killed means killed, however long the kill takes to land.
func ProcessGone(tb testing.TB, pidFile string) {
	tb.Helper()
	b, err := os.ReadFile(pidFile)
	if err != nil {
		tb.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		tb.Fatalf("pid file %s: %v", pidFile, err)
	}
	deadline := time.Now().Add(Limit)
	for time.Now().Before(deadline) {
		if !Alive(pid) {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
	tb.Fatalf("testwait: process %d still runs after %v", pid, Limit)
}

// Alive reports whether pid names a running process (a zombie is not).
func Alive(pid int) bool {
	if err := syscall.Kill(pid, 0); err != nil {
		return false
	}
	st, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	return err != nil || !strings.Contains(string(st), ") Z ")
}

// WithEnv lists the live processes (zombies excluded) other than this one
// whose environment holds kv ("NAME=value") exactly.
func WithEnv(kv string) []int {
	want := []byte("\x00" + kv + "\x00")
	ents, _ := os.ReadDir("/proc")
	var out []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		env, err := os.ReadFile("/proc/" + e.Name() + "/environ")
		if err != nil || !bytes.Contains(append([]byte{0}, env...), want) || !Alive(pid) {
			continue
		}
		out = append(out, pid)
	}
	return out
}

// EnvProcessesGone registers a cleanup, to run before the cleanups
// registered earlier (a t.TempDir's removal), that waits until no process
// whose environment holds kv ("NAME=value") still runs, failing the test
// and killing them if some still run after Limit. An editor under test
// starts agentls (and agentls its language servers) with the test's
// environment; they must end with the editor, and a test that returned
// while they still wrote their state would lose its TempDir cleanup
// ("directory not empty") to them. Use a kv unique to the test, such as
// its XDG_STATE_HOME.
func EnvProcessesGone(tb testing.TB, kv string) {
	tb.Cleanup(func() {
		deadline := time.Now().Add(Limit)
		for {
			left := WithEnv(kv)
			if len(left) == 0 {
				return
			}
			if time.Now().After(deadline) {
				for _, pid := range left {
					_ = syscall.Kill(pid, syscall.SIGKILL)
				}
				tb.Errorf("testwait: processes %v (environment %s) still run %v after the test", left, kv, Limit)
				return
			}
			time.Sleep(20 * time.Millisecond)
		}
	})
}

// GroupMembers lists the live processes (zombies excluded) in process
// group pgid, read from /proc.
func GroupMembers(pgid int) []int {
	ents, _ := os.ReadDir("/proc")
	var out []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		st, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		// pid (comm) state ppid pgrp ...; comm may hold spaces and parens.
		i := bytes.LastIndexByte(st, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(string(st[i+1:]))
		if len(f) < 3 || f[0] == "Z" {
			continue
		}
		if g, err := strconv.Atoi(f[2]); err == nil && g == pgid {
			out = append(out, pid)
		}
	}
	return out
}

// GroupGone waits until no live process is left in process group pgid,
// failing the test if some still run after Limit.
func GroupGone(tb testing.TB, pgid int) {
	tb.Helper()
	deadline := time.Now().Add(Limit)
	for time.Now().Before(deadline) {
		if len(GroupMembers(pgid)) == 0 {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
	tb.Fatalf("testwait: process group %d still has %v after %v", pgid, GroupMembers(pgid), Limit)
}
