package agent

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentls/agentls/agent/config"
	"github.com/agentls/agentls/agent/llm/llmtest"
	"github.com/agentls/agentls/internal/workspace"
	"github.com/agentls/agentls/tools/lang"
	"github.com/agentls/agentls/tools/lang/langtest"
)

// TestWarmLanguageServers: the run's language servers start beside its
// first model request. With pyright (cold: seconds to its first answer)
// and a model whose first turn takes 2.5 s, pyright is running before the
// model's first tool call, and the first edit's result carries pyright's
// problems line. The time from the edit call to its result is logged (a
// figure for docs/performance.md, not asserted).
func TestWarmLanguageServers(t *testing.T) {
	root := langWorkspace(t, map[string]string{
		"util.py": "def add(a: int, b: int) -> int:\n    return a + b\n",
		"main.py": "from util import add\n\nprint(add(1, 2))\n",
	})
	m := lang.NewManager(lang.Options{Servers: lang.Resolve(nil, false, langtest.LookPath(t, "pyright")), Wait: 30 * time.Second})
	defer m.Close()

	var mu sync.Mutex
	var runningAtFirstCall []lang.Process
	var thought bool
	var editSent time.Time
	var editResult string
	var editLatency time.Duration
	script := func(req *llmtest.ChatRequest) llmtest.Reply {
		mu.Lock()
		defer mu.Unlock()
		switch {
		case !req.HasToolResult("read"):
			if !thought {
				time.Sleep(2500 * time.Millisecond) // the model's first turn
				runningAtFirstCall, thought = m.Running(), true
			}
			return llmtest.ToolCalls(llmtest.Call{ID: "read", Name: "read_file", Args: `{"path":"main.py"}`})
		case !req.HasToolResult("break"):
			if editSent.IsZero() {
				editSent = time.Now()
			}
			return llmtest.ToolCalls(llmtest.Call{ID: "break", Name: "edit_file", Args: editArgs("main.py", "add(1, 2)", "add(1, undefined_thing)")})
		}
		if editResult == "" {
			editLatency = time.Since(editSent)
			editResult, _ = req.ToolResult("break")
		}
		return llmtest.Text("done")
	}
	srv := llmtest.New(t, script)
	s := NewSession("")
	run, err := s.Prepare(context.Background(), Setup{
		Config:        config.Defaults(),
		View:          workspace.New(workspace.Options{Folders: []string{root}}),
		TranscriptDir: NoTranscript,
		Model:         newClient(t, srv),
		Lang:          m,
	}, RunRequest{Prompt: "break it"})
	if err != nil {
		t.Fatal(err)
	}
	out := run.Execute(context.Background())
	if out.Status != StatusFinished {
		t.Fatalf("outcome %v: %v", out.Status, out.Err)
	}
	if len(runningAtFirstCall) != 1 || runningAtFirstCall[0].Name != "pyright" {
		t.Fatalf("servers running when the model made its first call: %v, want pyright", runningAtFirstCall)
	}
	if !strings.Contains(editResult, `main.py:3: "undefined_thing" is not defined`) {
		t.Fatalf("first edit's result lacks pyright's problem:\n%s", editResult)
	}
	t.Logf("edit call → result with pyright's problems: %v (warm start)", editLatency)
}
