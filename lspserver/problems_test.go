package lspserver_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/agent/llm/llmtest"
	"github.com/agentls/agentls/internal/testwait"
	"github.com/agentls/agentls/lspserver"
	"github.com/agentls/agentls/lspserver/lsptest"
	"github.com/agentls/agentls/tools/lang/langtest"
)

// Language intelligence through the real server: gopls judges a run's
// staged edit (nothing is written to disk), the editor gets a "problems"
// runEvent with gopls's words at the right place, finished counts what the
// run left, agentls/proposals lists the problems with the proposal, the
// hunk's preview diagnostic (what eglot shows) says "Introduces 1
// problem(s)", the end message is a warning naming the count, and the
// language server is gone when the editor's session ends.
func TestProblemsThroughTheServer(t *testing.T) {
	gopls := langtest.Path(t, "gopls")
	main := "package main\n\nimport \"fmt\"\n\nfunc main() {\n\tfmt.Println(\"日本😀\", 1)\n}\n"
	script := func(req *llmtest.ChatRequest) llmtest.Reply {
		switch {
		case !req.HasToolResult("r"):
			return llmtest.ToolCalls(llmtest.Call{ID: "r", Name: "read_file", Args: `{"path":"main.go"}`})
		case !req.HasToolResult("e"):
			return llmtest.ToolCalls(llmtest.Call{ID: "e", Name: "edit_file", Args: callArgs(map[string]any{"path": "main.go", "old_string": "\"日本😀\", 1)", "new_string": "\"日本😀\", undefinedThing)"})})
		}
		return llmtest.Text("Done, though gopls disagrees.")
	}
	rs := newRunSession(t, script, runOpts{settings: map[string]any{
		"languageServers":           map[string]any{"gopls": map[string]any{"command": []any{gopls}}},
		"languageServerWaitSeconds": 30,
	}})
	rs.write(t, "go.mod", "module example.com/m\n\ngo 1.22\n")
	rs.write(t, "main.go", main)

	id := rs.start(t, lspserver.RunArgs{Prompt: "use undefinedThing"})
	evs := rs.events(t, id)
	checkSeq(t, evs)
	var probs []lspserver.RunEvent
	var starts []string
	for _, e := range evs {
		if e.Kind == "problems" {
			probs = append(probs, e)
		}
		if e.Kind == "langServer" {
			starts = append(starts, e.Summary)
		}
	}
	// gopls's cold start is told, in the run's events and its progress.
	if len(starts) != 2 || starts[0] != "starting language server gopls…" || !strings.HasPrefix(starts[1], "language server gopls ready (") {
		t.Fatalf("langServer events %q", starts)
	}
	if _, err := rs.c.Await(lsptest.Context(t), protocol.MethodProgress, func(m lsptest.Message) bool {
		return strings.Contains(string(m.Params), "starting language server gopls…")
	}); err != nil {
		t.Fatalf("no progress for gopls's start: %v", err)
	}
	if len(probs) != 1 {
		t.Fatalf("problems events: %d (%v)", len(probs), kinds(evs))
	}
	p := probs[0]
	// UTF-16 columns: the string holds 日本 (1 unit each) and 😀 (2 units).
	col := len([]rune("\tfmt.Println(\"")) + 2 + 2 + len([]rune("\", "))
	if p.URI != string(rs.uri("main.go")) || p.Introduced == nil || *p.Introduced != 1 || p.Outstanding == nil || *p.Outstanding != 1 ||
		len(p.Items) != 1 || p.Items[0].Message != "undefined: undefinedThing" || p.Items[0].Severity != protocol.DiagnosticSeverityError ||
		p.Items[0].Range.Start != (protocol.Position{Line: 5, Character: uint32(col)}) {
		t.Fatalf("problems event %+v (items %+v), want the error at 6:%d", p, p.Items, col+1)
	}
	fin := evs[len(evs)-1]
	if fin.Kind != "finished" || fin.Problems == nil || *fin.Problems != 1 {
		t.Fatalf("finished %+v", fin)
	}
	msg := rs.showMessage(t, "Agent run "+id)
	if msg.Type != protocol.MessageTypeWarning || !strings.HasSuffix(msg.Message, "1 changed file pending review (main.go); introduces 1 problem (language server)") {
		t.Fatalf("showMessage %+v", msg)
	}

	var props lspserver.ProposalsResult
	if err := rs.c.Call(lsptest.Context(t), lspserver.MethodProposals, &lspserver.ProposalsParams{}, &props); err != nil {
		t.Fatal(err)
	}
	if len(props.Proposals) != 1 || len(props.Proposals[0].Problems) != 1 || props.Proposals[0].Problems[0].Message != "undefined: undefinedThing" {
		b, _ := json.Marshal(props)
		t.Fatalf("proposals: %s", b)
	}
	d := awaitDiagnostics(t, rs.c, rs.uri("main.go"), "the problem note", func(p publishParams) bool {
		return len(p.Diagnostics) == 1 && strings.Contains(p.Diagnostics[0].Message, "Introduces 1 problem(s): line 6: undefined: undefinedThing")
	})
	if d.Diagnostics[0].Severity != int(protocol.DiagnosticSeverityWarning) {
		t.Fatalf("preview diagnostic %+v", d.Diagnostics[0])
	}
	if got, _ := os.ReadFile(filepath.Join(rs.root, "main.go")); string(got) != main {
		t.Fatalf("main.go was written: %q", got)
	}

	// The language server ends with the editor's session.
	pids := goplsUnder(rs.root)
	if len(pids) == 0 {
		t.Fatal("no gopls serving the workspace")
	}
	if err := rs.c.Shutdown(lsptest.Context(t)); err != nil {
		t.Fatal(err)
	}
	rs.c.Exit(lsptest.Context(t))
	deadline := time.Now().Add(testwait.Limit)
	for len(goplsUnder(rs.root)) > 0 {
		if time.Now().After(deadline) {
			t.Fatalf("gopls still running after exit: %v", goplsUnder(rs.root))
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// goplsUnder lists gopls processes whose working directory is root.
func goplsUnder(root string) []int {
	var out []int
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		cwd, err := os.Readlink(filepath.Join("/proc", e.Name(), "cwd"))
		comm, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "comm"))
		if err == nil && cwd == root && strings.TrimSpace(string(comm)) == "gopls" {
			out = append(out, pid)
		}
	}
	return out
}

// BenchmarkLanguageServerRSS measures resident memory with language
// intelligence on: the built agentls binary and the gopls it started
// (with gopls's children), after b.N runs that each edit the 52-file
// module twice (breaking and fixing p2/f5.go) with gopls checking every
// edit.
//
//	go test ./lspserver -run '^$' -bench LanguageServerRSS -benchtime 5x
func BenchmarkLanguageServerRSS(b *testing.B) {
	gopls := langtest.Path(b, "gopls")
	ws := b.TempDir()
	langtest.GoModule(b, ws)
	edit := func(id, old, new string) llmtest.Call {
		return llmtest.Call{ID: id, Name: "edit_file", Args: callArgs(map[string]any{"path": "p2/f5.go", "old_string": old, "new_string": new})}
	}
	srv := llmtest.New(b, func(req *llmtest.ChatRequest) llmtest.Reply {
		switch {
		case !req.HasToolResult("r"):
			return llmtest.ToolCalls(llmtest.Call{ID: "r", Name: "read_file", Args: `{"path":"p2/f5.go"}`})
		case !req.HasToolResult("e1"):
			return llmtest.ToolCalls(edit("e1", "return n + p1.Count5(n)", "return n + p1.Count5(undefinedThing)"))
		case !req.HasToolResult("e2"):
			return llmtest.ToolCalls(edit("e2", "return n + p1.Count5(undefinedThing)", "return n + p1.Count5(n)"))
		}
		return llmtest.Text("done")
	})
	b.Setenv("XDG_STATE_HOME", b.TempDir())
	b.Setenv("XDG_CONFIG_HOME", b.TempDir())
	b.Setenv("OPENAI_BASE_URL", "")
	b.Setenv("AGENTLS_MODEL", "")
	b.Setenv("OPENAI_API_KEY", "sk-rss-bench-0123456789abcdef")
	c := lsptest.StartBinary(b, lsptest.BuildBinary(b))
	ctx := lsptest.Context(b)
	if _, err := c.Initialize(ctx, lsptest.InitOptions{Folders: []string{ws}, InitializationOptions: map[string]any{
		"model":                     map[string]any{"baseURL": srv.URL(), "name": "test-model"},
		"languageServers":           map[string]any{"gopls": map[string]any{"command": []any{gopls}}},
		"languageServerWaitSeconds": 60,
		"preview":                   map[string]any{"diagnostics": false},
	}}); err != nil {
		b.Fatal(err)
	}
	pid := c.Cmd.Process.Pid
	b.ResetTimer()
	for range b.N {
		var res lspserver.RunResult
		if err := c.Call(ctx, protocol.MethodWorkspaceExecuteCommand, command(lspserver.CommandRun, lspserver.RunArgs{Prompt: "break and fix"}), &res); err != nil {
			b.Fatal(err)
		}
		if _, err := c.Await(ctx, lspserver.MethodRunEvent, func(m lsptest.Message) bool {
			var e lspserver.RunEvent
			return json.Unmarshal(m.Params, &e) == nil && e.RunID == res.RunID && (e.Kind == "finished" || e.Kind == "failed" || e.Kind == "cancelled")
		}); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	servers := goplsChildren(pid)
	if len(servers) == 0 {
		b.Fatal("no language server process under agentls")
	}
	total := 0.0
	for _, p := range servers {
		total += vmRSS(b, p)
		for _, g := range goplsChildren(p) {
			total += vmRSS(b, g)
		}
	}
	b.ReportMetric(vmRSS(b, pid), "agentls-MB")
	b.ReportMetric(total, "gopls-MB")
}

// goplsChildren lists the children of pid (agentls's language servers,
// gopls's telemetry child).
func goplsChildren(pid int) []int {
	var out []int
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		st, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		s := string(st)
		f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
		if len(f) > 1 && f[1] == strconv.Itoa(pid) {
			n, _ := strconv.Atoi(e.Name())
			out = append(out, n)
		}
	}
	return out
}
