package lspserver_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/agentls/agentls/agent/llm/llmtest"
	"github.com/agentls/agentls/internal/testpeers"
	"github.com/agentls/agentls/internal/testtree"
	"github.com/agentls/agentls/lspserver"
	"github.com/agentls/agentls/lspserver/lsptest"
)

// The checks loop through the real server, in preview mode: a run adds a
// buggy function and its test, gets the real `go test` failure back,
// fixes it, and ends with the check passed. The editor sees check events
// with the output and finished.checks; plugin-less clients (eglot) see the
// outcome in the end showMessage. The user's files, an unsaved buffer
// among them, are untouched, and no scratch copy is left behind.
func TestChecksLoopThroughTheServer(t *testing.T) {
	testpeers.LookPath(t, "go", "the Go toolchain")
	viewDir := t.TempDir()
	var feedback string
	script := func(req *llmtest.ChatRequest) llmtest.Reply {
		switch req.Turns() {
		case 0:
			return llmtest.ToolCalls(llmtest.Call{ID: "r1", Name: "read_file", Args: `{"path":"calc.go"}`})
		case 1:
			return llmtest.ToolCalls(
				llmtest.Call{ID: "e1", Name: "edit_file", Args: callArgs(map[string]any{"path": "calc.go", "old_string": "// END\n", "new_string": "// Sub returns a - b.\nfunc Sub(a, b int) int { return a + b }\n\n// END\n"})},
				llmtest.Call{ID: "w1", Name: "write_file", Args: callArgs(map[string]any{"path": "sub_test.go", "content": "package calc\n\nimport \"testing\"\n\nfunc TestSub(t *testing.T) {\n\tif got := Sub(5, 3); got != 2 {\n\t\tt.Fatalf(\"Sub(5, 3) = %d, want 2\", got)\n\t}\n}\n"})})
		case 2:
			return llmtest.Text("Added Sub.")
		case 3:
			feedback = req.LastUser()
			return llmtest.ToolCalls(llmtest.Call{ID: "e2", Name: "edit_file", Args: callArgs(map[string]any{"path": "calc.go", "old_string": "return a + b }\n\n// END", "new_string": "return a - b }\n\n// END"})})
		}
		return llmtest.Text("Fixed Sub.")
	}
	rs := newRunSession(t, script, runOpts{
		settings: map[string]any{"checks": []any{map[string]any{"name": "test", "command": "go test ./...", "paths": []any{"**/*.go"}}}},
		runOpts:  lspserver.RunOptions{ViewDir: viewDir},
	})
	rs.write(t, "go.mod", "module example.com/calc\n\ngo 1.21\n")
	rs.write(t, "calc.go", "package calc\n\n// Add returns a + b.\nfunc Add(a, b int) int { return a - b }\n\n// END\n")
	rs.write(t, "calc_test.go", "package calc\n\nimport \"testing\"\n\nfunc TestAdd(t *testing.T) {\n\tif Add(2, 3) != 5 {\n\t\tt.Fatal(\"Add(2, 3) != 5\")\n\t}\n}\n")
	before := testtree.Take(t, rs.root)
	// The disk's Add is wrong; the editor's unsaved buffer has it right:
	// the checks see the buffer.
	ctx := lsptest.Context(t)
	if err := rs.c.DidOpen(ctx, rs.uri("calc.go"), "go", 1, "package calc\n\n// Add returns a + b.\nfunc Add(a, b int) int { return a + b }\n\n// END\n"); err != nil {
		t.Fatal(err)
	}

	id := rs.start(t, lspserver.RunArgs{Prompt: "Add Sub with a test."})
	evs := rs.events(t, id)
	checkSeq(t, evs)
	var checks []lspserver.RunEvent
	for _, e := range evs {
		if e.Kind == "check" {
			checks = append(checks, e)
		}
	}
	if len(checks) != 2 {
		t.Fatalf("check events: %d (%v)", len(checks), kinds(evs))
	}
	bad, good := checks[0], checks[1]
	if bad.Name != "test" || bad.Passed == nil || *bad.Passed || bad.ExitCode == nil || *bad.ExitCode != 1 || bad.Seconds == nil || *bad.Seconds <= 0 ||
		bad.Output == nil || !strings.Contains(*bad.Output, "--- FAIL: TestSub") || strings.Contains(*bad.Output, "TestAdd") {
		t.Fatalf("first check event %+v (output %q)", bad, deref(bad.Output))
	}
	if good.Passed == nil || !*good.Passed || good.ExitCode == nil || *good.ExitCode != 0 || good.Output == nil || !strings.Contains(*good.Output, "ok") {
		t.Fatalf("second check event %+v", good)
	}
	if !strings.Contains(feedback, "Sub(5, 3) = 8, want 2") {
		t.Fatalf("the model's next turn lacks the failure:\n%s", feedback)
	}
	fin := evs[len(evs)-1]
	if fin.Kind != "finished" || !slices.Equal(fin.Checks, []lspserver.CheckState{{Name: "test", Passed: true}}) || fin.Pending == nil || *fin.Pending != 2 {
		t.Fatalf("finished %+v", fin)
	}
	msg := rs.showMessage(t, "Agent run "+id)
	if msg.Type != protocol.MessageTypeInfo || msg.Message != "Agent run "+id+" finished: Fixed Sub; checks passed (test); 2 changed files pending review (calc.go, sub_test.go)" {
		t.Fatalf("showMessage %+v", msg)
	}
	testtree.Same(t, before, rs.root)
	if left, _ := os.ReadDir(viewDir); len(left) != 0 {
		t.Fatalf("proposal view left behind: %v", left)
	}
}

// A check still failing at the end: finished carries it, and the end
// message is a warning that names it.
func TestChecksStillFailingThroughTheServer(t *testing.T) {
	t.Parallel()
	viewDir := t.TempDir()
	script := func(req *llmtest.ChatRequest) llmtest.Reply {
		if req.Turns() == 0 {
			return llmtest.ToolCalls(llmtest.Call{ID: "w1", Name: "write_file", Args: `{"path":"a.txt","content":"new\n"}`})
		}
		return llmtest.Text("Done.")
	}
	rs := newRunSession(t, script, runOpts{
		settings: map[string]any{"maxCheckRounds": 0, "checks": []any{
			map[string]any{"name": "lint", "command": "printf '\\033[31mE501\\033[0m line too long\\n'; exit 2"},
			map[string]any{"name": "never", "command": "true", "paths": []any{"*.go"}}}},
		runOpts: lspserver.RunOptions{ViewDir: viewDir},
	})
	id := rs.start(t, lspserver.RunArgs{Prompt: "write a"})
	evs := rs.events(t, id)
	var check lspserver.RunEvent
	for _, e := range evs {
		if e.Kind == "check" {
			check = e
		}
	}
	if check.Name != "lint" || *check.Passed || *check.ExitCode != 2 || *check.Output != "E501 line too long\n" {
		t.Fatalf("check %+v output %q", check, deref(check.Output))
	}
	if fin := evs[len(evs)-1]; !slices.Equal(fin.Checks, []lspserver.CheckState{{Name: "lint", Passed: false}}) {
		t.Fatalf("finished.checks %+v", fin.Checks)
	}
	if msg := rs.showMessage(t, "Agent run "+id); msg.Type != protocol.MessageTypeWarning || !strings.Contains(msg.Message, "finished: Done; checks failed: lint (exit code 2); 1 changed file pending review") {
		t.Fatalf("showMessage %+v", msg)
	}
	if len(rs.model.Requests()) != 2 {
		t.Fatalf("maxCheckRounds 0 sent the run back: %d model calls", len(rs.model.Requests()))
	}
}

// A check whose command is not installed could not run: the runEvent says
// so with the shell's line and the PATH hint, the progress names it, the
// end message is a warning that says "could not run" (not "failed"), and
// the model is not sent back: two model calls, as without checks.
func TestCheckThatCannotRunThroughTheServer(t *testing.T) {
	t.Parallel()
	script := func(req *llmtest.ChatRequest) llmtest.Reply {
		if req.Turns() == 0 {
			return llmtest.ToolCalls(llmtest.Call{ID: "w1", Name: "write_file", Args: `{"path":"a.txt","content":"new\n"}`})
		}
		return llmtest.Text("Done.")
	}
	rs := newRunSession(t, script, runOpts{
		settings: map[string]any{"checks": []any{map[string]any{"name": "test", "command": "definitely-not-installed-xyz --run"}}},
		runOpts:  lspserver.RunOptions{ViewDir: t.TempDir()},
	})
	id := rs.start(t, lspserver.RunArgs{Prompt: "write a"})
	if _, err := rs.c.Await(lsptest.Context(t), protocol.MethodProgress, func(m lsptest.Message) bool {
		return strings.Contains(string(m.Params), "check test could not run: sh: 1: definitely-not-installed-xyz: not found")
	}); err != nil {
		t.Fatalf("no progress saying the check could not run: %v", err)
	}
	evs := rs.events(t, id)
	var checks []lspserver.RunEvent
	for _, e := range evs {
		if e.Kind == "check" {
			checks = append(checks, e)
		}
	}
	if len(checks) != 1 {
		t.Fatalf("check events: %d (%v)", len(checks), kinds(evs))
	}
	c := checks[0]
	if c.Name != "test" || !c.NotRun || c.Passed == nil || *c.Passed || c.ExitCode == nil || *c.ExitCode != 127 || c.Output == nil ||
		!strings.HasPrefix(*c.Output, "could not run: sh: 1: definitely-not-installed-xyz: not found\n") || !strings.Contains(*c.Output, "not on the PATH the check ran with (PATH=") {
		t.Fatalf("check event %+v output %q", c, deref(c.Output))
	}
	if fin := evs[len(evs)-1]; fin.Kind != "finished" || !slices.Equal(fin.Checks, []lspserver.CheckState{{Name: "test", NotRun: true}}) {
		t.Fatalf("finished %+v", fin)
	}
	msg := rs.showMessage(t, "Agent run "+id)
	if msg.Type != protocol.MessageTypeWarning || !strings.Contains(msg.Message, "finished: Done; could not run: test (sh: 1: definitely-not-installed-xyz: not found; is it on the PATH agentls runs with?); 1 changed file pending review") ||
		strings.Contains(msg.Message, "checks failed") {
		t.Fatalf("showMessage %+v", msg)
	}
	if n := len(rs.model.Requests()); n != 2 {
		t.Fatalf("a check that could not run sent the run back: %d model calls", n)
	}
}

func deref(s *string) string {
	if s == nil {
		return "<nil>"
	}
	return *s
}

// A running check shows in the run's progress ("running check NAME") while
// it runs, instead of the last tool step: the check passes only if the
// editor was told while it ran.
func TestCheckStartInProgress(t *testing.T) {
	t.Parallel()
	marker := filepath.Join(t.TempDir(), "seen")
	script := func(req *llmtest.ChatRequest) llmtest.Reply {
		if !req.HasToolResult("w1") {
			return llmtest.ToolCalls(llmtest.Call{ID: "w1", Name: "write_file", Args: `{"path":"state.txt","content":"x\n"}`})
		}
		return llmtest.Text("Wrote it.")
	}
	rs := newRunSession(t, script, runOpts{
		settings: map[string]any{"checks": []any{map[string]any{"name": "slow",
			"command": "for i in $(seq 200); do [ -f '" + marker + "' ] && exit 0; sleep 0.05; done; echo never shown; exit 1"}}},
		runOpts: lspserver.RunOptions{ViewDir: t.TempDir()},
	})
	id := rs.start(t, lspserver.RunArgs{Prompt: "write state"})
	if _, err := rs.c.Await(lsptest.Context(t), protocol.MethodProgress, func(m lsptest.Message) bool {
		return strings.Contains(string(m.Params), "running check slow")
	}); err != nil {
		t.Fatalf("no progress for the running check: %v", err)
	}
	if err := os.WriteFile(marker, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := rs.c.Await(lsptest.Context(t), protocol.MethodProgress, func(m lsptest.Message) bool {
		return strings.Contains(string(m.Params), "check slow passed in ")
	}); err != nil {
		t.Fatalf("no progress with the check's result and time: %v", err)
	}
	evs := rs.events(t, id)
	if fin := evs[len(evs)-1]; fin.Kind != "finished" || !slices.Equal(fin.Checks, []lspserver.CheckState{{Name: "slow", Passed: true}}) {
		t.Fatalf("finished %+v", fin)
	}
	for _, e := range evs {
		if e.Kind == "checkStarted" {
			t.Fatalf("a runEvent of kind %q reached the editor (progress only)", e.Kind)
		}
	}
}

// In apply mode the editor holds the run's changes in unsaved buffers:
// checks judge those buffers (the proposal view writes them over the
// disk), not the old text on disk, and the user's files stay as they are.
func TestChecksSeeApplyModeBuffers(t *testing.T) {
	t.Parallel()
	script := stepsScript("Changed b.",
		readCall("r1", "calc.go"),
		editCall("e1", "calc.go", "return 2", "return 20"))
	viewDir := t.TempDir()
	rs, ed := applySession(t, script, "", runOpts{
		settings: map[string]any{"maxCheckRounds": 1, "checks": []any{map[string]any{"name": "has20",
			"command": "grep -q 'return 20' calc.go || { echo 'calc.go lacks return 20'; exit 1; }"}}},
		runOpts: lspserver.RunOptions{ViewDir: viewDir},
	})
	const original = "package calc\n\nfunc b() int { return 2 }\n"
	path := rs.write(t, "calc.go", original)
	ed.open(t, uri.File(path), original)
	id := rs.start(t, lspserver.RunArgs{Prompt: "make b return 20"})
	evs := rs.events(t, id)
	fin := evs[len(evs)-1]
	if fin.Kind != "finished" || !slices.Equal(fin.Checks, []lspserver.CheckState{{Name: "has20", Passed: true}}) {
		for _, e := range evs {
			if e.Kind == "check" {
				t.Logf("check %s: %s", e.Name, deref(e.Output))
			}
		}
		t.Fatalf("finished %+v: the check did not see the applied, unsaved change", fin)
	}
	if got, _ := ed.text(uri.File(path)); got != strings.Replace(original, "return 2", "return 20", 1) {
		t.Fatalf("editor text %q", got)
	}
	if d, _ := os.ReadFile(path); string(d) != original {
		t.Fatalf("the file on disk changed: %q", d)
	}
	if left, _ := os.ReadDir(viewDir); len(left) != 0 {
		t.Fatalf("proposal view left behind: %v", left)
	}
}
