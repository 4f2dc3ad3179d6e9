package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/agentls/agentls/agent/llm"
	"github.com/agentls/agentls/tools"
)

// The exploration measurement (docs/performance.md, "Script tool"): the
// same question over the 300-file tree answered by a scripted model that
// uses plain tool calls and by one that writes a script; what is counted
// is every prompt token sent to the model (system prompt, tool
// definitions, conversation), with the o200k tokenizer. The model is
// scripted, so this measures the cost of the context, not how well a real
// model would write the calls.

// exploration is one way of answering: the calls of each turn (nil: the
// final answer).
type exploration struct {
	name     string
	noScript bool // the script tool is not offered: its definition is not counted
	turns    [][]llm.ToolCall
}

func argsJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func grepCall(id, pattern, path, glob string) llm.ToolCall {
	a := map[string]any{"pattern": pattern}
	if path != "" {
		a["path"] = path
	}
	if glob != "" {
		a["glob"] = glob
	}
	return call(id, "grep", argsJSON(a))
}

const todoProgram = `counts = {}
for m in grep("TODO", glob="*.go"):
    pkg = m["path"].split("/")[0]
    counts[pkg] = counts.get(pkg, 0) + 1
for pkg in sorted(counts):
    print(pkg, counts[pkg])
`

func explorations() map[string][]exploration {
	var perPkg []llm.ToolCall
	for p := range 10 {
		perPkg = append(perPkg, grepCall(fmt.Sprintf("g%d", p), "TODO", fmt.Sprintf("svc%02d", p), "*.go"))
	}
	return map[string][]exploration{
		"handlers without a test": {
			{name: "tool calls, both greps in one turn", noScript: true, turns: [][]llm.ToolCall{{
				grepCall("g1", `^func \w+Handler\(w `, "", "*.go"), grepCall("g2", `^func Test\w+Handler\(`, "", "*_test.go"),
			}}},
			{name: "tool calls, one grep per turn", noScript: true, turns: [][]llm.ToolCall{
				{grepCall("g1", `^func \w+Handler\(w `, "", "*.go")}, {grepCall("g2", `^func Test\w+Handler\(`, "", "*_test.go")},
			}},
			{name: "one script call", turns: [][]llm.ToolCall{{call("s1", "script", argsJSON(map[string]string{"code": untestedProgram}))}}},
		},
		"TODOs per package": {
			{name: "tool calls: grep (cut at 200 lines), then one per package", noScript: true, turns: [][]llm.ToolCall{
				{grepCall("g0", "TODO", "", "*.go")}, perPkg,
			}},
			{name: "one script call", turns: [][]llm.ToolCall{{call("s1", "script", argsJSON(map[string]string{"code": todoProgram}))}}},
		},
	}
}

// promptTokens runs one exploration on dir and returns the prompt tokens
// of all its requests and the last tool result.
func promptTokens(t testing.TB, dir string, e exploration) (total, requests int, last string) {
	m := &fakeModel{step: func(_ context.Context, n int, req llm.Request, d func(llm.Delta)) (llm.Response, error) {
		if n <= len(e.turns) {
			return reply(d, "", e.turns[n-1]...), nil
		}
		return reply(d, "Here is the answer."), nil
	}}
	opts := agentOpts(t.(*testing.T), m, &eventLog{}, dir)
	opts.Registry = tools.NewRegistry(tools.Builtins(tools.Policy{})...)
	if out := Run(context.Background(), opts); out.Status != StatusFinished {
		t.Fatalf("%s: %+v", e.name, out)
	}
	c := NewCounter()
	for _, req := range m.reqs() {
		defs := req.Tools
		if e.noScript {
			defs = nil
			for _, d := range req.Tools {
				if d.Name != "script" {
					defs = append(defs, d)
				}
			}
		}
		total += c.Tools(defs)
		for _, msg := range req.Messages {
			total += c.Message(msg)
		}
		if msgs := req.Messages; len(msgs) > 0 && msgs[len(msgs)-1].Role == "tool" {
			last = msgs[len(msgs)-1].Content
		}
	}
	return total, len(m.reqs()), last
}

// TestExplorationTokens prints the figures (go test ./agent -run
// ExplorationTokens -v) and holds the goal: the script answer sends at
// least 40% fewer tokens than the cheapest plain answer.
func TestExplorationTokens(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	dir := t.TempDir()
	handlerTree(t, dir)
	for _, task := range []string{"handlers without a test", "TODOs per package"} {
		best, script := 0, 0
		for _, e := range explorations()[task] {
			n, reqs, last := promptTokens(t, dir, e)
			t.Logf("%-24s %-58s %2d requests %6d prompt tokens", task, e.name, reqs, n)
			if e.noScript && (best == 0 || n < best) {
				best = n
			}
			if !e.noScript {
				script = n
				if strings.Count(last, "\n") > 20 {
					t.Errorf("%s: the script's result is %d lines", task, strings.Count(last, "\n"))
				}
			}
		}
		saved := 100 * float64(best-script) / float64(best)
		t.Logf("%-24s script saves %.0f%% of the prompt tokens of the cheapest plain answer", task, saved)
		if saved < 40 {
			t.Errorf("%s: script saves only %.0f%%", task, saved)
		}
	}
}
