package script

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentls/agentls/internal/testwait"
	"github.com/agentls/agentls/internal/workspace"
	"github.com/agentls/agentls/tools"
)

func TestMain(m *testing.M) { testwait.VerifyTestMain(m) }

// fixture is a workspace, the run's Env over it and a script tool whose
// functions are the built-ins.
type fixture struct {
	root  string
	env   *tools.Env
	tool  tools.Tool
	slots *Slots

	mu     sync.Mutex
	events []string // "call <id> <tool> <args>" / "result <id> <isError>"
}

func newFixture(t testing.TB, files map[string]string, lim Limits, extra ...tools.Tool) *fixture {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for p, c := range files {
		full := filepath.Join(root, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	f := &fixture{root: root, slots: NewSlots(0)}
	f.env = tools.NewEnv("run-1", workspace.New(workspace.Options{Folders: []string{root}}), nil, tools.Policy{RunCommand: "ask"})
	all := append(tools.Builtins(tools.Policy{RunCommand: "ask"}), extra...)
	f.tool = New(Options{
		Tools:  func() []tools.Tool { return all },
		Limits: lim,
		Slots:  f.slots,
		Observe: func(parent string, c InnerCall) func(tools.Result) {
			f.mu.Lock()
			f.events = append(f.events, fmt.Sprintf("call %s %s %s", c.ID, c.Tool, c.Args))
			f.mu.Unlock()
			return func(r tools.Result) {
				f.mu.Lock()
				f.events = append(f.events, fmt.Sprintf("result %s %v", c.ID, r.IsError))
				f.mu.Unlock()
			}
		},
	})
	return f
}

func (f *fixture) run(t testing.TB, code string) tools.Result {
	t.Helper()
	return f.runCtx(t, context.Background(), code)
}

func (f *fixture) runCtx(t testing.TB, ctx context.Context, code string) tools.Result {
	t.Helper()
	args, _ := json.Marshal(map[string]string{"code": code})
	res, err := f.tool.Call(tools.WithCallID(ctx, "c1"), f.env, args)
	if err != nil {
		t.Fatalf("Go error: %v", err)
	}
	return res
}

func TestProgramCallsToolsAndReturnsOnlyItsOutput(t *testing.T) {
	files := map[string]string{"go.mod": "module x\n"}
	for i := range 30 {
		body := fmt.Sprintf("package p\n\nfunc F%d() {}\n", i)
		if i%7 == 0 {
			body += "// TODO: fix\n// TODO: again\n"
		}
		files[fmt.Sprintf("pkg/f%02d.go", i)] = body
	}
	f := newFixture(t, files, Limits{})
	res := f.run(t, `
todo = {}
for p in glob("**/*.go"):
    n = read_file(p)["text"].count("TODO")
    if n:
        todo[p] = n
hits = grep("func F", glob="*.go")
print(len(hits), "functions")
todo
`)
	if res.IsError {
		t.Fatalf("error: %s", res.Text)
	}
	want := "30 functions\n" + `{"pkg/f00.go":2,"pkg/f07.go":2,"pkg/f14.go":2,"pkg/f21.go":2,"pkg/f28.go":2}`
	if res.Text != want {
		t.Fatalf("result:\n%s\nwant:\n%s", res.Text, want)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	// 1 glob + 30 reads + 1 grep, each reported before and after.
	if len(f.events) != 64 {
		t.Fatalf("%d events: %v", len(f.events), f.events[:min(4, len(f.events))])
	}
	if f.events[0] != `call c1.1 glob {"pattern":"**/*.go"}` || f.events[1] != "result c1.1 false" {
		t.Fatalf("first events %q", f.events[:2])
	}
	if f.events[62] != `call c1.32 grep {"pattern":"func F","glob":"*.go"}` {
		t.Fatalf("grep event %q", f.events[62])
	}
	if !strings.Contains(res.Summary, "32 tool calls") {
		t.Fatalf("summary %q", res.Summary)
	}
}

func TestValuesAreStructured(t *testing.T) {
	f := newFixture(t, map[string]string{"a.txt": "one\ntwo\r\nthree", "d/b.txt": "x\n"}, Limits{})
	res := f.run(t, `
r = read_file("a.txt", offset=2, limit=1)
print(r["path"], r["lines"], repr(r["text"]))
m = grep("t[wh]", ignore_case=True)
print([(x["path"], x["line"], x["text"]) for x in m])
print(list_dir(), glob("**/*.txt", path="d"))
print(type(r["lines"]), type(m), type(m[0]))
`)
	want := `a.txt 3 "two\r\n"
[("a.txt", 2, "two"), ("a.txt", 3, "three")]
["a.txt", "d/"] ["d/b.txt"]
int list dict
`
	if res.IsError || res.Text != want {
		t.Fatalf("got %v:\n%s\nwant:\n%s", res.IsError, res.Text, want)
	}
}

func TestErrorsCarryTheLine(t *testing.T) {
	f := newFixture(t, map[string]string{"a.txt": "x\n"}, Limits{})
	cases := []struct{ code, want string }{
		{"print('start')\nx = read_file('missing.txt')\n", "line 2: read_file: "},
		{"x = 1\ny = (\n", "line 3: got end of file"},
		{"x = undefined_name\n", "line 1: undefined: undefined_name"},
		{"d = {}\nprint(d['k'])\n", `line 2: key "k" not in dict`},
		{"def f(x):\n  return x['k']\nf({})\n", `line 2: key "k" not in dict (in f)`},
		{"grep('a', bogus=1)\n", `line 1: grep: unexpected keyword argument "bogus" (parameters: pattern, path, glob, ignore_case)`},
		{"write_file('a.txt', 'y')\n", "line 1: undefined: write_file"},
		{"load('x.star', 'y')\n", "load"},
		{"import os\n", "line 1:"},
		{"x = f'{1}'\n", "line 1:"},
	}
	for _, c := range cases {
		res := f.run(t, c.code)
		if !res.IsError || !strings.Contains(res.Text, c.want) {
			t.Errorf("%q:\n%s\nwant error containing %q", c.code, res.Text, c.want)
		}
	}
	res := f.run(t, "print('start')\nx = read_file('missing.txt')\n")
	if !strings.Contains(res.Text, "  2 | x = read_file('missing.txt')") || !strings.HasSuffix(res.Text, "Printed before the error:\nstart\n") {
		t.Fatalf("error text:\n%s", res.Text)
	}
	if data, _ := os.ReadFile(filepath.Join(f.root, "a.txt")); string(data) != "x\n" {
		t.Fatalf("a.txt changed: %q", data)
	}
}

func TestBounds(t *testing.T) {
	f := newFixture(t, map[string]string{"a.txt": "x\n"}, Limits{Steps: 100_000, Calls: 5, Output: 100, WallClock: 20 * time.Second})
	cases := []struct{ name, code, want string }{
		{"steps", "while True:\n  pass\n", "line 1: the program ran more than 100000 steps"},
		{"calls", "for i in range(10):\n  read_file('a.txt')\n", "more than 5 tool calls"},
		{"output", "for i in range(100):\n  print('line', i)\n", "printed more than 100 bytes"},
		{"result", "'y' * 1000\n", "the program's result is 1000 bytes, more than the 100 left"},
		{"args", "grep('x' * 2000000)\n", "grep: the arguments are 2000014 bytes; at most 1048576"},
		{"memory-string", "x = 'x' * 1000000000\n", "more than 512 MiB of memory"},
		{"memory-list", "x = [None] * 100000000\n", "more than 512 MiB of memory"},
		{"memory-doubling", "s = 'x' * 1000\nfor i in range(40):\n  s += s\n", "more than 512 MiB of memory"},
		{"memory-range", "l = list(range(1000000000))\n", "more than 512 MiB of memory"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			start := time.Now()
			res := f.run(t, c.code)
			if !res.IsError || !strings.Contains(res.Text, c.want) {
				t.Fatalf("%s:\n%s\nwant error containing %q", c.code, res.Text, c.want)
			}
			t.Logf("%s: %v", c.name, time.Since(start))
		})
	}
	// Within the memory bound a program may hold a lot: 5 million ints.
	g := newFixture(t, nil, Limits{})
	if res := g.run(t, "l = list(range(5000000))\nlen(l)\n"); res.IsError || res.Text != "5000000" {
		t.Fatalf("80 MB list: %s", res.Text)
	}
	res := f.run(t, "for i in range(100):\n  print('line', i)\n")
	if !strings.Contains(res.Text, "Printed before the error:\nline 0\nline 1\n") {
		t.Fatalf("partial output lost:\n%s", res.Text)
	}
}

// blockingTool never returns until its context ends: a wall clock or
// cancellation must still stop the program.
type blockingTool struct{}

func (blockingTool) Name() string        { return "wait_forever" }
func (blockingTool) Description() string { return "" }
func (blockingTool) Schema() json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{}}`)
}
func (blockingTool) ReadOnly() bool { return true }
func (blockingTool) Call(ctx context.Context, _ *tools.Env, _ json.RawMessage) (tools.Result, error) {
	<-ctx.Done()
	return tools.Result{}, ctx.Err()
}

func TestWallClockAndCancellation(t *testing.T) {
	f := newFixture(t, nil, Limits{WallClock: 500 * time.Millisecond, Steps: 1 << 40}, blockingTool{})
	res := f.run(t, "print('a')\nwait_forever()\n")
	if !res.IsError || !strings.Contains(res.Text, "longer than 500ms") {
		t.Fatalf("blocked call: %s", res.Text)
	}
	res = f.run(t, "x = 0\nwhile True:\n  x += 1\n")
	if !res.IsError || !strings.Contains(res.Text, "longer than 500ms") {
		t.Fatalf("busy loop: %s", res.Text)
	}

	g := newFixture(t, nil, Limits{Steps: 1 << 40}, blockingTool{})
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(300*time.Millisecond, cancel)
	args, _ := json.Marshal(map[string]string{"code": "while True:\n  pass\n"})
	start := time.Now()
	_, err := g.tool.Call(ctx, g.env, args)
	if err == nil || time.Since(start) > time.Minute { // a hang detector, not a timing test
		t.Fatalf("cancel: err %v after %v", err, time.Since(start))
	}
}

func TestFunctionsAreReadOnlyToolsOnly(t *testing.T) {
	s := &scriptTool{opts: Options{Tools: func() []tools.Tool {
		return append(tools.Builtins(tools.Policy{RunCommand: "ask"}), blockingTool{}, New(Options{}))
	}, Exclude: []string{"wait_forever"}}}
	var names []string
	for n := range s.functions() {
		names = append(names, n)
	}
	slices.Sort(names)
	got := strings.Join(names, " ")
	if got != "glob grep list_dir read_file" {
		t.Fatalf("functions: %s", got)
	}
}

func TestSecretsAndConfinementHoldInside(t *testing.T) {
	f := newFixture(t, map[string]string{".env": "KEY=hunter2\n", "a.txt": "KEY=x\n"}, Limits{})
	res := f.run(t, "read_file('.env')\n")
	if !res.IsError || strings.Contains(res.Text, "hunter2") {
		t.Fatalf("secret read: %s", res.Text)
	}
	res = f.run(t, "print([m['path'] for m in grep('KEY')])\n")
	if res.IsError || res.Text != "[\"a.txt\"]\n" {
		t.Fatalf("grep over secrets: %s", res.Text)
	}
	res = f.run(t, "read_file('/etc/passwd')\n")
	if !res.IsError || !strings.Contains(res.Text, "outside") {
		t.Fatalf("outside read: %s", res.Text)
	}
}

// TestDescriptionExampleRuns: the example program in the description works.
func TestDescriptionExampleRuns(t *testing.T) {
	_, ex, _ := strings.Cut(description, "E.g. ")
	ex, _, _ = strings.Cut(ex, "\n")
	var args struct{ Code string }
	if err := json.Unmarshal([]byte(ex), &args); err != nil {
		t.Fatal(err)
	}
	f := newFixture(t, map[string]string{"a.go": "// TODO x\n// TODO y\n", "b/c.go": "package c\n"}, Limits{})
	if res := f.run(t, args.Code); res.IsError || res.Text != "a.go 2\n" {
		t.Fatalf("example: %v %q", res.IsError, res.Text)
	}
}

// TestProgramsTakeTurns: at most DefaultConcurrent programs run at once;
// the others wait, and all finish.
func TestProgramsTakeTurns(t *testing.T) {
	f := newFixture(t, map[string]string{"a.txt": "x\n"}, Limits{})
	var wg sync.WaitGroup
	res := make([]tools.Result, 5)
	for i := range res {
		wg.Add(1)
		go func() {
			defer wg.Done()
			args, _ := json.Marshal(map[string]string{"code": "n = 0\nfor i in range(100000):\n  n += i\nn"})
			res[i], _ = f.tool.Call(context.Background(), f.env, args) // a Go error leaves a zero result, which fails below
		}()
	}
	wg.Wait()
	for i, r := range res {
		if r.IsError || r.Text != "4999950000" {
			t.Fatalf("program %d: %+v", i, r)
		}
	}
	if n := len(f.slots.ch); n != 0 || cap(f.slots.ch) != DefaultConcurrent {
		t.Fatalf("%d of %d slots still held", n, cap(f.slots.ch))
	}
}

// TestSlotsAreTheOwners: script tools that share Slots share its bound (a
// program waits while another holds the only slot, and gives up at its
// wall clock); tools with Slots of their own run at the same time.
func TestSlotsAreTheOwners(t *testing.T) {
	entered := make(chan string, 2)
	release := make(chan struct{})
	hold := tools.New("hold", "Hold until released.", true, func(_ context.Context, env *tools.Env, _ struct{}) (tools.Result, error) {
		entered <- env.RunID
		<-release
		return tools.Result{Text: "held"}, nil
	})
	mk := func(slots *Slots, wall time.Duration) tools.Tool {
		return New(Options{Tools: func() []tools.Tool { return []tools.Tool{hold} }, Limits: Limits{WallClock: wall}, Slots: slots})
	}
	call := func(tl tools.Tool, runID string) chan tools.Result {
		out := make(chan tools.Result, 1)
		go func() {
			res, err := tl.Call(context.Background(), &tools.Env{RunID: runID}, json.RawMessage(`{"code":"hold()"}`))
			if err != nil {
				res = tools.Result{Text: err.Error(), IsError: true}
			}
			out <- res
		}()
		return out
	}

	shared := NewSlots(1)
	a := call(mk(shared, time.Minute), "a")
	if got := <-entered; got != "a" {
		t.Fatalf("entered %s", got)
	}
	// b shares the one slot a holds: it cannot start before its wall
	// clock ends.
	if res := <-call(mk(shared, 200*time.Millisecond), "b"); !res.IsError || !strings.Contains(res.Text, "no interpreter was free") {
		t.Fatalf("b ran while a held the shared slot: %+v", res)
	}
	// c has Slots of its own: it runs while a still holds the shared one.
	c := call(mk(NewSlots(1), time.Minute), "c")
	if got := <-entered; got != "c" {
		t.Fatalf("entered %s", got)
	}
	close(release)
	for name, ch := range map[string]chan tools.Result{"a": a, "c": c} {
		if res := <-ch; res.IsError || res.Text != "held" {
			t.Fatalf("%s: %+v", name, res)
		}
	}
	if n := len(shared.ch); n != 0 {
		t.Fatalf("%d shared slots still held", n)
	}
}
