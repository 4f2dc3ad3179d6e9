package lspserver_test

import (
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/uri"

	"github.com/agentls/agentls/internal/testpeers"
	"github.com/agentls/agentls/lspserver/lsptest"
)

// BenchmarkOpenCloseRSS measures the built binary's resident memory when
// 5,000 documents of 50 KB are opened and then all closed: closing must
// give the memory back (README Performance). It reports RSS in MB idle,
// with every document open, and after closing them all (once the server
// settled, polled for up to 10 s).
func BenchmarkOpenCloseRSS(b *testing.B) {
	if runtime.GOOS != "linux" {
		testpeers.Missing(b, "reads /proc, which %s does not have", runtime.GOOS)
	}
	bin := lsptest.BuildBinary(b)
	const docs = 5000
	body := strings.Repeat("some line of text with a few words in it.\n", 1200) // 50 KB
	for b.Loop() {
		p := lsptest.StartBinary(b, bin)
		ctx := lsptest.Context(b)
		root := b.TempDir()
		if _, err := p.Initialize(ctx, lsptest.InitOptions{Folders: []string{root}}); err != nil {
			b.Fatal(err)
		}
		pid := p.Cmd.Process.Pid
		sync := func() {
			if _, err := p.Document(ctx, uri.File(root+"/probe")); err == nil {
				b.Fatal("probe document exists")
			}
		}
		sync()
		idle := rssMB(b, pid)
		for i := range docs {
			if err := p.DidOpen(ctx, uri.File(fmt.Sprintf("%s/d%d.go", root, i)), "go", 1, body+strconv.Itoa(i)); err != nil {
				b.Fatal(err)
			}
		}
		sync()
		open := rssMB(b, pid)
		for i := range docs {
			if err := p.DidClose(ctx, uri.File(fmt.Sprintf("%s/d%d.go", root, i))); err != nil {
				b.Fatal(err)
			}
		}
		sync()
		closed := rssMB(b, pid)
		for deadline := time.Now().Add(10 * time.Second); closed > idle+20 && time.Now().Before(deadline); {
			time.Sleep(200 * time.Millisecond)
			closed = rssMB(b, pid)
		}
		b.ReportMetric(idle, "idle-MB")
		b.ReportMetric(open, "open-MB")
		b.ReportMetric(closed, "closed-MB")
		if err := p.Shutdown(ctx); err != nil {
			b.Fatal(err)
		}
		if err := p.Exit(ctx); err != nil {
			b.Fatal(err)
		}
	}
}

// rssMB is the resident set size of process pid in MB.
func rssMB(tb testing.TB, pid int) float64 {
	tb.Helper()
	st, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		tb.Fatal(err)
	}
	for line := range strings.Lines(string(st)) {
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, err := strconv.Atoi(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")))
			if err != nil {
				tb.Fatal(err)
			}
			return float64(kb) / 1024
		}
	}
	tb.Fatal("no VmRSS")
	return 0
}
