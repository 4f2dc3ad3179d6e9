package report

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"github.com/agentls/agentls/internal/testpeers"
	"github.com/agentls/agentls/internal/text"
	"github.com/agentls/agentls/tools"
)

// writeTranscript writes records as a transcript file and returns its path.
func writeTranscript(t testing.TB, dir, runID string, recs ...map[string]any) string {
	t.Helper()
	var b bytes.Buffer
	for _, r := range recs {
		line, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(append(line, '\n'))
	}
	p := filepath.Join(dir, "2026-11-25-"+runID+".jsonl")
	if err := os.WriteFile(p, b.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func render(t testing.TB, paths ...string) string {
	t.Helper()
	runs, err := Load(paths...)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := Render(&out, "test", runs); err != nil {
		t.Fatal(err)
	}
	return out.String()
}

// A 10 MB line and hostile text in every field that reaches the page:
// all of it is there as text, long results start collapsed, a secret that
// an older transcript kept is redacted, and nothing becomes markup.
func TestRenderHostileAndHuge(t *testing.T) {
	dir := t.TempDir()
	huge := strings.Repeat("é", 5<<20) // 10 MB, one line
	evil := "</style></pre><script>alert(1)</script>\x1b[2J\u202Etxt.exe"
	key := "sk-proj-abcdefghijklmnopqrstuvwxyz0123456789"
	p := writeTranscript(t, dir, "aaaaaaaaaaaa",
		map[string]any{"kind": "session", "time": "2026-11-25T10:00:00Z", "runId": "aaaaaaaaaaaa", "sessionId": "bbbbbbbbbbbb", "folders": []string{"/ws"}, "prompt": "fix " + evil},
		map[string]any{"kind": "start", "time": "2026-11-25T10:00:00Z", "runId": "aaaaaaaaaaaa", "task": "fix " + evil},
		map[string]any{"kind": "request", "time": "2026-11-25T10:00:01Z", "turn": 1},
		map[string]any{"kind": "response", "time": "2026-11-25T10:00:03.5Z", "turn": 1, "text": "key " + key + " " + evil, "usage": map[string]any{"promptTokens": 1200, "completionTokens": 34, "cachedTokens": 1000, "costUSD": 0.0123}},
		map[string]any{"kind": "tool_call", "time": "2026-11-25T10:00:04Z", "id": "c1", "name": "read_file", "args": map[string]any{"path": evil}},
		map[string]any{"kind": "tool_result", "time": "2026-11-25T10:00:05Z", "id": "c1", "name": "read_file", "summary": "read " + evil, "text": huge + "\n[output truncated: showing lines 1-1 of 9 …]"},
		map[string]any{"kind": "staged", "time": "2026-11-25T10:00:06Z", "path": "a.go", "pending": true, "diff": "--- a/a.go\n+++ b/a.go\n@@ -1 +1 @@\n-old\n+new " + evil + "\n"},
		map[string]any{"kind": "check", "time": "2026-11-25T10:00:07Z", "name": "go test", "passed": false, "exitCode": 1, "output": "FAIL " + evil},
		map[string]any{"kind": "check", "time": "2026-11-25T10:00:07Z", "name": "lint", "passed": false, "exitCode": 127, "notRun": true, "output": "could not run: sh: 1: staticcheck: not found\n"},
		map[string]any{"kind": "some_future_record", "time": "2026-11-25T10:00:07Z", "detail": evil},
		map[string]any{"kind": "finish", "time": "2026-11-25T10:00:08Z", "status": "finished", "answer": "done " + evil, "turns": 1, "toolCalls": 1, "usage": map[string]any{"promptTokens": 1200, "completionTokens": 34, "costUSD": 0.0123}},
		map[string]any{"kind": "fate", "time": "2026-11-25T10:01:00Z", "path": "/ws/a.go", "fate": "rejected", "hunks": 1, "reason": "no " + evil},
	)
	f, err := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("{\"kind\":\"tool_res") // a line cut by a crash
	f.Close()

	page := render(t, p)
	if strings.Contains(page, key) {
		t.Fatal("the API key reached the page")
	}
	doc, err := html.Parse(strings.NewReader(page))
	if err != nil {
		t.Fatal(err)
	}
	scripts, styles := 0, 0
	var hugeOpen, hugeFound bool
	for n := range doc.Descendants() {
		if n.Type != html.ElementNode {
			continue
		}
		switch n.Data {
		case "script":
			scripts++
		case "style":
			styles++
		case "pre":
			if n.FirstChild != nil && strings.HasPrefix(n.FirstChild.Data, "éééé") {
				hugeFound = true
				if !strings.Contains(n.FirstChild.Data, huge) {
					t.Error("the 10 MB result is not whole in the page")
				}
				for d := n.Parent; d != nil; d = d.Parent {
					if d.Data == "details" {
						for _, a := range d.Attr {
							hugeOpen = hugeOpen || a.Key == "open"
						}
						break
					}
				}
			}
		}
	}
	if scripts != 1 || styles != 1 {
		t.Fatalf("%d scripts and %d styles: hostile text became markup", scripts, styles)
	}
	if !hugeFound || hugeOpen {
		t.Fatalf("10 MB result found %v, open %v: it must be in the page, collapsed", hugeFound, hugeOpen)
	}
	for _, want := range []string{
		"&lt;/style&gt;&lt;/pre&gt;&lt;script&gt;alert(1)&lt;/script&gt;␛[2J⟨U&#43;202E⟩txt.exe",
		"output truncated for the model", "[REDACTED]",
		`<span class="add">&#43;new &lt;/style&gt;`, `class="badge rejected fate">rejected (1 hunk)`,
		"some_future_record", "unreadable", "{&#34;kind&#34;:&#34;tool_res",
		"1,200 in (1,000 cached) / 34 out · $0.0123", "2.5 s", "failed (exit 1)",
		`<span class="badge other">could not run</span>`, "could not run: sh: 1: staticcheck: not found",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
}

// A session report lists its runs oldest first, with the sub-agent's
// records nested under the task call that started it.
func TestSessionAndSubAgents(t *testing.T) {
	dir := t.TempDir()
	a := writeTranscript(t, dir, "111111111111",
		map[string]any{"kind": "session", "time": "2026-11-25T10:00:00Z", "runId": "111111111111", "sessionId": "ssssssssssss", "folders": []string{dir}, "prompt": "first"},
		map[string]any{"kind": "tool_call", "time": "2026-11-25T10:00:01Z", "id": "t1", "name": "task", "args": map[string]any{"description": "look", "prompt": "find the callers"}},
		map[string]any{"kind": "start", "time": "2026-11-25T10:00:02Z", "runId": "222222222222", "task": "find the callers", "subRunId": "222222222222", "parentRunId": "111111111111"},
		map[string]any{"kind": "response", "time": "2026-11-25T10:00:03Z", "turn": 1, "text": "SUB TEXT", "subRunId": "222222222222", "parentRunId": "111111111111"},
		map[string]any{"kind": "finish", "time": "2026-11-25T10:00:04Z", "status": "finished", "answer": "SUB ANSWER", "turns": 1, "subRunId": "222222222222", "parentRunId": "111111111111"},
		map[string]any{"kind": "tool_result", "time": "2026-11-25T10:00:05Z", "id": "t1", "name": "task", "summary": "look: done", "text": "SUB ANSWER"},
		map[string]any{"kind": "finish", "time": "2026-11-25T10:00:06Z", "status": "finished", "answer": "FIRST ANSWER", "turns": 2},
	)
	b := writeTranscript(t, dir, "333333333333",
		map[string]any{"kind": "session", "time": "2026-11-25T11:00:00Z", "runId": "333333333333", "sessionId": "ssssssssssss", "folders": []string{dir}, "prompt": "second"},
		map[string]any{"kind": "finish", "time": "2026-11-25T11:00:02Z", "status": "failed", "error": "model down", "turns": 1},
	)
	other := writeTranscript(t, dir, "444444444444",
		map[string]any{"kind": "session", "time": "2026-11-25T12:00:00Z", "runId": "444444444444", "sessionId": "tttttttttttt", "folders": []string{"/elsewhere"}, "prompt": "other"},
	)
	_ = other
	paths, err := SessionRuns(dir, "ssssssssssss")
	if err != nil || len(paths) != 2 {
		t.Fatalf("SessionRuns = %v, %v", paths, err)
	}
	page := render(t, b, a) // Load orders by start, whatever the argument order
	first, second := strings.Index(page, "FIRST ANSWER"), strings.Index(page, "model down")
	if first < 0 || second < first {
		t.Fatal("runs not oldest first")
	}
	task, sub, subText := strings.Index(page, `<span class="kind">task</span>`), strings.Index(page, "sub-agent 222222222222"), strings.Index(page, "SUB TEXT")
	if task < 0 || !(task < sub && sub < subText) {
		t.Fatalf("sub-agent not nested under its task call: task %d sub %d text %d", task, sub, subText)
	}
	if strings.Count(page, "sub-agent 222222222222") != 1 {
		t.Fatal("the sub-agent is shown more than once")
	}
	if !strings.Contains(page, `id="session-totals"`) {
		t.Fatal("a session page has totals")
	}
	latest, err := LatestRun(dir, dir)
	if err != nil || filepath.Base(latest) != filepath.Base(b) && filepath.Base(latest) != filepath.Base(a) {
		t.Fatalf("LatestRun = %s, %v", latest, err)
	}
	if _, err := LatestRun(dir, t.TempDir()); err == nil {
		t.Fatal("a folder with no runs has a latest run")
	}
}

// A transcript that is not ours, and a FIFO in its place, give errors, not
// a hang or an empty page.
func TestLoadRefusesWhatIsNotATranscript(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "x.jsonl")
	os.WriteFile(p, []byte("{\"kind\":\"request\"}\n"), 0o600)
	if _, err := Load(p); err == nil || !strings.Contains(err.Error(), "no run") {
		t.Fatalf("Load = %v", err)
	}
	fifo := filepath.Join(dir, "2026-11-25-555555555555.jsonl")
	if err := mkfifo(fifo); err != nil {
		testpeers.Missing(t, "mkfifo (named pipes) unavailable: %v", err)
	}
	if _, err := Load(fifo); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Fatalf("Load(fifo) = %v", err)
	}
	if _, err := LatestRun(dir, dir); err == nil {
		t.Fatal("a FIFO counted as a transcript")
	}
}

// BenchmarkRender32MiB renders a transcript at the writer's bound (32 MiB
// of tool results): the page must stay quick to make (and, collapsed, to
// open: see docs/performance.md for Chromium's load time).
func BenchmarkRender32MiB(b *testing.B) {
	dir := b.TempDir()
	recs := []map[string]any{{"kind": "session", "time": "2026-11-25T10:00:00Z", "runId": "666666666666", "prompt": "big"}}
	chunk := strings.Repeat("line of tool output\n", 3000) // 60 KB
	for i := 0; len(recs)*len(chunk) < 32<<20; i++ {
		id := "c" + string(rune('a'+i%26)) + strings.Repeat("x", i/26)
		recs = append(recs,
			map[string]any{"kind": "tool_call", "time": "2026-11-25T10:00:01Z", "id": id, "name": "grep", "args": map[string]any{"pattern": "x"}},
			map[string]any{"kind": "tool_result", "time": "2026-11-25T10:00:01Z", "id": id, "name": "grep", "summary": "many", "text": chunk})
	}
	p := writeTranscript(b, dir, "666666666666", recs...)
	fi, _ := os.Stat(p)
	b.SetBytes(fi.Size())
	b.ResetTimer()
	for range b.N {
		runs, err := Load(p)
		if err != nil {
			b.Fatal(err)
		}
		if err := Render(&bytes.Buffer{}, "big", runs); err != nil {
			b.Fatal(err)
		}
	}
}

// Visible marks controls but keeps the shape of the text: line breaks and
// tabs stay, also in a text that has something to mark; invalid bytes
// become U+FFFD.
func TestVisible(t *testing.T) {
	for in, want := range map[string]string{
		"a\n\tb":                "a\n\tb",
		"a\x1b[2J\nb\tc\u202ed": "a␛[2J\nb\tc⟨U+202E⟩d",
		"bad \xff byte\x07\n":   "bad \uFFFD byte␇\n",
		"ok \uFFFD stays\x00":   "ok \uFFFD stays␀",
		"del\x7f and \u0085 c1": "del␡ and ⟨U+0085⟩ c1",
	} {
		if got := Visible(in); got != want {
			t.Errorf("Visible(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestScriptCallsNestUnderTheScript: the calls a script's program made
// (records with parentCallId) are shown inside the script call, also in
// a sub-agent, and not as steps of their own.
func TestScriptCallsNestUnderTheScript(t *testing.T) {
	dir := t.TempDir()
	sub := func(m map[string]any) map[string]any {
		m["subRunId"], m["parentRunId"] = "222222222222", "111111111111"
		return m
	}
	p := writeTranscript(t, dir, "111111111111",
		map[string]any{"kind": "session", "time": "2026-11-25T10:00:00Z", "runId": "111111111111", "sessionId": "ssssssssssss", "folders": []string{dir}, "prompt": "first"},
		map[string]any{"kind": "tool_call", "time": "2026-11-25T10:00:01Z", "id": "t1", "name": "task", "args": map[string]any{"description": "look", "prompt": "find the callers"}},
		sub(map[string]any{"kind": "start", "time": "2026-11-25T10:00:02Z", "runId": "222222222222", "task": "find the callers"}),
		sub(map[string]any{"kind": "tool_call", "time": "2026-11-25T10:00:03Z", "id": "prog", "name": "script", "args": map[string]any{"code": "print(1)"}}),
		sub(map[string]any{"kind": "tool_call", "time": "2026-11-25T10:00:03Z", "id": "prog.1", "name": "definition", "args": `{"path":"INNER-PATH.go"}`, "parentCallId": "prog"}),
		sub(map[string]any{"kind": "tool_result", "time": "2026-11-25T10:00:03Z", "id": "prog.1", "name": "definition", "summary": "INNER-SUMMARY", "parentCallId": "prog"}),
		sub(map[string]any{"kind": "tool_result", "time": "2026-11-25T10:00:04Z", "id": "prog", "name": "script", "summary": "script: 1 tool calls", "text": "SCRIPT-OUT"}),
		sub(map[string]any{"kind": "finish", "time": "2026-11-25T10:00:05Z", "status": "finished", "answer": "SUB ANSWER", "turns": 1}),
		map[string]any{"kind": "tool_result", "time": "2026-11-25T10:00:06Z", "id": "t1", "name": "task", "summary": "look: done", "text": "SUB ANSWER"},
		map[string]any{"kind": "finish", "time": "2026-11-25T10:00:07Z", "status": "finished", "answer": "FIRST ANSWER", "turns": 2},
	)
	runs, err := Load(p)
	if err != nil {
		t.Fatal(err)
	}
	var subRun *Run
	for _, st := range runs[0].Steps {
		if st.Tool != nil && st.Tool.Name == "task" {
			subRun = st.Tool.Sub
		}
	}
	if subRun == nil {
		t.Fatal("sub-agent not under its task call")
	}
	var tools []*ToolStep
	for _, st := range subRun.Steps {
		if st.Tool != nil {
			tools = append(tools, st.Tool)
		}
	}
	if len(tools) != 1 || tools[0].Name != "script" || len(tools[0].Inner) != 1 {
		t.Fatalf("sub-agent tool steps: %+v", tools)
	}
	if in := tools[0].Inner[0]; in.Name != "definition" || in.Summary != "INNER-SUMMARY" || !in.Done {
		t.Fatalf("inner call %+v", in)
	}
	page := render(t, p)
	script, out, inner := strings.Index(page, `<span class="kind">script</span>`), strings.Index(page, "SCRIPT-OUT"), strings.Index(page, "INNER-SUMMARY")
	if script < 0 || !(script < out && out < inner) || strings.Count(page, "INNER-PATH") != 1 {
		t.Fatalf("inner call not shown once inside the script: script %d output %d inner %d", script, out, inner)
	}
}

// The language server's word on a change reads as lines, not as the
// record's JSON (issue 31).
func TestProblemsReadable(t *testing.T) {
	dir := t.TempDir()
	item, err := json.Marshal(tools.Problem{Range: text.Range{Start: text.Position{Line: 2}}, Severity: "error", Message: "undefined: x", Source: "compiler"})
	if err != nil {
		t.Fatal(err)
	}
	p := writeTranscript(t, dir, "111111111111",
		map[string]any{"kind": "session", "time": "2026-11-25T10:00:00Z", "runId": "111111111111", "folders": []string{dir}, "prompt": "fix it"},
		map[string]any{"kind": "problems", "time": "2026-11-25T10:00:01Z", "id": "e1", "path": filepath.Join(dir, "pkg", "calc.go"), "introduced": 1, "items": []json.RawMessage{item}},
		map[string]any{"kind": "problems", "time": "2026-11-25T10:00:02Z", "id": "e2", "path": filepath.Join(dir, "pkg", "calc.go"), "introduced": 0, "items": nil},
		map[string]any{"kind": "finish", "time": "2026-11-25T10:00:03Z", "status": "finished", "answer": "Fixed.", "turns": 1},
	)
	page := render(t, p)
	for _, want := range []string{"pkg/calc.go:3: error: undefined: x (compiler)", "pkg/calc.go: no problems"} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	if strings.Contains(page, "&#34;items&#34;") || strings.Contains(page, `"items"`) {
		t.Error("the page shows the problems record as JSON")
	}
}
