package testwait

import (
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
