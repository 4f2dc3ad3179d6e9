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

	"github.com/agentls/agentls/agent/config"
	"github.com/agentls/agentls/agent/llm"
	"github.com/agentls/agentls/agent/llm/llmtest"
	"github.com/agentls/agentls/internal/workspace"
	"github.com/agentls/agentls/tools"
	scripttool "github.com/agentls/agentls/tools/script"
)

// handlerTree writes the exploration corpus: 10 packages of 30 files (20
// sources, 10 tests). Every other source defines an HTTP handler; the
// tests cover all but a few, and sources carry TODO comments. It returns
// the handlers without a test, sorted.
func handlerTree(t testing.TB, dir string) (untested []string) {
	t.Helper()
	tested := map[string]bool{}
	var handlers []string
	for p := range 10 {
		pkg := fmt.Sprintf("svc%02d", p)
		for f := range 20 {
			var b strings.Builder
			fmt.Fprintf(&b, "package %s\n\nimport (\n\t\"encoding/json\"\n\t\"net/http\"\n)\n\n", pkg)
			fmt.Fprintf(&b, "// Item%02d is one record of the %s store.\ntype Item%02d struct {\n\tID   int    `json:\"id\"`\n\tName string `json:\"name\"`\n}\n\n", f, pkg, f)
			if f%2 == 0 {
				name := fmt.Sprintf("Item%02d%sHandler", f, strings.ToUpper(pkg[:1])+pkg[1:])
				handlers = append(handlers, pkg+"."+name)
				fmt.Fprintf(&b, "// %s serves one item as JSON.\nfunc %s(w http.ResponseWriter, r *http.Request) {\n\t// TODO: validate the id\n\tjson.NewEncoder(w).Encode(Item%02d{ID: 1, Name: r.URL.Path})\n}\n\n", name, name, f)
				if (p*20+f)%7 != 0 {
					tested[pkg+"."+name] = true
				}
			}
			fmt.Fprintf(&b, "func load%02d(id int) (*Item%02d, error) {\n\t// TODO: cache\n\treturn &Item%02d{ID: id}, nil\n}\n", f, f, f)
			mustWrite(t.(*testing.T), filepath.Join(dir, pkg, fmt.Sprintf("item%02d.go", f)), b.String())
		}
		for f := range 10 {
			var b strings.Builder
			fmt.Fprintf(&b, "package %s\n\nimport (\n\t\"net/http/httptest\"\n\t\"testing\"\n)\n\n", pkg)
			for _, h := range []int{2 * f, 2*f + 1} {
				name := fmt.Sprintf("Item%02d%sHandler", h, strings.ToUpper(pkg[:1])+pkg[1:])
				if tested[pkg+"."+name] {
					fmt.Fprintf(&b, "func Test%s(t *testing.T) {\n\tw := httptest.NewRecorder()\n\t%s(w, httptest.NewRequest(\"GET\", \"/x\", nil))\n\tif w.Code != 200 {\n\t\tt.Fatal(w.Code)\n\t}\n}\n\n", name, name)
				}
			}
			fmt.Fprintf(&b, "func TestLoad%02d(t *testing.T) {\n\tif _, err := load%02d(1); err != nil {\n\t\tt.Fatal(err)\n\t}\n}\n", f, f)
			mustWrite(t.(*testing.T), filepath.Join(dir, pkg, fmt.Sprintf("item%02d_test.go", f)), b.String())
		}
	}
	for _, h := range handlers {
		if !tested[h] {
			untested = append(untested, h)
		}
	}
	slices.Sort(untested)
	return untested
}

// untestedProgram is the script the model writes for the question.
const untestedProgram = `defs = grep("^func \\w+Handler\\(w ", glob="*.go")
tests = grep("^func Test\\w+Handler\\(", glob="*_test.go")
tested = {}
for m in tests:
    name = m["text"][len("func Test"):].split("(")[0]
    tested[m["path"].split("/")[0] + "." + name] = True
missing = []
for m in defs:
    name = m["text"][len("func "):].split("(")[0]
    key = m["path"].split("/")[0] + "." + name
    if key not in tested:
        missing.append(key)
print(len(defs), "handlers,", len(missing), "without a test:")
print("\n".join(sorted(missing)))
`

// TestScriptAnswersAMultiFileQuestionInOneCall is the script tool's
// done-when: a model (the scripted server, through the real client)
// answers a question over 300 files with one script call whose result is
// a few lines; the bulk (every handler, every test) never enters the
// conversation, and the inner calls are reported with their parent.
func TestScriptAnswersAMultiFileQuestionInOneCall(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	dir := t.TempDir()
	untested := handlerTree(t, dir)
	args, _ := json.Marshal(map[string]string{"code": untestedProgram})
	srv := llmtest.New(t, func(req *llmtest.ChatRequest) llmtest.Reply {
		if req.Turns() == 0 {
			return llmtest.ToolCalls(llmtest.Call{ID: "s1", Name: "script", Args: string(args)}).SplitArgs(5)
		}
		res, _ := req.ToolResult("s1")
		return llmtest.Text("Untested handlers:\n" + res)
	})
	log := &eventLog{}
	opts := agentOpts(t, newClient(t, srv), log, dir)
	out := Run(context.Background(), opts)
	if out.Status != StatusFinished || out.Turns != 2 || out.ToolCalls != 1 {
		t.Fatalf("outcome %+v", out)
	}
	reqs := srv.Requests()
	res, _ := reqs[1].ToolResult("s1")
	want := fmt.Sprintf("100 handlers, %d without a test:\n%s\n", len(untested), strings.Join(untested, "\n"))
	if res != want {
		t.Fatalf("script result:\n%s\nwant:\n%s", res, want)
	}
	if len(untested) < 5 || len(untested) > 20 {
		t.Fatalf("corpus has %d untested handlers", len(untested))
	}
	// Bulk never in the context: no test function, no file content.
	for _, m := range reqs[1].Messages {
		if strings.Contains(m.Content, "func Test") || strings.Contains(m.Content, "ResponseWriter") {
			t.Fatalf("bulk data reached the model in a %s message", m.Role)
		}
	}
	var inner []Event
	for _, e := range log.all() {
		if e.ParentCallID != "" {
			inner = append(inner, e)
		}
	}
	if len(inner) != 4 || inner[0].Kind != EventToolCall || inner[0].Tool != "grep" || inner[0].CallID != "s1.1" || inner[0].ParentCallID != "s1" ||
		inner[1].Kind != EventToolResult || inner[1].IsError || !strings.Contains(inner[1].Summary, "100 matches") || inner[3].CallID != "s1.2" {
		t.Fatalf("inner events: %+v", inner)
	}
}

// TestScriptThatLoopsOrWritesGetsAClearError: a program that never ends or
// tries to write comes back as a tool error with its line, within its
// bounds, and the run goes on.
func TestScriptThatLoopsOrWritesGetsAClearError(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	dir := t.TempDir()
	mustWrite(t, filepath.Join(dir, "a.go"), "package a\n")
	progs := []string{
		"n = 0\nwhile True:\n    n += 1\n",
		"write_file(\"a.go\", \"gone\")\n",
		"edit_file(path=\"a.go\", old_string=\"package a\", new_string=\"package b\")\n",
	}
	srv := llmtest.New(t, func(req *llmtest.ChatRequest) llmtest.Reply {
		if n := req.Turns(); n < len(progs) {
			args, _ := json.Marshal(map[string]string{"code": progs[n]})
			return llmtest.ToolCalls(llmtest.Call{ID: fmt.Sprintf("s%d", n), Name: "script", Args: string(args)})
		}
		return llmtest.Text("gave up")
	})
	opts := agentOpts(t, newClient(t, srv), &eventLog{}, dir)
	opts.Registry = tools.NewRegistry(tools.Builtins(tools.Policy{RunCommand: "ask"})...)
	opts.Limits.MaxConsecutiveToolErrors = 10
	out := Run(context.Background(), opts)
	if out.Status != StatusFinished {
		t.Fatalf("outcome %+v", out)
	}
	last := srv.Requests()[len(progs)]
	wants := []string{
		"Error: line 3: the program ran more than 20000000 steps",
		"Error: line 1: undefined: write_file",
		"Error: line 1: undefined: edit_file",
	}
	for i, w := range wants {
		res, _ := last.ToolResult(fmt.Sprintf("s%d", i))
		if !strings.HasPrefix(res, w) {
			t.Errorf("program %d: %q, want prefix %q", i, res, w)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "a.go")); string(b) != "package a\n" {
		t.Fatalf("a.go = %q", b)
	}
}

// TestScriptSeesReadOnlyToolsOfTheTurn: a read-only tool added to the
// registry (an MCP or editor tool) is a function; a mutating one is not.
func TestScriptSeesReadOnlyToolsOfTheTurn(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	ro := &testTool{name: "mcp__docs__look-up", readOnly: true}
	rw := &testTool{name: "mcp__docs__delete", readOnly: false}
	m := script(
		calls(call("s1", "script", `{"code":"print(mcp__docs__look_up(q='x'))"}`), call("s2", "script", `{"code":"mcp__docs__delete(q='y')"}`)),
		func(d func(llm.Delta)) llm.Response { return reply(d, "done") },
	)
	opts := agentOpts(t, m, &eventLog{}, t.TempDir())
	opts.Registry.Add(ro)
	opts.Registry.Add(rw)
	Run(context.Background(), opts)
	res, res2 := toolResultOf(m.reqs()[1], "s1"), toolResultOf(m.reqs()[1], "s2")
	if res != `mcp__docs__look-up ok {"q":"x"}`+"\n" || !strings.HasPrefix(res2, "Error: line 1: undefined: mcp__docs__delete") {
		t.Fatalf("results: %q %q", res, res2)
	}
	if len(rw.calls()) != 0 || len(ro.calls()) != 1 {
		t.Fatalf("calls: ro %v rw %v", ro.calls(), rw.calls())
	}
}

func toolResultOf(req llm.Request, id string) string {
	for _, m := range req.Messages {
		if m.ToolCallID == id {
			return m.Content
		}
	}
	return ""
}

// TestScriptLimitsFromConfig: each script.* setting reaches the program's
// run through a Session (scripted model, real SSE, real interpreter
// process), and the program that crosses it gets that limit's message,
// naming the configured value so the model can act on it.
func TestScriptLimitsFromConfig(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	dir := t.TempDir()
	mustWrite(t, filepath.Join(dir, "a.go"), "package a\n")
	runProgram := func(t *testing.T, set func(*config.ScriptConfig), code string) string {
		t.Helper()
		var got string
		srv := llmtest.New(t, func(req *llmtest.ChatRequest) llmtest.Reply {
			if !req.HasToolResult("s") {
				args, _ := json.Marshal(map[string]string{"code": code})
				return llmtest.ToolCalls(llmtest.Call{ID: "s", Name: "script", Args: string(args)})
			}
			got, _ = req.ToolResult("s")
			return llmtest.Text("ok")
		})
		cfg := config.Defaults()
		set(&cfg.Script)
		run, err := NewSession("").Prepare(context.Background(), Setup{Config: cfg, View: workspace.New(workspace.Options{Folders: []string{dir}}),
			TranscriptDir: NoTranscript, Model: newClient(t, srv)}, RunRequest{Prompt: "x"})
		if err != nil {
			t.Fatal(err)
		}
		if out := run.Execute(context.Background()); out.Status != StatusFinished {
			t.Fatalf("outcome %+v", out)
		}
		return got
	}
	cases := []struct {
		name string
		set  func(*config.ScriptConfig)
		code string
		want string
	}{
		{"maxSteps", func(s *config.ScriptConfig) { s.MaxSteps = 100_000 }, "n = 0\nwhile True:\n    n += 1\n",
			"the program ran more than 100000 steps and was stopped"},
		{"timeoutSeconds", func(s *config.ScriptConfig) { s.TimeoutSeconds, s.MaxSteps = 1, 2_000_000_000 }, "print('started')\nwhile True:\n    pass\n",
			"Error: the program ran longer than 1s and was stopped"},
		{"maxOutputBytes", func(s *config.ScriptConfig) { s.MaxOutputBytes = 256 }, "for i in range(100):\n    print('line', i)\n",
			"the program printed more than 256 bytes and was stopped"},
		{"maxCalls", func(s *config.ScriptConfig) { s.MaxCalls = 3 }, "for i in range(5):\n    glob('*.go')\n",
			"the program made more than 3 tool calls"},
		{"memoryMiB", func(s *config.ScriptConfig) { s.MemoryMiB = 64 }, "x = [None] * 20000000\nprint(len(x))\n",
			"Error: the program used more than 64 MiB of memory and was stopped"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := runProgram(t, c.set, c.code)
			if !strings.Contains(got, c.want) {
				t.Fatalf("result:\n%s\nwant %q", got, c.want)
			}
			// The defaults would have let the program through, or stopped
			// it with the default's figure: the setting made the difference.
			if def := runProgram(t, func(*config.ScriptConfig) {}, c.code); strings.Contains(def, c.want) {
				t.Fatalf("with the defaults too:\n%s", def)
			}
		})
	}
	if c := config.Defaults().Script; ScriptLimitsFromConfig(config.Defaults()) != (scripttool.Limits{Steps: scripttool.DefaultSteps, WallClock: scripttool.DefaultWallClock,
		Output: scripttool.DefaultOutput, Calls: scripttool.DefaultCalls, Memory: scripttool.DefaultMemory}) {
		t.Fatalf("config defaults %+v differ from the script tool's", c)
	}
}
