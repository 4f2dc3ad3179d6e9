package nvim_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentls/agentls/agent/llm/llmtest"
	"github.com/agentls/agentls/internal/testwait"
	"github.com/agentls/agentls/lspserver/lsptest"
)

// These tests follow the repository README's Neovim instructions as
// written, on the Neovim of the machine (0.7.2 in CI): the commands and the
// snippet are read from README.md, so the README cannot drift from what
// works.

// fence is one fenced code block of a Markdown file.
type fence struct {
	lang, body string
	at         int // byte offset of the opening fence
}

// fences returns the fenced code blocks of md, in order.
func fences(md string) []fence {
	var out []fence
	lines := strings.SplitAfter(md, "\n")
	off := 0
	var cur *fence
	for _, l := range lines {
		t := strings.TrimSpace(l)
		switch {
		case cur == nil && strings.HasPrefix(t, "```"):
			cur = &fence{lang: strings.TrimPrefix(t, "```"), at: off}
		case cur != nil && t == "```":
			out = append(out, *cur)
			cur = nil
		case cur != nil:
			cur.body += strings.TrimLeft(l, " ") // list-item blocks are indented
		}
		off += len(l)
	}
	return out
}

// readme returns the repository's README.md and its root directory.
func readme(t *testing.T) (string, string) {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	return string(data), root
}

// binOnPath returns a PATH with the built agentls first, as `go install`
// and the README's PATH line leave it.
func binOnPath(t *testing.T) string {
	t.Helper()
	return "PATH=" + filepath.Dir(lsptest.BuildBinary(t)) + string(os.PathListSeparator) + os.Getenv("PATH")
}

// readmeDemo returns the README's shell block that starts Neovim on the
// no-model demo and the ex commands that follow it.
func readmeDemo(t *testing.T, md string) (shell string, cmds []string) {
	t.Helper()
	fs := fences(md)
	for i, f := range fs {
		if f.lang != "sh" || !strings.Contains(f.body, "nvim ") || !strings.Contains(f.body, "replay") {
			continue
		}
		if i+1 >= len(fs) || fs[i+1].lang != "vim" {
			t.Fatalf("README: the Neovim demo's shell block is not followed by a vim block of commands")
		}
		for _, l := range strings.Split(strings.TrimSpace(fs[i+1].body), "\n") {
			cmds = append(cmds, strings.TrimSpace(l))
		}
		return f.body, cmds
	}
	t.Fatal("README: no shell block starting Neovim with model.replay (the no-model demo)")
	return "", nil
}

// TestReadmeNeovimDemo runs the README's no-model demo: from the clone's
// root, its shell lines (cd examples/hello; nvim --cmd … -c … greet.py)
// verbatim, with nvim made headless and the driver tests/readme_demo.lua
// added as a last -c; the driver runs the README's ex commands. The
// recorded run (made with agentls run) replays through the editor path,
// examples/hello is the workspace root although the clone's .git is above
// it, the fix shows as a preview first, and :AgentAccept applies it to the
// buffer without writing the file.
func TestReadmeNeovimDemo(t *testing.T) {
	nvim := nvimPath(t)
	md, root := readme(t)
	shell, cmds := readmeDemo(t, md)
	dir := t.TempDir()
	testwait.EnvProcessesGone(t, "XDG_STATE_HOME="+filepath.Join(dir, "state")) // agentls ends before dir goes
	out := filepath.Join(dir, "result.json")
	driver := filepath.Join(pluginDir(t), "tests", "readme_demo.lua")
	// The README's lines run as written; `nvim` is a shell function that
	// adds what a test needs (no UI, no shada or swap file, the driver).
	script := fmt.Sprintf("nvim() { %q --headless --clean -i NONE -n \"$@\" -c %q; }\n%s", nvim, "luafile "+driver, shell)
	env := append(cleanEnv(), binOnPath(t),
		"HOME="+dir,
		"XDG_CONFIG_HOME="+filepath.Join(dir, "config"),
		"XDG_STATE_HOME="+filepath.Join(dir, "state"),
		"XDG_DATA_HOME="+filepath.Join(dir, "data"),
		"XDG_CACHE_HOME="+filepath.Join(dir, "cache"),
		"AGENTLS_TEST_DIR="+dir,
		"AGENTLS_TEST_OUT="+out,
		"AGENTLS_README_CMDS="+strings.Join(cmds, "\n"),
	)
	greet := filepath.Join(root, "examples", "hello", "greet.py")
	before, err := os.ReadFile(greet)
	if err != nil {
		t.Fatal(err)
	}
	r := runShell(t, root, env, script, out, dir)

	if got, want := r.str(t, "root"), filepath.Join(root, "examples", "hello"); got != want {
		t.Errorf("workspace root = %s, want %s (examples/hello is its own root)", got, want)
	}
	if s := r.str(t, "status"); s != "finished" {
		t.Fatalf("the replayed run %s: %s", s, r.str(t, "error"))
	}
	var marks []struct {
		Row  int `json:"row"`
		Virt []struct {
			Text string `json:"text"`
		} `json:"virt"`
	}
	r.fact(t, "marks", &marks)
	var preview []string
	for _, m := range marks {
		for _, v := range m.Virt {
			preview = append(preview, v.Text)
		}
	}
	if !strings.Contains(strings.Join(preview, "\n"), `return "Hello, " + name + "!"`) {
		t.Errorf("preview lines = %q, want the fixed line", preview)
	}
	if b := r.str(t, "before_accept"); !strings.Contains(b, "+ nme +") {
		t.Errorf("the buffer changed before :AgentAccept:\n%s", b)
	}
	var line int
	r.fact(t, "cursor_line", &line)
	if line != 3 {
		t.Errorf(":AgentNextHunk put the cursor on line %d, want 3 (the hunk)", line)
	}
	if a := r.str(t, "after"); !strings.Contains(a, `return "Hello, " + name + "!"`) || strings.Contains(a, "nme") {
		t.Errorf("buffer after :AgentAccept:\n%s", a)
	}
	if after, _ := os.ReadFile(greet); !bytes.Equal(after, before) {
		t.Errorf("examples/hello/greet.py was written:\n%s", after)
	}
	// Neovim files every line a server writes to stderr in lsp.log as
	// [ERROR]; the server (started plainly, as the README does) writes only
	// warnings and errors there, and this run had none.
	lspLog, _ := os.ReadFile(filepath.Join(dir, "cache", "nvim", "lsp.log"))                  // stdpath("cache") on 0.7
	if more, err := os.ReadFile(filepath.Join(dir, "state", "nvim", "lsp.log")); err == nil { // 0.8+
		lspLog = append(lspLog, more...)
	}
	for _, l := range strings.Split(string(lspLog), "\n") {
		if strings.Contains(l, `"stderr"`) {
			t.Errorf("lsp.log has a line from the server's stderr: %s", l)
		}
	}
}

// TestReadmeInitLua pastes the README's first Neovim snippet (plain
// init.lua, Neovim 0.7+) into init.lua, with the clone path and the model
// URL pointed at this checkout and the scripted model, and starts a plain
// `nvim greet.go`: no syntax error, the commands exist, the buffer attaches
// and a run proposes its change.
func TestReadmeInitLua(t *testing.T) {
	nvim := nvimPath(t)
	md, root := readme(t)
	i := strings.Index(md, "plain `init.lua`")
	if i < 0 {
		t.Fatal("README: no plain init.lua snippet")
	}
	var snippet string
	for _, f := range fences(md) {
		if f.at > i && f.lang == "lua" {
			snippet = f.body
			break
		}
	}
	const clone, url = "~/src/agentls", "http://localhost:11434/v1"
	if !strings.Contains(snippet, clone) || !strings.Contains(snippet, url) || strings.Contains(snippet, "lazy") {
		t.Fatalf("README's init.lua snippet is not the plain one naming %s and %s:\n%s", clone, url, snippet)
	}
	srv := llmtest.New(t, readThenEdit("greet.go", "Made it loud.", [2]string{`"hello"`, `"HELLO"`}))
	initLua := strings.ReplaceAll(strings.ReplaceAll(snippet, clone, root), url, srv.URL())

	dir := t.TempDir()
	testwait.EnvProcessesGone(t, "XDG_STATE_HOME="+filepath.Join(dir, "state")) // agentls ends before dir goes
	ws := filepath.Join(dir, "ws")
	for p, content := range map[string]string{
		filepath.Join(dir, "config", "nvim", "init.lua"): initLua,
		filepath.Join(ws, "greet.go"):                    greetGo,
		filepath.Join(ws, ".git", "HEAD"):                "ref: refs/heads/main\n",
	} {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out := filepath.Join(dir, "result.json")
	env := append(cleanEnv(), binOnPath(t),
		"HOME="+dir,
		"XDG_CONFIG_HOME="+filepath.Join(dir, "config"),
		"XDG_STATE_HOME="+filepath.Join(dir, "state"),
		"XDG_DATA_HOME="+filepath.Join(dir, "data"),
		"XDG_CACHE_HOME="+filepath.Join(dir, "cache"),
		"AGENTLS_TEST_WS="+ws,
		"AGENTLS_TEST_DIR="+dir,
		"AGENTLS_TEST_OUT="+out,
	)
	driver := filepath.Join(pluginDir(t), "tests", "readme_initlua.lua")
	script := fmt.Sprintf("cd %q && exec %q --headless -i NONE -n greet.go -c %q", ws, nvim, "luafile "+driver)
	r := runShell(t, ws, env, script, out, dir)
	if !r.boolean(t, "commands") {
		t.Error(":AgentRun / :AgentAccept are not defined after init.lua")
	}
	if got := r.str(t, "root"); got != ws {
		t.Errorf("root = %s, want %s", got, ws)
	}
	if s := r.str(t, "status"); s != "finished" {
		t.Fatalf("run %s: %s", s, r.str(t, "error"))
	}
	var marks []struct {
		Virt []struct {
			Text string `json:"text"`
		} `json:"virt"`
	}
	r.fact(t, "marks", &marks)
	if len(marks) == 0 || !strings.Contains(fmt.Sprint(marks), "HELLO") {
		t.Errorf("preview = %+v, want the loud line", marks)
	}
}

// runShell runs script with sh in dir and returns what the Lua driver
// recorded in out, failing with Neovim's output and logs otherwise.
func runShell(t *testing.T, dir string, env []string, script, out, logDir string) *result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "sh", "-c", script)
	cmd.Dir = dir
	cmd.Env = env
	var output bytes.Buffer
	cmd.Stdout, cmd.Stderr = &output, &output
	cmd.WaitDelay = 10 * time.Second
	runErr := cmd.Run()
	logs := func() string {
		var b strings.Builder
		fmt.Fprintf(&b, "output:\n%s\n", output.String())
		for _, p := range []string{filepath.Join(logDir, "cache", "nvim", "lsp.log"), filepath.Join(logDir, "cache", "nvim", "agentls.log"),
			filepath.Join(logDir, "state", "nvim", "lsp.log"), filepath.Join(logDir, "state", "nvim", "agentls.log")} {
			if data, err := os.ReadFile(p); err == nil {
				fmt.Fprintf(&b, "--- %s:\n%s\n", p, tail(string(data), 6000))
			}
		}
		return b.String()
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatalf("nvim wrote no result (run error: %v): %v\n%s", runErr, err, logs())
	}
	var r result
	if err := json.Unmarshal(data, &r); err != nil {
		t.Fatalf("bad result %s: %v\n%s", data, err, logs())
	}
	r.dir = logDir
	if !r.OK {
		t.Fatalf("%s failed: %s\n%s", script, r.Error, logs())
	}
	return &r
}
