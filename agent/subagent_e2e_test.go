package agent

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agentls/agentls/agent/config"
	"github.com/agentls/agentls/agent/llm"
	"github.com/agentls/agentls/agent/llm/llmtest"
	"github.com/agentls/agentls/internal/workspace"
	"github.com/agentls/agentls/tools"
	"github.com/agentls/agentls/tools/lang"
	"github.com/agentls/agentls/tools/lang/langtest"
)

// isSubReq tells a sub-agent's request from its parent's.
func isSubReq(req *llmtest.ChatRequest) bool {
	return strings.HasPrefix(req.System(), "You are a sub-agent")
}

// TestSubAgentRunsScriptAndLanguageTools is the sub-agent's toolset end
// to end: a parent (scripted model, real SSE) calls task; the sub-agent,
// offered the read-only language tools from its first request, runs a
// script whose functions include definition (real gopls) and calls
// references directly in the same turn. What the sub-agent saw comes back to the parent as its
// answer; the inner calls are events and transcript records with the
// sub-agent's run id and the script call as parent.
func TestSubAgentRunsScriptAndLanguageTools(t *testing.T) {
	noLeaksAfterCleanup(t)
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	root := langWorkspace(t, map[string]string{
		"go.mod":  "module example.com/m\n\ngo 1.22\n",
		"util.go": "package main\n\n// Add adds.\nfunc Add(a, b int) int { return a + b }\n",
		"main.go": "package main\n\nimport \"fmt\"\n\nfunc main() {\n\tfmt.Println(Add(1, 2))\n\tfmt.Println(Add(3, 4))\n}\n",
	})
	m := lang.NewManager(lang.Options{Servers: lang.Resolve(nil, false, langtest.LookPath(t, "gopls")), Wait: 30 * time.Second})
	defer m.Close()

	const program = "files = glob('*.go')\nd = definition('main.go', 6, 'Add')[0]\nprint(len(files), 'files')\nprint('%s:%d: %s' % (d['path'], d['line'], d['text']))\nlen(grep('Add\\\\('))"
	var subFirst *llmtest.ChatRequest
	var scriptSaw, refsSaw, taskResult string
	var parentFirst, parentAfter []string
	srv := llmtest.New(t, func(req *llmtest.ChatRequest) llmtest.Reply {
		if isSubReq(req) {
			switch {
			case !req.HasToolResult("prog"):
				subFirst = req
				args, _ := json.Marshal(map[string]string{"code": program})
				return llmtest.ToolCalls(
					llmtest.Call{ID: "prog", Name: "script", Args: string(args)},
					llmtest.Call{ID: "refs", Name: "references", Args: `{"path":"util.go","line":4,"symbol":"Add"}`})
			}
			scriptSaw, _ = req.ToolResult("prog")
			refsSaw, _ = req.ToolResult("refs")
			return llmtest.Text("SUB SAW:\n" + scriptSaw + "\n" + refsSaw)
		}
		if !req.HasToolResult("t1") {
			parentFirst = req.ToolNames()
			return llmtest.ToolCalls(llmtest.Call{ID: "t1", Name: "task", Args: `{"description":"find Add","prompt":"Where is Add defined and used?"}`})
		}
		taskResult, _ = req.ToolResult("t1")
		parentAfter = req.ToolNames()
		return llmtest.Text("done")
	})
	log := &eventLog{}
	tdir := t.TempDir()
	run, err := NewSession("").Prepare(context.Background(), Setup{
		Config:        config.Defaults(),
		View:          workspace.New(workspace.Options{Folders: []string{root}}),
		TranscriptDir: tdir,
		Model:         newClient(t, srv),
		Lang:          m,
	}, RunRequest{Prompt: "explore", OnEvent: log.on})
	if err != nil {
		t.Fatal(err)
	}
	out := run.Execute(context.Background())
	if out.Status != StatusFinished || out.Answer != "done" {
		t.Fatalf("outcome %v %q %v", out.Status, out.Answer, out.Err)
	}

	// The sub-agent's toolset from its first request: read-only tools,
	// script and the read-only language tools; never rename (it stages
	// edits) nor anything else that changes files, and no tool_search
	// (nothing is held back).
	if subFirst == nil {
		t.Fatal("the sub-agent made no requests")
	}
	if got := subFirst.ToolNames(); !slices.Equal(got, []string{"definition", "diagnostics", "glob", "grep", "list_dir", "read_file", "references", "script", "symbols"}) {
		t.Fatalf("sub-agent's first offer: %v", got)
	}
	if !slices.Equal(parentFirst, parentAfter) || !slices.Contains(parentAfter, "rename") || slices.Contains(parentAfter, "tool_search") {
		t.Fatalf("parent's offer before the task %v, after %v", parentFirst, parentAfter)
	}
	if !strings.HasSuffix(strings.SplitN(subFirst.System(), "\n\nEnvironment:", 2)[0], taskLanguageRule) {
		t.Fatalf("sub-agent's system prompt lacks the language rule:\n%s", subFirst.System())
	}

	// What the sub-agent saw: the program's output (gopls's definition
	// inside the script, a value the program formats) and the direct
	// references call.
	wantScript := "2 files\nutil.go:4: func Add(a, b int) int { return a + b }\n3"
	if scriptSaw != wantScript {
		t.Fatalf("script result:\n%q\nwant\n%q", scriptSaw, wantScript)
	}
	if !strings.HasPrefix(refsSaw, "3 reference(s) in 2 file(s):") || !strings.Contains(refsSaw, "main.go\n  6: fmt.Println(Add(1, 2))\n  7: fmt.Println(Add(3, 4))") {
		t.Fatalf("references result:\n%s", refsSaw)
	}
	// What reached the parent: the sub-agent's answer, holding both.
	if !strings.HasPrefix(taskResult, "SUB SAW:") || !strings.Contains(taskResult, wantScript) || !strings.Contains(taskResult, refsSaw) {
		t.Fatalf("task result:\n%s", taskResult)
	}

	// Events: the inner calls of the sub-agent's script carry the
	// sub-agent's run id, the parent's run id and the script call as
	// their parent call.
	var subID string
	var inner []Event
	for _, e := range log.all() {
		if e.ParentRunID == run.ID() && e.Kind == EventStarted {
			subID = e.RunID
		}
		if e.ParentCallID != "" {
			inner = append(inner, e)
		}
	}
	if subID == "" || subID == run.ID() {
		t.Fatalf("no sub-agent started event")
	}
	var innerTools []string
	for _, e := range inner {
		if e.RunID != subID || e.ParentRunID != run.ID() || e.ParentCallID != "prog" || !strings.HasPrefix(e.CallID, "prog.") {
			t.Fatalf("inner event %+v", e)
		}
		if e.Kind == EventToolCall {
			innerTools = append(innerTools, e.Tool)
		}
	}
	if !slices.Equal(innerTools, []string{"glob", "definition", "grep"}) {
		t.Fatalf("inner calls: %v", innerTools)
	}

	// Transcript: the inner calls are records of the sub-agent (subRunId)
	// under the script call (parentCallId).
	b, err := os.ReadFile(run.TranscriptPath())
	if err != nil {
		t.Fatal(err)
	}
	var recorded []string
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var rec map[string]any
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatalf("bad line %q: %v", line, err)
		}
		if rec["kind"] == "tool_call" && rec["parentCallId"] != nil {
			if rec["parentCallId"] != "prog" || rec["subRunId"] != subID || rec["parentRunId"] != run.ID() {
				t.Fatalf("inner record %v", rec)
			}
			recorded = append(recorded, rec["name"].(string))
		}
	}
	if !slices.Equal(recorded, []string{"glob", "definition", "grep"}) {
		t.Fatalf("inner records: %v", recorded)
	}
	if filepath.Dir(run.TranscriptPath()) != tdir {
		t.Fatalf("transcript at %s", run.TranscriptPath())
	}
}

// TestSubAgentToolsFollowTheRules: through a Session whose registry holds
// editor and MCP tools (added at every turn, as front-ends sync them), a
// sub-agent is offered the read-only editor tools, the read-only tools of
// MCP servers listed in mcp.readOnlyServers and nothing that changes
// anything; its script's functions are the same tools, and a function
// that is not among them is refused before the program runs.
func TestSubAgentToolsFollowTheRules(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	edRO := &testTool{name: "editor__open_editors", readOnly: true}
	edRW := &testTool{name: "editor__format"}
	docsRO := &testTool{name: "mcp__docs__look-up", readOnly: true}
	docsRW := &testTool{name: "mcp__docs__delete"}
	otherRO := &testTool{name: "mcp__other__look", readOnly: true}
	var subTools []string
	var ok, refused string
	m := &fakeModel{step: func(_ context.Context, _ int, req llm.Request, d func(llm.Delta)) (llm.Response, error) {
		if isSub(req) {
			res := lastToolResults(req)
			if len(res) == 0 {
				subTools = toolNamesOf(req.Tools)
				return reply(d, "",
					call("s1", "script", `{"code":"print(editor__open_editors(), mcp__docs__look_up(q='x'))"}`),
					call("s2", "script", `{"code":"mcp__other__look()"}`)), nil
			}
			ok, refused = res[0], res[1]
			return reply(d, "done"), nil
		}
		if len(lastToolResults(req)) == 0 {
			return reply(d, "", call("t1", "task", `{"description":"look","prompt":"look around"}`)), nil
		}
		return reply(d, "ok"), nil
	}}
	cfg := config.Defaults()
	cfg.Tools.RunCommand = "ask"
	cfg.MCP.ReadOnlyServers = []string{"docs"}
	run, err := NewSession("").Prepare(context.Background(), Setup{Config: cfg, View: workspace.New(workspace.Options{Folders: []string{t.TempDir()}}),
		TranscriptDir: NoTranscript, Model: m,
		SyncTools: func(reg *tools.Registry) {
			for _, tl := range []tools.Tool{edRO, edRW, docsRO, docsRW, otherRO} {
				reg.Add(tl)
			}
		}}, RunRequest{Prompt: "x"})
	if err != nil {
		t.Fatal(err)
	}
	if out := run.Execute(context.Background()); out.Status != StatusFinished {
		t.Fatalf("outcome %+v", out)
	}
	if want := []string{"editor__open_editors", "glob", "grep", "list_dir", "mcp__docs__look-up", "read_file", "script"}; !slices.Equal(subTools, want) {
		t.Fatalf("sub-agent tools %v, want %v", subTools, want)
	}
	if ok != `editor__open_editors ok {} mcp__docs__look-up ok {"q":"x"}`+"\n" || !strings.HasPrefix(refused, "Error: line 1: undefined: mcp__other__look") {
		t.Fatalf("script results %q / %q", ok, refused)
	}
	if len(edRW.calls())+len(docsRW.calls())+len(otherRO.calls()) != 0 {
		t.Fatal("a tool the sub-agent may not use was called")
	}
}
