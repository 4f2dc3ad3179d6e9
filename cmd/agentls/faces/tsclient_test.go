package faces_test

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentls/agentls/acpserver/acptest"
	"github.com/agentls/agentls/agent/llm/llmtest"
	"github.com/agentls/agentls/internal/testpeers"
	"github.com/agentls/agentls/lspserver"
	"github.com/agentls/agentls/lspserver/lsptest"
)

// acpSDKDir is where .ci/run installs the official TypeScript SDK:
// $AGENTLS_ACP_DIR, else ~/.cache/agentls-ci/acp. A missing SDK or node
// skips here and fails in CI (testpeers).
func acpSDKDir(t *testing.T) string {
	t.Helper()
	testpeers.LookPath(t, "node", "Debian's nodejs; .ci/run installs it")
	dir := os.Getenv("AGENTLS_ACP_DIR")
	if dir == "" {
		home, _ := os.UserHomeDir()
		dir = filepath.Join(home, ".cache", "agentls-ci", "acp")
	}
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "@agentclientprotocol", "sdk", "package.json")); err != nil {
		testpeers.Missing(t, "@agentclientprotocol/sdk is not installed in %s (npm install @agentclientprotocol/sdk there, or set AGENTLS_ACP_DIR): %v", dir, err)
	}
	return dir
}

// The official TypeScript SDK's client runs a whole session against the
// agentls binary (testdata/tsclient.mjs validates every message against
// the SDK's schemas): a prompt streams text and tool calls, the change is
// shown as a diff and written (by the client's fs/write_text_file) only
// after permission, a prompt is cancelled mid-stream, modes and config
// options switch, the session is listed, and after a restart it is
// loaded (replayed) and continued. Then the same session continues over
// LSP, and `agentls revert` takes back the change allowed over ACP.
func TestTypeScriptClient(t *testing.T) {
	sdk := acpSDKDir(t)
	bin := lsptest.BuildBinary(t)
	hang := llmtest.NewHang()
	model := llmtest.New(t, func(r *llmtest.ChatRequest) llmtest.Reply {
		switch user := r.LastUser(); {
		case strings.Contains(user, "talk slowly"):
			return llmtest.Text("one two three four five six").HangAfter(2, hang)
		case strings.Contains(user, "what did you change"):
			return llmtest.Text("I changed a.txt to greet the world.")
		case strings.Contains(user, "continue over LSP"):
			return llmtest.Text("continued over LSP")
		}
		if !r.HasToolResult("c1") {
			return acptest.Call("c1", "read_file", `{"path":"a.txt"}`).WithText("Reading a.txt. ")
		}
		if !r.HasToolResult("c2") {
			return acptest.Call("c2", "edit_file", `{"path":"a.txt","old_string":"hello","new_string":"hello, world"}`)
		}
		return llmtest.Text("I greeted the world.")
	})
	work := acptest.RealDir(t, t.TempDir())
	if err := os.WriteFile(filepath.Join(work, "a.txt"), []byte("hello\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	home, logs := t.TempDir(), t.TempDir()
	state := filepath.Join(home, "state")
	script, err := filepath.Abs("testdata/tsclient.mjs")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*60e9)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", script)
	cmd.Env = append(os.Environ(), "AGENTLS_BIN="+bin, "AGENTLS_ACP_DIR="+sdk, "WORKDIR="+work, "LOG_DIR="+logs,
		"HOME="+home, "XDG_CONFIG_HOME="+filepath.Join(home, "config"), "XDG_STATE_HOME="+state,
		"OPENAI_BASE_URL="+model.URL(), "AGENTLS_MODEL=test-model", "OPENAI_API_KEY=")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		for _, n := range []string{"first.log", "second.log"} {
			b, _ := os.ReadFile(filepath.Join(logs, n))
			t.Logf("%s:\n%s", n, b)
		}
		t.Fatalf("tsclient: %v\n%s", err, stderr.String())
	}
	var sum struct {
		SessionID   string `json:"sessionId"`
		RunID       string `json:"runId"`
		FirstPrompt struct {
			Kinds       []string `json:"kinds"`
			Permissions int      `json:"permissions"`
		} `json:"firstPrompt"`
		CancelMillis int      `json:"cancelMillis"`
		ReplayKinds  []string `json:"replayKinds"`
		Validated    int      `json:"validated"`
	}
	if err := json.Unmarshal(out, &sum); err != nil {
		t.Fatalf("summary %q: %v", out, err)
	}
	t.Logf("TypeScript client: %d messages validated, cancel answered in %d ms", sum.Validated, sum.CancelMillis)
	if sum.Validated < 20 || sum.FirstPrompt.Permissions != 1 || sum.SessionID == "" {
		t.Fatalf("summary: %+v", sum)
	}
	select {
	case <-hang.Disconnected():
	default:
		t.Fatal("the cancelled prompt's model stream is still open")
	}
	reqs := acptest.ChatRequests(model)
	if last := reqs[len(reqs)-1]; !last.Contains("I greeted the world.") {
		t.Fatal("the session loaded after the restart did not carry the conversation")
	}

	// The same session continues over LSP.
	srv := lspserver.New(lspserver.Options{NoWatcher: true})
	env := map[string]string{"HOME": home, "XDG_CONFIG_HOME": filepath.Join(home, "config"), "XDG_STATE_HOME": state,
		"OPENAI_BASE_URL": model.URL(), "AGENTLS_MODEL": "test-model"}
	srv.SetRunOptions(lspserver.RunOptions{Env: func(k string) string { return env[k] }, TranscriptDir: lspserver.NoTranscripts})
	c := lsptest.NewInProcessServer(t, srv)
	lctx := lsptest.Context(t)
	if _, err := c.Initialize(lctx, lsptest.InitOptions{Folders: []string{work}}); err != nil {
		t.Fatal(err)
	}
	continueOverLSP(t, c, sum.SessionID, "continue over LSP")
	reqs = acptest.ChatRequests(model)
	last := reqs[len(reqs)-1]
	if !last.Contains("what did you change?") || !last.Contains("I greeted the world.") {
		t.Fatal("the LSP run did not continue the ACP session's conversation")
	}

	// The change the TypeScript client allowed (and wrote) is taken back
	// by the binary's `agentls revert`.
	rev := exec.CommandContext(ctx, bin, "revert", "--dir", work, sum.RunID)
	rev.Env = append(os.Environ(), "HOME="+home, "XDG_CONFIG_HOME="+filepath.Join(home, "config"), "XDG_STATE_HOME="+state)
	var revErr strings.Builder
	rev.Stderr = &revErr
	revOut, err := rev.Output()
	if err != nil || !strings.Contains(string(revOut), "a.txt: reverted") {
		t.Fatalf("agentls revert %s: %v\n%s\n%s", sum.RunID, err, revOut, revErr.String())
	}
	if b, _ := os.ReadFile(filepath.Join(work, "a.txt")); string(b) != "hello\n" {
		t.Fatalf("a.txt after agentls revert: %q", b)
	}
}

// Over the official TypeScript SDK's client, a turn with a configured
// check (issue 31): the model's first edit fails the check and is never
// put to the user nor written; the fixed file is asked about once, with
// its final diff and the check's result, and written after the allow.
func TestTypeScriptClientChecks(t *testing.T) {
	sdk := acpSDKDir(t)
	bin := lsptest.BuildBinary(t)
	model := llmtest.New(t, func(r *llmtest.ChatRequest) llmtest.Reply {
		switch {
		case !r.HasToolResult("r1"):
			return acptest.Call("r1", "read_file", `{"path":"calc.go"}`)
		case !r.HasToolResult("e1"):
			return acptest.Call("e1", "edit_file", `{"path":"calc.go","old_string":"return a + b","new_string":"return a*b + 1"}`)
		case r.Contains(`check "test" failed`) && !r.HasToolResult("e2"):
			return acptest.Call("e2", "edit_file", `{"path":"calc.go","old_string":"return a*b + 1","new_string":"return a*b"}`)
		}
		return llmtest.Text("Mul multiplies now.")
	})
	work := acptest.RealDir(t, t.TempDir())
	const before, after = "package calc\n\nfunc Mul(a, b int) int {\n\treturn a + b\n}\n", "package calc\n\nfunc Mul(a, b int) int {\n\treturn a*b\n}\n"
	if err := os.WriteFile(filepath.Join(work, "calc.go"), []byte(before), 0o644); err != nil {
		t.Fatal(err)
	}
	home, logs := t.TempDir(), t.TempDir()
	cfg := filepath.Join(home, "config", "agentls", "config.json")
	if err := os.MkdirAll(filepath.Dir(cfg), 0o755); err != nil {
		t.Fatal(err)
	}
	check := `{"checks": [{"name": "test", "command": "grep -q 'return a\\*b$' calc.go || { echo 'Mul(2, 3) = 7, want 6'; exit 1; }"}]}`
	if err := os.WriteFile(cfg, []byte(check), 0o644); err != nil {
		t.Fatal(err)
	}
	script, err := filepath.Abs("testdata/tsclient.mjs")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*60e9)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", script)
	cmd.Env = append(os.Environ(), "SCENARIO=checks", "AGENTLS_BIN="+bin, "AGENTLS_ACP_DIR="+sdk, "WORKDIR="+work, "LOG_DIR="+logs,
		"HOME="+home, "XDG_CONFIG_HOME="+filepath.Join(home, "config"), "XDG_STATE_HOME="+filepath.Join(home, "state"),
		"OPENAI_BASE_URL="+model.URL(), "AGENTLS_MODEL=test-model", "OPENAI_API_KEY=")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		b, _ := os.ReadFile(filepath.Join(logs, "checks.log"))
		t.Fatalf("tsclient: %v\n%s\nchecks.log:\n%s", err, stderr.String(), b)
	}
	var sum struct {
		Permissions int      `json:"permissions"`
		Writes      []string `json:"writes"`
		Validated   int      `json:"validated"`
	}
	if err := json.Unmarshal(out, &sum); err != nil {
		t.Fatalf("summary %q: %v", out, err)
	}
	if sum.Permissions != 1 || len(sum.Writes) != 1 || sum.Writes[0] != after || sum.Validated < 10 {
		t.Fatalf("summary: %+v", sum)
	}
	if b, _ := os.ReadFile(filepath.Join(work, "calc.go")); string(b) != after {
		t.Fatalf("calc.go after the turn: %q", b)
	}
}
