// Package nvim_test drives the Neovim plugin in a real headless Neovim
// against the real agentls binary. Each test runs one Lua script from
// tests/ (see tests/harness.lua), which records facts in a JSON file that
// the Go test asserts on. Every run gets its own XDG directories and
// workspace, so nothing from the user's Neovim or agentls config leaks in.
package nvim_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agentls/agentls/internal/testpeers"
	"github.com/agentls/agentls/internal/testwait"
	"github.com/agentls/agentls/lspserver/lsptest"
)

func TestMain(m *testing.M) { os.Exit(lsptest.RunMain(m)) }

// result is what tests/harness.lua writes.
type result struct {
	OK            bool                       `json:"ok"`
	Error         string                     `json:"error"`
	Facts         map[string]json.RawMessage `json:"facts"`
	Notifications []notification             `json:"notifications"`
	dir           string                     // the run's scratch directory
}

// notification is one vim.notify call the plugin made.
type notification struct {
	Msg   string `json:"msg"`
	Level int    `json:"level"`
}

// fact decodes the fact named key into v, failing the test if it is absent.
func (r *result) fact(t *testing.T, key string, v any) {
	t.Helper()
	raw, ok := r.Facts[key]
	if !ok {
		t.Fatalf("fact %q was not recorded (have %v)", key, keys(r.Facts))
	}
	if err := json.Unmarshal(raw, v); err != nil {
		t.Fatalf("fact %q = %s: %v", key, raw, err)
	}
}

// str returns the string fact named key.
func (r *result) str(t *testing.T, key string) string {
	t.Helper()
	var s string
	r.fact(t, key, &s)
	return s
}

// boolean returns the boolean fact named key.
func (r *result) boolean(t *testing.T, key string) bool {
	t.Helper()
	var b bool
	r.fact(t, key, &b)
	return b
}

func keys(m map[string]json.RawMessage) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}

// options tune one Neovim run.
type options struct {
	env   map[string]string    // extra environment (AGENTLS_TEST_MODEL, …)
	files map[string]string    // files to create in the workspace first
	setup func(ws, dir string) // runs after the workspace exists
}

// nvimPath returns the nvim binary, skipping the test when there is none
// (failing instead when AGENTLS_REQUIRE_PEERS is set, as in CI).
func nvimPath(t *testing.T) string {
	t.Helper()
	p, err := exec.LookPath("nvim")
	if err != nil {
		testpeers.Missing(t, "nvim not on PATH: %v", err)
	}
	return p
}

// pluginDir is editors/nvim, the directory holding this test.
func pluginDir(t *testing.T) string {
	t.Helper()
	d, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// cleanEnv is the process environment without anything that would make the
// run depend on the developer's machine: model settings, XDG dirs, and the
// variables a Neovim terminal sets for nested instances.
func cleanEnv() []string {
	var out []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		switch {
		case strings.HasPrefix(name, "OPENAI_"), strings.HasPrefix(name, "XDG_"),
			strings.HasPrefix(name, "AGENTLS_"), strings.HasPrefix(name, "NVIM"),
			name == "VIMINIT", name == "VIMRUNTIME", name == "MYVIMRC":
			continue
		}
		out = append(out, kv)
	}
	return out
}

// runScript runs tests/<script> in a fresh headless Neovim with the plugin
// on 'runtimepath' and returns what it recorded. A script error, a missing
// result or a Neovim that does not finish fails the test with the logs.
func runScript(t *testing.T, script string, o options) *result {
	t.Helper()
	nvim := nvimPath(t)
	bin := lsptest.BuildBinary(t)
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	// agentls (and what it starts) must be gone before dir is removed: it
	// can still be saving its state when Neovim has exited.
	testwait.EnvProcessesGone(t, "XDG_STATE_HOME="+filepath.Join(dir, "state"))
	ws := filepath.Join(dir, "ws")
	if err := os.MkdirAll(filepath.Join(ws, ".agentls"), 0o755); err != nil {
		t.Fatal(err)
	}
	for name, content := range o.files {
		p := filepath.Join(ws, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if o.setup != nil {
		o.setup(ws, dir)
	}
	out := filepath.Join(dir, "result.json")
	env := append(cleanEnv(),
		"XDG_CONFIG_HOME="+filepath.Join(dir, "config"),
		"XDG_STATE_HOME="+filepath.Join(dir, "state"),
		"XDG_DATA_HOME="+filepath.Join(dir, "data"),
		"XDG_CACHE_HOME="+filepath.Join(dir, "cache"),
		"AGENTLS_TEST_BIN="+bin,
		"AGENTLS_TEST_WS="+ws,
		"AGENTLS_TEST_DIR="+dir,
		"AGENTLS_TEST_OUT="+out,
	)
	for k, v := range o.env {
		env = append(env, k+"="+v)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	scriptPath := filepath.Join(pluginDir(t), "tests", script)
	cmd := exec.CommandContext(ctx, nvim, "--headless", "--clean", "-u", "NONE", "-i", "NONE", "-n",
		"--cmd", "set rtp+="+pluginDir(t), "-c", "luafile "+scriptPath)
	cmd.Dir = ws
	cmd.Env = env
	var output bytes.Buffer
	cmd.Stdout, cmd.Stderr = &output, &output
	cmd.WaitDelay = 10 * time.Second
	runErr := cmd.Run()

	logs := func() string {
		var b strings.Builder
		fmt.Fprintf(&b, "nvim output:\n%s\n", output.String())
		for _, p := range []string{filepath.Join(dir, "server.log"), filepath.Join(dir, "state", "agentls.log"),
			filepath.Join(dir, "cache", "nvim", "agentls.log"), filepath.Join(dir, "state", "nvim", "lsp.log"),
			filepath.Join(dir, "cache", "nvim", "lsp.log")} {
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
	r.dir = dir
	if !r.OK {
		t.Fatalf("lua test %s failed: %s\n%s", script, r.Error, logs())
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("%s", logs())
		}
	})
	return &r
}

func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "…" + s[len(s)-n:]
}

// wireMessage is one JSON-RPC message Neovim sent to the server.
type wireMessage struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
}

// readWire parses a file of Content-Length framed messages (what the
// tee_cmd of tests/harness.lua recorded).
func readWire(t *testing.T, path string) []wireMessage {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	br := bufio.NewReader(f)
	var msgs []wireMessage
	for {
		length := -1
		for {
			line, err := br.ReadString('\n')
			if err == io.EOF && line == "" {
				return msgs
			}
			if err != nil {
				t.Fatalf("wire header: %v", err)
			}
			line = strings.TrimRight(line, "\r\n")
			if line == "" {
				break
			}
			name, value, _ := strings.Cut(line, ":")
			if strings.EqualFold(strings.TrimSpace(name), "Content-Length") {
				length, err = strconv.Atoi(strings.TrimSpace(value))
				if err != nil {
					t.Fatalf("wire header %q: %v", line, err)
				}
			}
		}
		if length < 0 {
			t.Fatal("wire message without Content-Length")
		}
		body := make([]byte, length)
		if _, err := io.ReadFull(br, body); err != nil {
			t.Fatalf("wire body: %v", err)
		}
		var m wireMessage
		if err := json.Unmarshal(body, &m); err != nil {
			t.Fatalf("wire body %s: %v", body, err)
		}
		msgs = append(msgs, m)
	}
}

// byMethod returns the messages with the given method, in order.
func byMethod(msgs []wireMessage, method string) []wireMessage {
	var out []wireMessage
	for _, m := range msgs {
		if m.Method == method {
			out = append(out, m)
		}
	}
	return out
}

// jsonEqual reports whether two JSON documents are equal as values.
func jsonEqual(t *testing.T, a, b []byte) bool {
	t.Helper()
	var x, y any
	if err := json.Unmarshal(a, &x); err != nil {
		t.Fatalf("%s: %v", a, err)
	}
	if err := json.Unmarshal(b, &y); err != nil {
		t.Fatalf("%s: %v", b, err)
	}
	xa, _ := json.Marshal(x)
	ya, _ := json.Marshal(y)
	return bytes.Equal(xa, ya)
}
