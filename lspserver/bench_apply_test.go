package lspserver_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/agentls/agentls/agent/llm/llmtest"
	"github.com/agentls/agentls/internal/text"
	"github.com/agentls/agentls/lspserver"
)

// editTimer wraps the server's Client and measures, for each edit_file
// call of an apply-mode run, the time from the toolCall runEvent (sent
// when the model's call has been received, before the tool runs; timed
// once it is written) to the workspace/applyEdit request: the progress
// report, the lock check, the edit, staging, the diff and the
// WorkspaceEdit. The in-process pipes are synchronous (a write waits for
// the client's read), so notifications cost more here than on stdio.
type editTimer struct {
	lspserver.Client
	mu     sync.Mutex
	callAt time.Time
	lat    []time.Duration
}

func (c *editTimer) Notify(ctx context.Context, method string, params any) error {
	err := c.Client.Notify(ctx, method, params)
	if ev, ok := params.(*lspserver.RunEvent); ok && ev.Kind == "toolCall" && ev.Tool == "edit_file" {
		c.mu.Lock()
		c.callAt = time.Now() // once the event is on the wire
		c.mu.Unlock()
	}
	return err
}

func (c *editTimer) ApplyEdit(ctx context.Context, p *protocol.ApplyWorkspaceEditParams) (*protocol.ApplyWorkspaceEditResult, error) {
	c.mu.Lock()
	c.lat = append(c.lat, time.Since(c.callAt))
	c.mu.Unlock()
	return c.Client.ApplyEdit(ctx, p)
}

var benchFile = regexp.MustCompile(`bench\d+\.go`)

// BenchmarkApplyModeEdit measures the time from a model's edit_file call
// to the workspace/applyEdit request in apply mode, on a 2,000-line file
// open in the editor (runs of 10 edits each; the editor applies every edit
// and reports it with didChange, as VS Code does). Reports p50/p99 in µs.
func BenchmarkApplyModeEdit(b *testing.B) {
	const editsPerRun, lines = 10, 2000
	script := func(req *llmtest.ChatRequest) llmtest.Reply {
		file := benchFile.FindString(req.Messages[1].Content)
		if !req.HasToolResult("read") {
			return llmtest.ToolCalls(llmtest.Call{ID: "read", Name: "read_file", Args: callArgs(map[string]any{"path": file, "limit": 10})})
		}
		for i := range editsPerRun {
			id := fmt.Sprintf("e%d", i)
			if !req.HasToolResult(id) {
				old := fmt.Sprintf("value%d := %d", i*150, i*150)
				return llmtest.ToolCalls(llmtest.Call{ID: id, Name: "edit_file", Args: callArgs(map[string]any{"path": file, "old_string": old, "new_string": "renamed" + old})})
			}
		}
		return llmtest.Text("done")
	}
	timer := &editTimer{}
	rs := newRunSession(b, script, runOpts{
		settings: map[string]any{"mode": "apply", "maxTurns": editsPerRun + 5},
		server:   lspserver.Options{WrapClient: func(c lspserver.Client) lspserver.Client { timer.Client = c; return timer }},
	})
	ed := newRunEditor(rs.c, text.UTF16)
	var sb strings.Builder
	for l := range lines {
		fmt.Fprintf(&sb, "\tvalue%d := %d // 😀 line %d\n", l, l, l)
	}
	content := sb.String()
	b.ResetTimer()
	for n := 0; n*editsPerRun < b.N; n++ {
		b.StopTimer()
		name := fmt.Sprintf("bench%d.go", n)
		path := filepath.Join(rs.root, name)
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			b.Fatal(err)
		}
		u := uri.File(path)
		ed.open(b, u, content)
		b.StartTimer()
		id := rs.start(b, lspserver.RunArgs{Prompt: "Rename in " + name})
		evs := rs.events(b, id)
		if fin := evs[len(evs)-1]; fin.Kind != "finished" || *fin.Pending != 0 {
			b.Fatalf("run ended with %+v; %v", fin, kinds(evs))
		}
	}
	b.StopTimer()
	timer.mu.Lock()
	defer timer.mu.Unlock()
	if len(timer.lat) < b.N {
		b.Fatalf("%d applyEdit requests for %d edits", len(timer.lat), b.N)
	}
	b.ReportMetric(latencyPercentile(timer.lat, 50), "edit→applyEdit-p50-µs")
	b.ReportMetric(latencyPercentile(timer.lat, 99), "edit→applyEdit-p99-µs")
}
