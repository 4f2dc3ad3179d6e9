package lspserver_test

import (
	"strings"
	"sync"
	"testing"

	"github.com/agentls/agentls/agent/llm/llmtest"
	"github.com/agentls/agentls/internal/testwait"
	"github.com/agentls/agentls/internal/text"
	"github.com/agentls/agentls/lspserver"
)

// An agent run in preview mode proposes two changes; while it is still
// working the user accepts one and rejects the other. The run's next read
// of the file shows exactly what the editor now holds (the accepted change,
// not the rejected one), and the run ends with nothing pending.
func TestReviewDuringPreviewRun(t *testing.T) {
	pause := llmtest.NewPause()
	var mu sync.Mutex
	var reread string
	script := func(req *llmtest.ChatRequest) llmtest.Reply {
		switch {
		case !req.HasToolResult("r1"):
			return llmtest.ToolCalls(llmtest.Call{ID: "r1", Name: "read_file", Args: callArgs(map[string]any{"path": "demo.go"})})
		case !req.HasToolResult("e1"):
			return llmtest.ToolCalls(
				llmtest.Call{ID: "e1", Name: "edit_file", Args: callArgs(map[string]any{"path": "demo.go", "old_string": "return 1", "new_string": "return 10"})},
				llmtest.Call{ID: "e2", Name: "edit_file", Args: callArgs(map[string]any{"path": "demo.go", "old_string": "return 2", "new_string": "return 20"})})
		case !req.HasToolResult("r2"):
			return llmtest.ToolCalls(llmtest.Call{ID: "r2", Name: "read_file", Args: callArgs(map[string]any{"path": "demo.go"})}).PauseAfter(1, pause)
		}
		res, _ := req.ToolResult("r2")
		mu.Lock()
		reread = res
		mu.Unlock()
		return llmtest.Text("Done.")
	}
	rs := newRunSession(t, script, runOpts{})
	e := editorFor(rs.session, text.UTF16)
	u := e.open(t, "demo.go", demoBase)
	id := rs.start(t, lspserver.RunArgs{Prompt: "Bump the return values.", URI: string(u)})

	testwait.Recv(t, pause.Reached(), "both edits are staged: the model was asked for its next turn")
	hunks := e.hunks(t, u)
	if len(hunks) != 2 || hunks[0].NewText != "\treturn 10\n" || hunks[1].NewText != "\treturn 20\n" {
		t.Fatalf("hunks of the running run = %+v", hunks)
	}
	if res := e.accept(t, reviewArgs{HunkID: hunks[0].ID}); !res.Applied {
		t.Fatalf("accept = %+v", res)
	}
	if n := e.reject(t, reviewArgs{HunkID: hunks[1].ID}); n != 1 {
		t.Fatalf("rejected %d", n)
	}
	pause.Release()

	evs := rs.events(t, id)
	if fin := evs[len(evs)-1]; fin.Kind != "finished" || fin.Pending == nil || *fin.Pending != 0 {
		t.Fatalf("final event %+v, want finished with nothing pending", fin)
	}
	want := strings.Replace(demoBase, "return 1", "return 10", 1)
	if got := e.text(t, u); got != want {
		t.Fatalf("editor text %q, want %q", got, want)
	}
	mu.Lock()
	defer mu.Unlock()
	if !strings.Contains(reread, "return 10") || !strings.Contains(reread, "return 2\n") || strings.Contains(reread, "return 20") {
		t.Fatalf("the run's read after review shows:\n%s", reread)
	}
	if ps := e.proposals(t, ""); len(ps) != 0 {
		t.Fatalf("proposals after the run = %+v", ps)
	}
}
