package lang

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/agentls/agentls/internal/testwait"
	"github.com/agentls/agentls/internal/text"
	"github.com/agentls/agentls/internal/workspace"
	"github.com/agentls/agentls/tools"
)

func TestMain(m *testing.M) {
	if mode := os.Getenv(fakeEnv); mode != "" {
		runFakeServer(mode)
		return
	}
	os.Exit(m.Run())
}

// workspaceOf creates a temporary workspace holding files and returns its
// real root.
func workspaceOf(t testing.TB, files map[string]string) string {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for p, c := range files {
		write(t, filepath.Join(root, p), c)
	}
	return root
}

func write(t testing.TB, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// fakeConfig is a server entry running the fake server in mode, marked
// with a token so leftover processes can be found.
func fakeConfig(t testing.TB, mode string, extra map[string]string) ServerConfig {
	t.Helper()
	env := map[string]string{fakeEnv: mode, fakeToken: t.Name()}
	for k, v := range extra {
		env[k] = v
	}
	return ServerConfig{Name: "fake", Command: []string{os.Args[0]}, Extensions: []string{".fake"}, Env: env, Configured: true}
}

// setup is a manager, a run environment over root and the run's Run.
type setup struct {
	m   *Manager
	env *tools.Env
	run *Run
	reg map[string]tools.Tool
}

func newSetup(t testing.TB, root string, opts Options) *setup {
	t.Helper()
	return newSetupPolicy(t, root, opts, tools.Policy{})
}

// newSetupPolicy is newSetup with the user's tool settings (secretPatterns).
func newSetupPolicy(t testing.TB, root string, opts Options, policy tools.Policy) *setup {
	t.Helper()
	m := NewManager(opts)
	t.Cleanup(m.Close)
	env := tools.NewEnv("run-1", workspace.New(workspace.Options{Folders: []string{root}}), nil, policy)
	run := m.NewRun(context.Background(), env)
	if run == nil {
		t.Fatalf("no run: no server serves %s", root)
	}
	env.Diagnoser = run
	s := &setup{m: m, env: env, run: run, reg: map[string]tools.Tool{}}
	for _, tl := range append(tools.Builtins(policy), run.Tools()...) {
		s.reg[tl.Name()] = tl
	}
	return s
}

// call runs a tool by name with args.
func (s *setup) call(t testing.TB, name string, args any) tools.Result {
	t.Helper()
	tl, ok := s.reg[name]
	if !ok {
		t.Fatalf("no tool %s", name)
	}
	b, err := json.Marshal(args)
	if err != nil {
		t.Fatal(err)
	}
	res, err := tl.Call(context.Background(), s.env, b)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return res
}

// mustCall is call that fails the test on a tool error.
func (s *setup) mustCall(t testing.TB, name string, args any) tools.Result {
	t.Helper()
	res := s.call(t, name, args)
	if res.IsError {
		t.Fatalf("%s %v: %s", name, args, res.Text)
	}
	return res
}

// lastLine is the last line of a result.
func lastLine(s string) string {
	s = strings.TrimRight(s, "\n")
	return s[strings.LastIndexByte(s, '\n')+1:]
}

// leftovers lists processes whose environment holds token, other than us.
func leftovers(token string) []int {
	var out []int
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "environ"))
		if err != nil {
			continue
		}
		if strings.Contains(string(b), fakeToken+"="+token+"\x00") {
			if st, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat")); err == nil && strings.Contains(string(st), ") Z ") {
				continue // a zombie already dead, waiting for its parent
			}
			out = append(out, pid)
		}
	}
	return out
}

// leakCheck makes the test fail, after every cleanup registered later
// (managers close there), when a goroutine or a fake server process of
// the test is still running.
func leakCheck(t *testing.T) {
	t.Helper()
	opt := goleak.IgnoreCurrent()
	t.Cleanup(func() {
		noLeftovers(t)
		testwait.NoLeaks(t, opt)
	})
}

// noLeftovers fails when a fake server of this test is still running.
func noLeftovers(t testing.TB) {
	t.Helper()
	deadline := time.Now().Add(testwait.Limit)
	for {
		left := leftovers(t.Name())
		if len(left) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("language server processes left running: %v", left)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func fmtArgs(kv ...any) map[string]any {
	m := map[string]any{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[fmt.Sprint(kv[i])] = kv[i+1]
	}
	return m
}

// encodingOf is the position encoding the running server name negotiated.
func encodingOf(t *testing.T, m *Manager, name string) text.Encoding {
	t.Helper()
	m.mu.Lock()
	defer m.mu.Unlock()
	for k, e := range m.clients {
		if k.name == name && e.c != nil {
			<-e.c.ready
			return e.c.enc
		}
	}
	t.Fatalf("no running %s", name)
	return 0
}
