package lspserver_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/agent/llm/llmtest"
	"github.com/agentls/agentls/internal/testpeers"
	"github.com/agentls/agentls/lspserver"
	"github.com/agentls/agentls/lspserver/lsptest"
)

// BenchmarkIdleRSSAfterRuns measures the built binary's resident memory
// (VmRSS from /proc/PID/status): after initialize, right after b.N runs
// against the scripted model (each reads a file, greps and answers, with
// no usage reported so tokens are counted locally), and once the server
// has been idle long enough to release the token tables (agent's
// tablesIdleRelease, 15 s, plus margin). Run it with -benchtime 20x.
func BenchmarkIdleRSSAfterRuns(b *testing.B) {
	if _, err := os.Stat("/proc/self/status"); err != nil {
		testpeers.Missing(b, "needs /proc (Linux): %v", err)
	}
	srv := llmtest.New(b, func(req *llmtest.ChatRequest) llmtest.Reply {
		switch {
		case !req.HasToolResult("r1"):
			return llmtest.ToolCalls(llmtest.Call{ID: "r1", Name: "read_file", Args: `{"path":"main.go"}`}).NoUsage()
		case !req.HasToolResult("g1"):
			return llmtest.ToolCalls(llmtest.Call{ID: "g1", Name: "grep", Args: `{"pattern":"func"}`}).NoUsage()
		}
		return llmtest.Text(strings.Repeat("The answer, explained at some length. ", 200)).NoUsage()
	})
	ws := b.TempDir()
	for i := range 50 {
		src := fmt.Sprintf("package main\n\n// f%d does things.\nfunc f%d() int {\n\treturn %d\n}\n", i, i, i)
		if err := os.WriteFile(filepath.Join(ws, fmt.Sprintf("f%d.go", i)), []byte(strings.Repeat(src, 20)), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(ws, "main.go"), []byte("package main\n\nfunc main() {}\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	b.Setenv("XDG_STATE_HOME", b.TempDir())
	b.Setenv("XDG_CONFIG_HOME", b.TempDir())
	b.Setenv("OPENAI_BASE_URL", "")
	b.Setenv("AGENTLS_MODEL", "")
	b.Setenv("OPENAI_API_KEY", "sk-rss-bench-0123456789abcdef")
	bin := lsptest.BuildBinary(b)
	c := lsptest.StartBinary(b, bin)
	ctx := lsptest.Context(b)
	if _, err := c.Initialize(ctx, lsptest.InitOptions{Folders: []string{ws},
		InitializationOptions: map[string]any{"model": map[string]any{"baseURL": srv.URL(), "name": "test-model"}}}); err != nil {
		b.Fatal(err)
	}
	pid := c.Cmd.Process.Pid
	start := vmRSS(b, pid)
	b.ResetTimer()
	for range b.N {
		var res lspserver.RunResult
		if err := c.Call(ctx, protocol.MethodWorkspaceExecuteCommand, command(lspserver.CommandRun, lspserver.RunArgs{Prompt: "explain"}), &res); err != nil {
			b.Fatal(err)
		}
		if _, err := c.Await(ctx, lspserver.MethodRunEvent, func(m lsptest.Message) bool {
			var e lspserver.RunEvent
			return json.Unmarshal(m.Params, &e) == nil && e.RunID == res.RunID && (e.Kind == "finished" || e.Kind == "failed" || e.Kind == "cancelled")
		}); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	after := vmRSS(b, pid)
	time.Sleep(20 * time.Second) // idle: the token tables are released after 15 s
	idle := vmRSS(b, pid)
	b.ReportMetric(start, "start-RSS-MB")
	b.ReportMetric(after, "after-runs-RSS-MB")
	b.ReportMetric(idle, "idle-RSS-MB")
	if err := c.Shutdown(ctx); err != nil {
		b.Fatal(err)
	}
	if err := c.Exit(ctx); err != nil {
		b.Fatal(err)
	}
	if _, err := c.Wait(ctx); err != nil {
		b.Fatal(err)
	}
}

// vmRSS reads a process's resident set size in MB.
func vmRSS(tb testing.TB, pid int) float64 {
	tb.Helper()
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		tb.Fatal(err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, err := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(rest), " kB"))
			if err != nil {
				tb.Fatal(err)
			}
			return float64(kb) / 1024
		}
	}
	tb.Fatal("no VmRSS")
	return 0
}
