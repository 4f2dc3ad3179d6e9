package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/agentls/agentls/agent/config"
	"github.com/agentls/agentls/agent/llm"
	"github.com/agentls/agentls/agent/llm/llmtest"
	"github.com/agentls/agentls/internal/testwait"
	"github.com/agentls/agentls/internal/workspace"
	"github.com/agentls/agentls/tools/lang"
	"github.com/agentls/agentls/tools/lang/langtest"
)

// These tests are the "done when": a scripted model (real SSE,
// real go-openai) works in a workspace served by a real language server.

// langWorkspace writes files into a fresh real directory.
func langWorkspace(t *testing.T, files map[string]string) string {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for p, c := range files {
		mustWrite(t, filepath.Join(root, p), c)
	}
	return root
}

// langRun runs prompt in root with the real servers named and script as
// the model, and returns the outcome, the events and the requests.
func langRun(t *testing.T, root string, servers []string, script llmtest.Script) (Outcome, []Event, []llmtest.RecordedRequest) {
	t.Helper()
	var m *lang.Manager
	if len(servers) > 0 {
		m = lang.NewManager(lang.Options{Servers: lang.Resolve(nil, false, langtest.LookPath(t, servers...)), Wait: 30 * time.Second})
		defer m.Close()
	}
	srv := llmtest.New(t, script)
	client := newClient(t, srv)
	log := &eventLog{}
	s := NewSession("")
	run, err := s.Prepare(context.Background(), Setup{
		Config:        config.Defaults(),
		View:          workspace.New(workspace.Options{Folders: []string{root}}),
		TranscriptDir: NoTranscript,
		Model:         client,
		Lang:          m,
	}, RunRequest{Prompt: "fix it", OnEvent: log.on})
	if err != nil {
		t.Fatal(err)
	}
	out := run.Execute(context.Background())
	return out, log.all(), srv.Requests()
}

// fixLoop is the scripted model of the done-when test: it reads the file,
// introduces an undefined name, and when the edit result names the
// server's problem, fixes it; it answers once the result says there is
// nothing new.
func fixLoop(path, good, bad, wantProblem string, results *[]string) llmtest.Script {
	return func(req *llmtest.ChatRequest) llmtest.Reply {
		switch {
		case !req.HasToolResult("read"):
			return llmtest.ToolCalls(llmtest.Call{ID: "read", Name: "read_file", Args: `{"path":"` + path + `"}`})
		case !req.HasToolResult("break"):
			return llmtest.ToolCalls(llmtest.Call{ID: "break", Name: "edit_file", Args: editArgs(path, good, bad)})
		case !req.HasToolResult("fix"):
			res, _ := req.ToolResult("break")
			*results = append(*results, res)
			if !strings.Contains(res, wantProblem) {
				return llmtest.Text("the edit result did not name the problem")
			}
			return llmtest.ToolCalls(llmtest.Call{ID: "fix", Name: "edit_file", Args: editArgs(path, bad, good)})
		}
		res, _ := req.ToolResult("fix")
		*results = append(*results, res)
		if !strings.HasSuffix(res, "no new problems") {
			return llmtest.Text("still broken")
		}
		return llmtest.Text("fixed")
	}
}

func editArgs(path, old, new string) string {
	b, _ := json.Marshal(map[string]string{"path": path, "old_string": old, "new_string": new})
	return string(b)
}

// checkFixLoop asserts the run of fixLoop: the server's message came in
// the same tool result, the run ended fixed, the events tell the story.
func checkFixLoop(t *testing.T, out Outcome, events []Event, results []string, path, wantProblem string) {
	t.Helper()
	if out.Status != StatusFinished || out.Answer != "fixed" {
		t.Fatalf("outcome %v %q; results:\n%s", out.Status, out.Answer, strings.Join(results, "\n----\n"))
	}
	if !strings.HasSuffix(results[0], wantProblem) {
		t.Fatalf("break result:\n%s", results[0])
	}
	if out.Problems != 0 {
		t.Fatalf("outcome problems = %d", out.Problems)
	}
	var introduced []int
	var fin Event
	for _, e := range events {
		switch e.Kind {
		case EventProblems:
			if filepath.Base(e.Path) != path {
				t.Fatalf("problems event for %s", e.Path)
			}
			introduced = append(introduced, e.Problems.Introduced)
		case EventFinished:
			fin = e
		}
	}
	if !slices.Equal(introduced, []int{1, 0}) {
		t.Fatalf("problems events introduced %v, want [1 0]", introduced)
	}
	if fin.Kind != EventFinished || fin.Outstanding == nil || *fin.Outstanding != 0 {
		t.Fatalf("finished event %+v", fin)
	}
}

// TestLanguageServerGo: the model introduces an undefined name in Go,
// gets gopls's message in the same tool result, fixes it before the run
// ends.
func TestLanguageServerGo(t *testing.T) {
	noLeaksAfterCleanup(t)
	root := langWorkspace(t, map[string]string{
		"go.mod":  "module example.com/m\n\ngo 1.22\n",
		"main.go": "package main\n\nimport \"fmt\"\n\nfunc main() {\n\tfmt.Println(\"hi\")\n}\n",
	})
	var results []string
	want := "main.go:6: undefined: undefinedThing"
	out, events, reqs := langRun(t, root, []string{"gopls"}, fixLoop("main.go", `fmt.Println("hi")`, `fmt.Println(undefinedThing)`, want, &results))
	checkFixLoop(t, out, events, results, "main.go", want)
	if sys := reqs[0].System(); !strings.Contains(sys, strings.TrimPrefix(languageRule, "\n")) {
		t.Fatalf("system prompt lacks the language rule:\n%s", sys)
	}
}

// TestLanguageServerPython: the same with pyright.
func TestLanguageServerPython(t *testing.T) {
	noLeaksAfterCleanup(t)
	root := langWorkspace(t, map[string]string{"main.py": "def main() -> None:\n    print(\"hi\")\n"})
	var results []string
	want := `main.py:2: "undefined_thing" is not defined`
	out, events, _ := langRun(t, root, []string{"pyright"}, fixLoop("main.py", `print("hi")`, `print(undefined_thing)`, want, &results))
	checkFixLoop(t, out, events, results, "main.py", want)
}

// TestLanguageToolsFromFirstRequest: with gopls serving the workspace the
// first model request already offers the five language tools (nothing to
// load, no tool_search) and a system prompt that prefers them to grep; a
// direct references call on the first turn returns gopls's references in
// its result, and the system prompt and tools stay byte-stable over the
// run (provider prompt caches).
func TestLanguageToolsFromFirstRequest(t *testing.T) {
	noLeaksAfterCleanup(t)
	root := langWorkspace(t, map[string]string{
		"go.mod":  "module example.com/m\n\ngo 1.22\n",
		"util.go": "package main\n\n// Add adds.\nfunc Add(a, b int) int { return a + b }\n",
		"main.go": "package main\n\nimport \"fmt\"\n\nfunc main() {\n\tfmt.Println(Add(1, 2))\n\tfmt.Println(Add(3, 4))\n}\n",
	})
	out, _, reqs := langRun(t, root, []string{"gopls"}, func(req *llmtest.ChatRequest) llmtest.Reply {
		if req.Turns() == 0 {
			return llmtest.ToolCalls(
				llmtest.Call{ID: "refs", Name: "references", Args: `{"path":"util.go","line":4,"symbol":"Add"}`},
				llmtest.Call{ID: "def", Name: "definition", Args: `{"path":"main.go","line":6,"symbol":"Add"}`})
		}
		return llmtest.Text("found")
	})
	if out.Status != StatusFinished || len(reqs) != 2 {
		t.Fatalf("outcome %v %q after %d requests", out.Status, out.Answer, len(reqs))
	}
	first := reqs[0]
	for _, name := range []string{"diagnostics", "definition", "references", "symbols", "rename"} {
		if !first.HasTool(name) {
			t.Fatalf("first request lacks %s: %v", name, first.ToolNames())
		}
	}
	if first.HasTool("tool_search") {
		t.Fatalf("first request offers tool_search with nothing held back: %v", first.ToolNames())
	}
	sys := first.System()
	rules, _, _ := strings.Cut(sys, "\n\nEnvironment:")
	if !strings.HasPrefix(sys, systemPromptCore) || !strings.HasSuffix(rules, languageRule) {
		t.Fatalf("system prompt:\n%s", sys)
	}
	refs, _ := reqs[1].ToolResult("refs")
	if !strings.HasPrefix(refs, "3 reference(s) in 2 file(s):") || !strings.Contains(refs, "main.go\n  6: fmt.Println(Add(1, 2))\n  7: fmt.Println(Add(3, 4))") {
		t.Fatalf("references result:\n%s", refs)
	}
	if def, _ := reqs[1].ToolResult("def"); def != "util.go:4: func Add(a, b int) int { return a + b }" {
		t.Fatalf("definition result %q", def)
	}
	if reqs[1].System() != sys || !slices.Equal(reqs[1].ToolNames(), first.ToolNames()) {
		t.Fatalf("the second request changed the prefix: tools %v", reqs[1].ToolNames())
	}
}

// TestNoLanguageServerNoChange: without a language server (none on PATH,
// or all turned off) requests and edit results are what they always were.
func TestNoLanguageServerNoChange(t *testing.T) {
	cfg := config.Defaults()
	cfg.LanguageServers = config.LanguageServers{Off: true}
	if m := NewLanguageManager(cfg, nil); m != nil {
		t.Fatal(`"languageServers": false still made a manager`)
	}
	t.Setenv("PATH", t.TempDir()) // no gopls, pyright, … anywhere
	if m := NewLanguageManager(config.Defaults(), nil); m != nil {
		t.Fatal("a manager with no server on PATH")
	}
	root := langWorkspace(t, map[string]string{"main.go": "package main\n"})
	run := func(withManager bool) (string, []string, string) {
		var m *lang.Manager
		if withManager { // a manager whose servers serve nothing here
			m = lang.NewManager(lang.Options{Servers: []lang.ServerConfig{{Name: "x", Command: []string{os.Args[0]}, Extensions: []string{".none"}}}})
			defer m.Close()
		}
		srv := llmtest.New(t, func(req *llmtest.ChatRequest) llmtest.Reply {
			switch {
			case !req.HasToolResult("r"):
				return llmtest.ToolCalls(llmtest.Call{ID: "r", Name: "read_file", Args: `{"path":"main.go"}`})
			case !req.HasToolResult("e"):
				return llmtest.ToolCalls(llmtest.Call{ID: "e", Name: "edit_file", Args: editArgs("main.go", "package main", "package main // x")})
			}
			return llmtest.Text("done")
		})
		s := NewSession("")
		r, err := s.Prepare(context.Background(), Setup{Config: config.Defaults(), View: workspace.New(workspace.Options{Folders: []string{root}}), TranscriptDir: NoTranscript, Model: newClient(t, srv), Lang: m}, RunRequest{Prompt: "x"})
		if err != nil {
			t.Fatal(err)
		}
		r.Execute(context.Background())
		reqs := srv.Requests()
		res, _ := reqs[2].ToolResult("e")
		return reqs[0].System(), reqs[0].ToolNames(), res
	}
	sys0, tools0, res0 := run(false)
	sys1, tools1, res1 := run(true)
	if sys0 != sys1 || !slices.Equal(tools0, tools1) || res0 != res1 {
		t.Fatalf("a manager serving nothing changed the run:\n%v\n%v\n%q\n%q", tools0, tools1, res0, res1)
	}
	if strings.Contains(sys0, "tool_search") || slices.Contains(tools0, "tool_search") || strings.Contains(res0, "problem") {
		t.Fatalf("language features without a server: %v\n%s", tools0, res0)
	}
}

// noLeaksAfterCleanup checks for goroutine leaks after every cleanup
// registered later has run (the scripted server and client close there).
func noLeaksAfterCleanup(t *testing.T) {
	opt := goleak.IgnoreCurrent()
	t.Cleanup(func() { testwait.NoLeaks(t, opt) })
}

// BenchmarkNavigationTokens compares the tokens a navigation task costs
// with the language tools and with grep, on the 52-file module: "where is
// (*cache.Cache).Get called?". Both cache.Cache and cache.Store have a Get
// method and every file calls one of them, so text search finds all 50
// calls and the model must read the files to tell the receivers apart;
// references answers exactly. Tokens are counted with the repo's counter
// (the scripted model reports no usage): every request's prompt plus
// every answer, as a provider would bill them.
//
//	go test ./agent -run '^$' -bench NavigationTokens -benchtime 1x
func BenchmarkNavigationTokens(b *testing.B) {
	root := b.TempDir()
	langtest.GoModule(b, root)
	var semantic, grep Outcome
	var semanticResults, grepResults int
	for range b.N {
		semantic, semanticResults = navigate(b, root, []string{"gopls"}, func(req *llmtest.ChatRequest) llmtest.Reply {
			switch {
			case !req.HasToolResult("sym"):
				return llmtest.ToolCalls(llmtest.Call{ID: "sym", Name: "symbols", Args: `{"query":"Get"}`}).NoUsage()
			case !req.HasToolResult("refs"):
				return llmtest.ToolCalls(llmtest.Call{ID: "refs", Name: "references", Args: `{"path":"cache/cache.go","line":10,"symbol":"Get"}`}).NoUsage()
			}
			res, _ := req.ToolResult("refs")
			if !strings.Contains(res, "reference(s) in") {
				return llmtest.Text("no references: " + res).NoUsage()
			}
			return llmtest.Text("(*cache.Cache).Get is called in the even-numbered files of p0…p4 and by Store.Get.").NoUsage()
		})
		grep, grepResults = navigate(b, root, nil, func(req *llmtest.ChatRequest) llmtest.Reply {
			switch {
			case !req.HasToolResult("def"):
				return llmtest.ToolCalls(llmtest.Call{ID: "def", Name: "grep", Args: `{"pattern":"func \\(.*\\) Get\\("}`}).NoUsage()
			case !req.HasToolResult("calls"):
				return llmtest.ToolCalls(llmtest.Call{ID: "calls", Name: "grep", Args: `{"pattern":"\\.Get\\("}`}).NoUsage()
			case !req.HasToolResult("read0"):
				// Which Get each call is depends on its receiver's type:
				// read every file with a call.
				var calls []llmtest.Call
				for p := range 5 {
					for f := range 10 {
						calls = append(calls, llmtest.Call{ID: fmt.Sprintf("read%d", p*10+f), Name: "read_file", Args: fmt.Sprintf(`{"path":"p%d/f%d.go"}`, p, f)})
					}
				}
				return llmtest.ToolCalls(calls...).NoUsage()
			}
			return llmtest.Text("(*cache.Cache).Get is called in the even-numbered files of p0…p4 and by Store.Get.").NoUsage()
		})
	}
	if semantic.Status != StatusFinished || grep.Status != StatusFinished {
		b.Fatalf("semantic %v %q, grep %v %q", semantic.Status, semantic.Answer, grep.Status, grep.Answer)
	}
	b.ReportMetric(float64(semantic.Usage.TotalTokens), "semantic-tokens")
	b.ReportMetric(float64(grep.Usage.TotalTokens), "grep-tokens")
	b.ReportMetric(float64(grep.Usage.TotalTokens)/float64(semantic.Usage.TotalTokens), "ratio")
	b.ReportMetric(float64(semanticResults), "semantic-result-tokens")
	b.ReportMetric(float64(grepResults), "grep-result-tokens")
}

// navigate runs one scripted navigation task over root with the servers
// named (none: no language server); it returns the outcome and the tokens
// of the tool results the model read.
func navigate(b *testing.B, root string, servers []string, script llmtest.Script) (Outcome, int) {
	var m *lang.Manager
	if len(servers) > 0 {
		m = lang.NewManager(lang.Options{Servers: lang.Resolve(nil, false, langtest.LookPath(b, servers...)), Wait: 60 * time.Second})
		defer m.Close()
	}
	srv := llmtest.New(b, script)
	c, err := llm.New(llm.Config{BaseURL: srv.URL(), Model: "test-model", APIKey: "sk-bench-0123456789"})
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	run, err := NewSession("").Prepare(context.Background(), Setup{Config: config.Defaults(), View: workspace.New(workspace.Options{Folders: []string{root}}),
		TranscriptDir: NoTranscript, Model: c, Lang: m}, RunRequest{Prompt: "Where is (*cache.Cache).Get called?"})
	if err != nil {
		b.Fatal(err)
	}
	out := run.Execute(context.Background())
	reqs := srv.Requests()
	results, counter := 0, NewCounter()
	for _, msg := range reqs[len(reqs)-1].ToolResults() {
		results += counter.Count(msg.Content)
	}
	return out, results
}
