package lspserver_test

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/agentls/agentls/agent/llm/llmtest"
	"github.com/agentls/agentls/lspserver"
)

// A named pipe in the workspace (issue 10, failure 3): read_file and grep
// on it end with a tool error naming the file as not a regular file, grep
// over the folder skips it, and the run finishes instead of hanging every
// limit past. A second run is then cancelled mid-stream and still gets its
// terminal event.
func TestRunWithFIFOInWorkspace(t *testing.T) {
	results := make(chan map[string]string, 1)
	hang := llmtest.NewHang()
	rs := newRunSession(t, func(req *llmtest.ChatRequest) llmtest.Reply {
		if strings.Contains(req.LastUser(), "second") {
			return llmtest.Text("thinking").HangAfter(1, hang)
		}
		if !req.HasToolResult("r1") {
			return llmtest.ToolCalls(
				llmtest.Call{ID: "r1", Name: "read_file", Args: `{"path":"pipe.txt"}`},
				llmtest.Call{ID: "g1", Name: "grep", Args: `{"pattern":"x","path":"pipe.txt"}`},
				llmtest.Call{ID: "g2", Name: "grep", Args: `{"pattern":"needle"}`},
			)
		}
		got := map[string]string{}
		for _, id := range []string{"r1", "g1", "g2"} {
			got[id], _ = req.ToolResult(id)
		}
		results <- got
		return llmtest.Text("done")
	}, runOpts{})
	if err := os.WriteFile(filepath.Join(rs.root, "a.txt"), []byte("needle\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(rs.root, "pipe.txt"), 0o644); err != nil {
		t.Fatal(err)
	}
	id := rs.start(t, lspserver.RunArgs{Prompt: "first: look at the pipe"})
	rs.event(t, id, "finished")
	got := <-results
	for _, k := range []string{"r1", "g1"} {
		if !strings.Contains(got[k], "pipe.txt") || !strings.Contains(got[k], "not a regular file") {
			t.Errorf("%s result: %q", k, got[k])
		}
	}
	if !strings.Contains(got["g2"], "a.txt:1:needle") || !strings.Contains(got["g2"], "pipe.txt") {
		t.Errorf("grep over the folder: %q", got["g2"])
	}

	id = rs.start(t, lspserver.RunArgs{Prompt: "second"})
	<-hang.Started()
	if !rs.cancel(t, id) {
		t.Fatal("agentls.cancel did not cancel")
	}
	rs.event(t, id, "cancelled")
}
