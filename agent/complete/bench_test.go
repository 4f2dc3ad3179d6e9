package complete

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentls/agentls/agent/config"
	"github.com/agentls/agentls/internal/workspace"
)

// BenchmarkBuildPrompt is the context building of one completion: the
// windows around the cursor and the chunks of four other open files
// (1024-token budget) laid out in the Qwen template.
func BenchmarkBuildPrompt(b *testing.B) {
	dir := b.TempDir()
	view := workspace.New(workspace.Options{})
	view.SetFolders([]string{dir})
	var sb strings.Builder
	for i := range 400 {
		fmt.Fprintf(&sb, "\tx%d := compute(%d) // line %d\n", i, i, i)
	}
	text := sb.String()
	e := New(view, nil)
	cfg := config.Defaults()
	cfg.Model.BaseURL, cfg.Model.Name = "http://127.0.0.1:1/v1", "qwen2.5-coder:7b"
	if err := e.Configure(cfg); err != nil {
		b.Fatal(err)
	}
	cur := filepath.Join(dir, "cur.go")
	view.Open(cur, 1, text)
	for i := range 4 {
		p := filepath.Join(dir, fmt.Sprintf("o%d.go", i))
		view.Open(p, 1, text)
		e.notePlace(p, 200)
	}
	s := e.set
	off := len(text) / 2
	var ctxBytes int
	b.ResetTimer()
	for range b.N {
		p := e.build(s, cur, text[:off], text[off:], nil)
		ctxBytes = p.Context
	}
	b.ReportMetric(float64(ctxBytes), "context-bytes")
}
