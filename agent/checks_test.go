package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentls/agentls/agent/llm/llmtest"
	"github.com/agentls/agentls/internal/overlay"
	"github.com/agentls/agentls/internal/scratch"
	"github.com/agentls/agentls/internal/testpeers"
	"github.com/agentls/agentls/internal/testtree"
	"github.com/agentls/agentls/internal/testwait"
	"github.com/agentls/agentls/internal/workspace"
	"github.com/agentls/agentls/tools"
)

// allowAll approves every command (run_command) without asking.
type allowAll struct{}

func (allowAll) Approve(context.Context, tools.ApprovalRequest) (tools.Decision, error) {
	return tools.AllowAlways, nil
}

// checkRun is a run over a project on disk with the built-in tools,
// run_command allowed, and its proposal view in a temporary base dir.
type checkRun struct {
	root, base string
	env        *tools.Env
	log        *eventLog
	before     testtree.Snapshot
}

func newCheckRun(t *testing.T, files map[string]string) *checkRun {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	root := filepath.Join(dir, "project")
	for p, c := range files {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(root, p)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, p), []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	view := workspace.New(workspace.Options{Folders: []string{root}})
	env := tools.NewEnv("checks-run", view, allowAll{}, tools.Policy{RunCommand: "ask"})
	cr := &checkRun{root: root, base: t.TempDir(), env: env, log: &eventLog{}, before: testtree.Take(t, root)}
	env.Proposal.BaseDir = cr.base
	return cr
}

func (cr *checkRun) run(t *testing.T, ctx context.Context, srv *llmtest.Server, checks ...tools.Check) Outcome {
	t.Helper()
	return Run(ctx, Options{
		Model:        newClient(t, srv),
		Registry:     tools.NewRegistry(tools.Builtins(cr.env.Policy)...),
		Env:          cr.env,
		Prompt:       "do the task",
		OnEvent:      cr.log.on,
		Checks:       checks,
		NoAgentTools: true,
	})
}

// untouched asserts what every test here promises: the user's files are
// byte for byte what they were, and no scratch copy is left behind.
func (cr *checkRun) untouched(t *testing.T) {
	t.Helper()
	testtree.Same(t, cr.before, cr.root)
	scratch.WaitRemovals() // views are deleted in the background
	if entries, err := os.ReadDir(cr.base); err != nil || len(entries) != 0 {
		t.Fatalf("proposal view left behind: %v %v", entries, err)
	}
}

func (cr *checkRun) checkEvents() []tools.CheckResult {
	var out []tools.CheckResult
	for _, e := range cr.log.all() {
		if e.Kind == EventCheck {
			out = append(out, *e.Check)
		}
	}
	return out
}

const goCalc = "package calc\n\n// Add returns a + b.\nfunc Add(a, b int) int { return a + b }\n"
const goCalcTest = "package calc\n\nimport \"testing\"\n\nfunc TestAdd(t *testing.T) {\n\tif got := Add(2, 3); got != 5 {\n\t\tt.Fatalf(\"Add(2, 3) = %d, want 5\", got)\n\t}\n}\n"

// The loop this feature exists for, with the real go toolchain: the run
// adds a function with a bug and a test for it, sees the real `go test`
// failure in its next turn, fixes the bug, and ends with the check
// passed, in preview mode: the user's files are untouched and the scratch
// copy is gone. run_command along the way sees the staged text.
func TestChecksFailThenFixGoTest(t *testing.T) {
	testpeers.LookPath(t, "go", "the Go toolchain")
	cr := newCheckRun(t, map[string]string{"go.mod": "module example.com/calc\n\ngo 1.21\n", "calc.go": goCalc, "calc_test.go": goCalcTest})
	withSub := goCalcTest + "\nfunc TestSub(t *testing.T) {\n\tif got := Sub(5, 3); got != 2 {\n\t\tt.Fatalf(\"Sub(5, 3) = %d, want 2\", got)\n\t}\n}\n"
	var feedback string
	srv := llmtest.New(t, func(req *llmtest.ChatRequest) llmtest.Reply {
		switch req.Turns() {
		case 0:
			return llmtest.ToolCalls(llmtest.Call{ID: "r1", Name: "read_file", Args: `{"path":"calc.go"}`}, llmtest.Call{ID: "r2", Name: "read_file", Args: `{"path":"calc_test.go"}`})
		case 1:
			return llmtest.ToolCalls(
				llmtest.Call{ID: "e1", Name: "edit_file", Args: jsonArgs(map[string]any{"path": "calc.go", "old_string": "func Add(a, b int) int { return a + b }\n", "new_string": "func Add(a, b int) int { return a + b }\n\n// Sub returns a - b.\nfunc Sub(a, b int) int { return a + b }\n"})},
				llmtest.Call{ID: "w1", Name: "write_file", Args: jsonArgs(map[string]any{"path": "calc_test.go", "content": withSub})})
		case 2:
			return llmtest.ToolCalls(llmtest.Call{ID: "c1", Name: "run_command", Args: `{"command":"grep -n 'func Sub' calc.go; pwd"}`})
		case 3:
			return llmtest.Text("Added Sub with a test.")
		case 4:
			feedback = req.LastUser()
			return llmtest.ToolCalls(llmtest.Call{ID: "e2", Name: "edit_file", Args: jsonArgs(map[string]any{"path": "calc.go", "old_string": "func Sub(a, b int) int { return a + b }", "new_string": "func Sub(a, b int) int { return a - b }"})})
		}
		return llmtest.Text("Fixed Sub: it subtracted nothing.")
	})
	out := cr.run(t, context.Background(), srv, tools.Check{Name: "test", Command: "go test ./...", Timeout: 5 * time.Minute})
	if out.Status != StatusFinished || out.Answer != "Fixed Sub: it subtracted nothing." {
		t.Fatalf("outcome %v %v %q", out.Status, out.Err, out.Answer)
	}
	reqs := srv.Requests()
	cmdOut, _ := reqs[3].ToolResult("c1")
	if !strings.Contains(cmdOut, "func Sub(a, b int) int { return a + b }") || !strings.Contains(cmdOut, "ran in the proposal view") ||
		!strings.Contains(cmdOut, cr.base) && !strings.Contains(cmdOut, "an overlay view") {
		t.Fatalf("run_command did not see the staged text in the view:\n%s", cmdOut)
	}
	for _, want := range []string{`check "test" failed (exit code 1`, "go test ./...", "--- FAIL: TestSub", "Sub(5, 3) = 8, want 2", "FAIL", "round 1 of 2"} {
		if !strings.Contains(feedback, want) {
			t.Fatalf("the model's next turn lacks %q:\n%s", want, feedback)
		}
	}
	evs := cr.checkEvents()
	if len(evs) != 2 || evs[0].Passed || evs[0].ExitCode != 1 || !evs[1].Passed || evs[1].ExitCode != 0 || !strings.Contains(evs[1].Output, "ok") || evs[1].Seconds <= 0 {
		t.Fatalf("check events %+v", evs)
	}
	if len(out.Checks) != 1 || !out.Checks[0].Passed || out.Checks[0].Name != "test" {
		t.Fatalf("outcome checks %+v", out.Checks)
	}
	last := cr.log.all()[len(cr.log.all())-1]
	if last.Kind != EventFinished || len(last.Checks) != 1 || !last.Checks[0].Passed {
		t.Fatalf("finished event %+v", last)
	}
	if f, _ := cr.env.Changes.Get(filepath.Join(cr.root, "calc.go")); !strings.Contains(f.Text, "return a - b") {
		t.Fatalf("staged calc.go:\n%s", f.Text)
	}
	cr.untouched(t)
}

// The same loop with pytest (Debian's python3-pytest).
func TestChecksFailThenFixPytest(t *testing.T) {
	python := testpeers.Pytest(t)
	cr := newCheckRun(t, map[string]string{
		"calc.py":            "def add(a, b):\n    return a + b\n",
		"tests/test_calc.py": "from calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n",
		"pytest.ini":         "[pytest]\npythonpath = .\n",
	})
	var feedback string
	srv := llmtest.New(t, func(req *llmtest.ChatRequest) llmtest.Reply {
		switch req.Turns() {
		case 0:
			return llmtest.ToolCalls(llmtest.Call{ID: "r1", Name: "read_file", Args: `{"path":"calc.py"}`}, llmtest.Call{ID: "r2", Name: "read_file", Args: `{"path":"tests/test_calc.py"}`})
		case 1:
			return llmtest.ToolCalls(
				llmtest.Call{ID: "e1", Name: "write_file", Args: jsonArgs(map[string]any{"path": "calc.py", "content": "def add(a, b):\n    return a + b\n\n\ndef mul(a, b):\n    return a + b\n"})},
				llmtest.Call{ID: "e2", Name: "write_file", Args: jsonArgs(map[string]any{"path": "tests/test_calc.py", "content": "from calc import add, mul\n\n\ndef test_add():\n    assert add(2, 3) == 5\n\n\ndef test_mul():\n    assert mul(4, 5) == 20\n"})})
		case 2:
			return llmtest.Text("Added mul.")
		case 3:
			feedback = req.LastUser()
			return llmtest.ToolCalls(llmtest.Call{ID: "e3", Name: "edit_file", Args: jsonArgs(map[string]any{"path": "calc.py", "old_string": "def mul(a, b):\n    return a + b", "new_string": "def mul(a, b):\n    return a * b"})})
		}
		return llmtest.Text("Fixed mul.")
	})
	out := cr.run(t, context.Background(), srv, tools.Check{Name: "pytest", Command: python + " -m pytest -q -p no:cacheprovider", Paths: []string{"*.py"}})
	if out.Status != StatusFinished || len(out.Checks) != 1 || !out.Checks[0].Passed {
		t.Fatalf("outcome %v %v checks %+v", out.Status, out.Err, out.Checks)
	}
	for _, want := range []string{`check "pytest" failed (exit code 1`, "def test_mul", "assert 9 == 20", "1 failed, 1 passed"} {
		if !strings.Contains(feedback, want) {
			t.Fatalf("the model's next turn lacks %q:\n%s", want, feedback)
		}
	}
	if evs := cr.checkEvents(); len(evs) != 2 || evs[0].Passed || !evs[1].Passed || !strings.Contains(evs[1].Output, "2 passed") {
		t.Fatalf("check events %+v", evs)
	}
	cr.untouched(t)
}

// stageThenFinish is a model that stages one new file, then answers.
func stageThenFinish(t *testing.T) *llmtest.Server {
	return llmtest.New(t, func(req *llmtest.ChatRequest) llmtest.Reply {
		if req.Turns() == 0 {
			return llmtest.ToolCalls(llmtest.Call{ID: "w1", Name: "write_file", Args: `{"path":"new.txt","content":"staged\n"}`})
		}
		return llmtest.Text("done")
	})
}

func jsonArgs(v map[string]any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// A check that hangs is killed at its timeout with everything it started;
// it fails like any other check and goes back to the model, bounded by the
// rounds.
func TestCheckTimeoutKillsItsProcesses(t *testing.T) {
	cr := newCheckRun(t, map[string]string{"a.txt": "a\n"})
	pidDir := t.TempDir()
	srv := stageThenFinish(t)
	out := cr.run(t, context.Background(), srv, tools.Check{Name: "hang", Command: "sleep 300 & echo $! > " + pidDir + "/child.pid; echo started; wait", Timeout: time.Second})
	if out.Status != StatusFinished || len(out.Checks) != 1 || out.Checks[0].Passed || out.Checks[0].ExitCode != -1 {
		t.Fatalf("outcome %v checks %+v", out.Status, out.Checks)
	}
	if o := out.Checks[0].Output; !strings.HasPrefix(o, "started\n") || !strings.Contains(o, "killed after 1s") {
		t.Fatalf("output %q", o)
	}
	testwait.ProcessGone(t, filepath.Join(pidDir, "child.pid"))
	// Two rounds back to the model (default), then the run ends with the
	// failure reported: 2 + 2 model calls, 3 check runs.
	if n := len(srv.Requests()); n != 4 || len(cr.checkEvents()) != 3 {
		t.Fatalf("%d model calls, %d check runs", n, len(cr.checkEvents()))
	}
	if last := srv.Requests()[3].LastUser(); !strings.Contains(last, `check "hang" failed (timed out`) || !strings.Contains(last, "round 2 of 2") {
		t.Fatalf("feedback %q", last)
	}
	cr.untouched(t)
}

// 100 MB of output: the check result keeps a bounded tail.
func TestCheckHugeOutputIsBounded(t *testing.T) {
	cr := newCheckRun(t, map[string]string{"a.txt": "a\n"})
	srv := stageThenFinish(t)
	opts := tools.Check{Name: "loud", Command: "head -c 100000000 /dev/zero | tr '\\0' 'y' | fold -w 100; echo LAST-LINE; exit 1"}
	out := Run(context.Background(), Options{Model: newClient(t, srv), Registry: tools.NewRegistry(tools.Builtins(cr.env.Policy)...), Env: cr.env,
		Prompt: "x", OnEvent: cr.log.on, Checks: []tools.Check{opts}, NoAgentTools: true, Limits: Limits{MaxCheckRounds: 1}})
	res := out.Checks[0]
	if res.Passed || res.ExitCode != 1 || len(res.Output) > 17<<10 || !strings.HasSuffix(res.Output, "LAST-LINE\n") || !strings.HasPrefix(res.Output, "[... ") {
		t.Fatalf("%d bytes of output, exit %d: %.100q", len(res.Output), res.ExitCode, res.Output)
	}
	if fb := srv.Requests()[2].LastUser(); len(fb) > 20<<10 || !strings.Contains(fb, "LAST-LINE") {
		t.Fatalf("feedback of %d bytes", len(fb))
	}
	cr.untouched(t)
}

// A check gets no stdin (EOF at once, never the terminal); one that wrecks
// the scratch copy harms nothing, and the next check sees the proposal whole.
func TestCheckStdinAndDestructiveChecks(t *testing.T) {
	cr := newCheckRun(t, map[string]string{"a.txt": "a\n", "dir/b.txt": "b\n"})
	srv := stageThenFinish(t)
	out := cr.run(t, context.Background(), srv,
		tools.Check{Name: "stdin", Command: "if read line; then echo got input; exit 1; fi; echo no stdin", Timeout: time.Minute},
		tools.Check{Name: "wreck", Command: "rm -rf ./* ./.[!.]* && echo gone > a.txt && ls -A"},
		tools.Check{Name: "whole", Command: "cat a.txt dir/b.txt new.txt"})
	if out.Status != StatusFinished || len(out.Checks) != 3 {
		t.Fatalf("outcome %v %+v", out.Status, out.Checks)
	}
	for _, c := range out.Checks {
		if !c.Passed {
			t.Fatalf("check %s failed: %q", c.Name, c.Output)
		}
	}
	if out.Checks[0].Output != "no stdin\n" || out.Checks[1].Output != "a.txt\n" || out.Checks[2].Output != "a\nb\nstaged\n" {
		t.Fatalf("outputs %q %q %q", out.Checks[0].Output, out.Checks[1].Output, out.Checks[2].Output)
	}
	cr.untouched(t)
}

// A check runs on the proposal in an overlay view where the kernel allows
// one, and in a copy when it does not (forced here with
// AGENTLS_PROPOSAL_VIEW=copy): either way it sees the staged file and the
// editor's unsaved text over the disk's, what it writes or deletes never
// reaches the user's files, the next check sees the proposal whole again,
// and the result names the view it ran in.
func TestChecksSeeTheProposalInEitherView(t *testing.T) {
	t.Run(tools.ViewOverlay, func(t *testing.T) {
		if err := overlay.Supported(); err != nil {
			t.Fatalf("this machine cannot mount an overlay view, which CI must prove works: %v", err)
		}
		testChecksSeeTheProposal(t, tools.ViewOverlay)
	})
	t.Run(tools.ViewCopy, func(t *testing.T) {
		t.Setenv(overlay.EnvMode, "copy")
		testChecksSeeTheProposal(t, tools.ViewCopy)
	})
}

func testChecksSeeTheProposal(t *testing.T, kind string) {
	cr := newCheckRun(t, map[string]string{"a.txt": "disk a\n", "buf.txt": "disk buffer\n", "dir/b.txt": "b\n"})
	cr.env.View.Open(filepath.Join(cr.root, "buf.txt"), 1, "unsaved buffer\n")
	srv := stageThenFinish(t)
	out := cr.run(t, context.Background(), srv,
		tools.Check{Name: "sees", Command: "cat new.txt buf.txt a.txt"},
		tools.Check{Name: "wreck", Command: "echo mine > a.txt && rm -f buf.txt && rm -rf dir && echo made > made.txt && ls"},
		tools.Check{Name: "whole", Command: "cat a.txt buf.txt dir/b.txt"})
	if out.Status != StatusFinished || len(out.Checks) != 3 {
		t.Fatalf("outcome %v %+v", out.Status, out.Checks)
	}
	want := []string{"staged\nunsaved buffer\ndisk a\n", "a.txt\nmade.txt\nnew.txt\n", "disk a\nunsaved buffer\nb\n"}
	for i, c := range out.Checks {
		if !c.Passed || c.Output != want[i] || !c.InView || c.View != kind {
			t.Fatalf("check %s: passed %v, view %q (want %q), output %q (want %q)", c.Name, c.Passed, c.View, kind, c.Output, want[i])
		}
	}
	if w := out.Checks[0].Where(); !strings.Contains(w, map[string]string{tools.ViewOverlay: "an overlay view", tools.ViewCopy: "a copy"}[kind]) {
		t.Fatalf("where: %q", w)
	}
	cr.untouched(t)
}

// When the proposal view cannot be made, the run says so and ends without
// checks: the model is not sent back for something it cannot fix.
func TestChecksWithoutAView(t *testing.T) {
	cr := newCheckRun(t, map[string]string{"a.txt": "a\n"})
	blocker := filepath.Join(t.TempDir(), "file")
	os.WriteFile(blocker, nil, 0o644)
	cr.env.Proposal.BaseDir = filepath.Join(blocker, "views")
	srv := stageThenFinish(t)
	out := cr.run(t, context.Background(), srv, tools.Check{Name: "test", Command: "true"})
	if out.Status != StatusFinished || len(srv.Requests()) != 2 {
		t.Fatalf("outcome %v after %d model calls", out.Status, len(srv.Requests()))
	}
	if c := out.Checks; len(c) != 1 || c[0].Passed || c[0].ExitCode != -1 || !strings.Contains(c[0].Output, "not run: the proposal view") || !strings.Contains(c[0].Output, "not a directory") {
		t.Fatalf("checks %+v", c)
	}
	testtree.Same(t, cr.before, cr.root)
}

// Cancelling the run ends a running check at once: its processes are gone.
func TestCancelEndsARunningCheck(t *testing.T) {
	cr := newCheckRun(t, map[string]string{"a.txt": "a\n"})
	pidDir := t.TempDir()
	pidFile := filepath.Join(pidDir, "child.pid")
	srv := stageThenFinish(t)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan Outcome, 1)
	go func() {
		done <- cr.run(t, ctx, srv, tools.Check{Name: "slow", Command: "sleep 300 & echo $! > " + pidFile + "; wait"})
	}()
	testwait.File(t, pidFile)
	cancel()
	out := testwait.Recv(t, done, "the cancelled run")
	if out.Status != StatusCancelled {
		t.Fatalf("status %v", out.Status)
	}
	testwait.ProcessGone(t, pidFile)
	cr.untouched(t)
}

// Checks with paths run only when a matching file changed; none run
// without changes, or in plan mode.
func TestChecksApplyByPath(t *testing.T) {
	cr := newCheckRun(t, map[string]string{"a.txt": "a\n"})
	srv := stageThenFinish(t)
	out := cr.run(t, context.Background(), srv,
		tools.Check{Name: "go", Command: "exit 1", Paths: []string{"**/*.go"}},
		tools.Check{Name: "txt", Command: "true", Paths: []string{"*.txt"}},
		tools.Check{Name: "root-txt", Command: "true", Paths: []string{"sub/*.txt"}})
	if len(out.Checks) != 1 || out.Checks[0].Name != "txt" || !out.Checks[0].Passed {
		t.Fatalf("checks %+v", out.Checks)
	}
	cr2 := newCheckRun(t, map[string]string{"a.txt": "a\n"})
	quiet := llmtest.New(t, llmtest.Always(llmtest.Text("nothing to change")))
	if out := cr2.run(t, context.Background(), quiet, tools.Check{Name: "never", Command: "exit 1"}); len(out.Checks) != 0 || len(cr2.checkEvents()) != 0 {
		t.Fatalf("checks ran without changes: %+v", out.Checks)
	}
}

// conversations is what the model was sent, request by request: every
// message but the system prompt (role, tool calls and content), so two
// runs of one script compare equal when the model saw the same thing.
func conversations(srv *llmtest.Server) []string {
	var out []string
	for _, req := range srv.Requests() {
		var b strings.Builder
		for _, m := range req.Messages {
			if m.Role == "system" {
				continue
			}
			fmt.Fprintf(&b, "[%s %s %v] %s\n", m.Role, m.ToolCallID, m.ToolCalls, m.Content)
		}
		out = append(out, b.String())
	}
	return out
}

// A check whose command is not installed (sh exits 127) or not executable
// (126) is reported as could not run, with the shell's line and a PATH
// hint, and never goes back to the model: the run makes exactly the model
// calls it makes without checks, and ends normally.
func TestCheckThatCannotStartIsNotSentBack(t *testing.T) {
	plain := newCheckRun(t, map[string]string{"a.txt": "a\n"})
	without := stageThenFinish(t)
	if out := plain.run(t, context.Background(), without); out.Status != StatusFinished {
		t.Fatalf("run without checks: %v %v", out.Status, out.Err)
	}
	want := conversations(without)
	for _, tc := range []struct {
		name, command, line, hint string
		exit                      int
		setup                     func(root string)
	}{
		{name: "missing", command: "definitely-not-installed-xyz --run", exit: 127, line: "definitely-not-installed-xyz: not found", hint: "not on the PATH the check ran with (PATH=" + os.Getenv("PATH") + ")"},
		{name: "not-executable", command: "./tools/check.sh", exit: 126, line: "./tools/check.sh: Permission denied", hint: "Not executable: make it so (chmod +x)", setup: func(root string) {
			os.MkdirAll(filepath.Join(root, "tools"), 0o755)
			if err := os.WriteFile(filepath.Join(root, "tools", "check.sh"), []byte("#!/bin/sh\nexit 0\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cr := newCheckRun(t, map[string]string{"a.txt": "a\n"})
			if tc.setup != nil {
				tc.setup(cr.root)
				cr.before = testtree.Take(t, cr.root)
			}
			srv := stageThenFinish(t)
			out := cr.run(t, context.Background(), srv, tools.Check{Name: "test", Command: tc.command})
			if out.Status != StatusFinished || out.Answer != "done" {
				t.Fatalf("outcome %v %v %q", out.Status, out.Err, out.Answer)
			}
			if got := conversations(srv); strings.Join(got, "\n---\n") != strings.Join(want, "\n---\n") {
				t.Fatalf("the model was sent (%d requests):\n%s\nwithout checks (%d requests):\n%s", len(got), strings.Join(got, "\n---\n"), len(want), strings.Join(want, "\n---\n"))
			}
			evs := cr.checkEvents()
			if len(evs) != 1 {
				t.Fatalf("check events %+v", evs)
			}
			ev := evs[0]
			first, _, _ := strings.Cut(ev.Output, "\n")
			if !ev.NotRun || ev.Passed || ev.ExitCode != tc.exit || !strings.HasPrefix(first, "could not run: sh: ") || !strings.HasSuffix(first, tc.line) ||
				!strings.Contains(ev.Output, tc.hint) {
				t.Fatalf("check event %+v", ev)
			}
			if c := out.Checks; len(c) != 1 || !c[0].NotRun || c[0].Output != ev.Output {
				t.Fatalf("outcome checks %+v", c)
			}
			cr.untouched(t)
		})
	}
}

// A check that starts and fails with a status of its own, even 127, is a
// failure the model is sent back to fix.
func TestCheckExit127OfItsOwnIsAFailure(t *testing.T) {
	cr := newCheckRun(t, map[string]string{"a.txt": "a\n"})
	srv := stageThenFinish(t)
	out := Run(context.Background(), Options{Model: newClient(t, srv), Registry: tools.NewRegistry(tools.Builtins(cr.env.Policy)...), Env: cr.env,
		Prompt: "x", OnEvent: cr.log.on, Checks: []tools.Check{{Name: "suite", Command: "echo 'FAIL: TestX'; exit 127"}}, NoAgentTools: true, Limits: Limits{MaxCheckRounds: 1}})
	if c := out.Checks; len(c) != 1 || c[0].NotRun || c[0].Passed || c[0].ExitCode != 127 || c[0].Output != "FAIL: TestX\n" {
		t.Fatalf("checks %+v", c)
	}
	if reqs := srv.Requests(); len(reqs) != 3 || !strings.Contains(reqs[2].LastUser(), `check "suite" failed (exit code 127`) {
		t.Fatalf("%d model calls; last user message %q", len(reqs), reqs[len(reqs)-1].LastUser())
	}
}

// A running check is reported every Limits.CheckProgressEvery with its
// time so far, until its result: the check ends only once the run has
// said it was still running, and nothing of it follows the result.
func TestRunningCheckReportsItsTime(t *testing.T) {
	cr := newCheckRun(t, map[string]string{"a.txt": "a\n"})
	marker := filepath.Join(t.TempDir(), "seen")
	cr.log.hook = func(ev Event) {
		if ev.Kind == EventCheckRunning {
			os.WriteFile(marker, nil, 0o644)
		}
	}
	srv := stageThenFinish(t)
	out := Run(context.Background(), Options{
		Model: newClient(t, srv), Registry: tools.NewRegistry(tools.Builtins(cr.env.Policy)...), Env: cr.env,
		Prompt: "do the task", OnEvent: cr.log.on, NoAgentTools: true,
		Limits: Limits{CheckProgressEvery: 10 * time.Millisecond},
		Checks: []tools.Check{{Name: "slow", Command: "for i in $(seq 400); do [ -f '" + marker + "' ] && exit 0; sleep 0.05; done; exit 1"}},
	})
	if out.Status != StatusFinished || len(out.Checks) != 1 || !out.Checks[0].Passed {
		t.Fatalf("outcome %v, checks %+v", out.Status, out.Checks)
	}
	var running []Event
	result := -1
	for i, e := range cr.log.all() {
		switch e.Kind {
		case EventCheckRunning:
			if result >= 0 {
				t.Fatalf("a running event after the check's result: %+v", e)
			}
			running = append(running, e)
		case EventCheck:
			result = i
		}
	}
	if len(running) == 0 {
		t.Fatal("no running event")
	}
	e := running[0]
	if e.Check.Name != "slow" || e.Seconds <= 0 || e.Summary != fmt.Sprintf("check slow running (%s)", Elapsed(e.Seconds)) {
		t.Fatalf("running event %+v", e)
	}
}

func TestCheckWords(t *testing.T) {
	for _, c := range []struct {
		res  tools.CheckResult
		want string
	}{
		{tools.CheckResult{Name: "test", Passed: true, Seconds: 1.25}, "check test passed in 1.2s"},
		{tools.CheckResult{Name: "test", ExitCode: 1, Seconds: 125}, "check test failed (exit code 1) in 2m05s"},
		{tools.CheckResult{Name: "test", ExitCode: -1, Seconds: 30}, "check test timed out after 30.0s"},
		{tools.CheckResult{Name: "go", NotRun: true, ExitCode: 127, Output: "could not run: sh: 1: go: not found\nPATH was …"}, "check go could not run: sh: 1: go: not found"},
	} {
		if got := CheckLine(c.res); got != c.want {
			t.Errorf("CheckLine(%+v) = %q, want %q", c.res, got, c.want)
		}
	}
}
