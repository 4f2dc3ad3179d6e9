package lspserver_test

import (
	"bufio"
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agentls/agentls/internal/testtree"
	"github.com/agentls/agentls/lspserver/lsptest"
)

// BenchmarkScaleServe is the server's part of issue 30's scale benchmark
// (tools' BenchmarkScale is the run's part), kept out of the default paths:
// it runs only with AGENTLS_BENCH_SCALE=N (make bench-scale). On a tree of
// N copies of GOROOT/src it starts the built `agentls serve` three times,
// each through lsptest on the real binary, and logs the initialize round
// trip, the process's RSS after initialize (VmRSS of /proc/<pid>/status)
// and once the file watcher is ready, and when the watcher was ready (its
// "file watcher ready" log line, with the directories it watches). Figures
// go to docs/performance.md; nothing here asserts a time or a size.
func BenchmarkScaleServe(b *testing.B) {
	n, _ := strconv.Atoi(os.Getenv("AGENTLS_BENCH_SCALE"))
	if n <= 0 {
		b.Skip("set AGENTLS_BENCH_SCALE=N (copies of GOROOT/src) to run the scale benchmark")
	}
	root, files := testtree.GorootCopies(b, n)
	bin := lsptest.BuildBinary(b)
	b.Setenv("XDG_STATE_HOME", b.TempDir())
	b.Logf("tree: %d × GOROOT/src, %d files", n, files)
	for b.Loop() {
		for try := range 3 {
			serveOnce(b, bin, root, try+1)
		}
	}
}

var watcherReady = regexp.MustCompile(`file watcher ready.*dirs=(\d+).*took=(\S+)`)

func serveOnce(b *testing.B, bin, root string, try int) {
	srv := lsptest.StartBinary(b, bin, "serve", "--log-level", "info")
	ctx := lsptest.Context(b)
	t0 := time.Now()
	if _, err := srv.Initialize(ctx, lsptest.InitOptions{Folders: []string{root}}); err != nil {
		b.Fatal(err)
	}
	initTook := time.Since(t0)
	pid := srv.Cmd.Process.Pid
	rssInit := procStatus(b, pid, "VmRSS")
	var m []string
	for m == nil {
		if m = watcherReady.FindStringSubmatch(srv.Stderr()); m == nil {
			if time.Since(t0) > 5*time.Minute {
				b.Fatalf("no \"file watcher ready\" line after 5 minutes; stderr:\n%s", srv.Stderr())
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
	ready := time.Since(t0)
	rssReady, hwm := procStatus(b, pid, "VmRSS"), procStatus(b, pid, "VmHWM")
	b.Logf("serve, try %d: initialize %v; RSS after initialize %s; watcher ready %v after initialize was sent (walk %s, %s dirs); RSS then %s, peak %s",
		try, initTook.Round(time.Millisecond), rssInit, ready.Round(time.Millisecond), m[2], m[1], rssReady, hwm)
	if err := srv.Shutdown(ctx); err != nil {
		b.Fatal(err)
	}
	if err := srv.Exit(ctx); err != nil {
		b.Fatal(err)
	}
	if _, err := srv.Wait(ctx); err != nil { // the next try starts alone
		b.Fatal(err)
	}
}

// procStatus is the value of one field of /proc/pid/status ("123456 kB"
// shown as "120.6 MB").
func procStatus(b *testing.B, pid int, field string) string {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), field+":"); ok {
			fs := strings.Fields(v)
			if kb, err := strconv.Atoi(fs[0]); err == nil && len(fs) == 2 && fs[1] == "kB" {
				return fmt.Sprintf("%.1f MB", float64(kb)/1024)
			}
			return strings.TrimSpace(v)
		}
	}
	b.Fatalf("no %s in /proc/%d/status", field, pid)
	return ""
}
