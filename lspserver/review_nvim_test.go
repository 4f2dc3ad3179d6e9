package lspserver_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentls/agentls/agent/llm/llmtest"
	"github.com/agentls/agentls/internal/testpeers"
	"github.com/agentls/agentls/internal/testwait"
	"github.com/agentls/agentls/lspserver/lsptest"
)

// TestNeovimReview drives plain Neovim (0.7.2 in CI: no documentChanges,
// so edits arrive as the `changes` map and the server verifies the buffer)
// as the LSP client of the built binary (testdata/nvim/review.lua): an
// agent run in preview mode (scripted model) proposes two changes on lines
// with emoji and CJK; the first is accepted and the second rejected through
// Neovim's own code action → executeCommand → workspace/applyEdit path; the
// buffer must hold exactly the accepted change, and the file on disk must
// be untouched (the server never writes). Before the review, Neovim's own
// diagnostics (vim.diagnostic, no plugin) hold each hunk with its change,
// and hover on a hunk is its diff; after it, the diagnostics are gone.
func TestNeovimReview(t *testing.T) {
	nvim, err := exec.LookPath("nvim")
	if err != nil {
		testpeers.Missing(t, "nvim not on PATH (.ci/run installs it)")
	}
	bin := lsptest.BuildBinary(t)
	script, err := filepath.Abs("testdata/nvim/review.lua")
	if err != nil {
		t.Fatal(err)
	}
	const base = "package demo\n\nfunc a() string {\n\treturn \"😀 日本\" + one\n}\n\nfunc b() string {\n\treturn \"café 🇫🇷\" + two\n}\n"
	for _, enc := range []string{"utf-16", "utf-8"} {
		t.Run(enc, func(t *testing.T) {
			t.Parallel()
			model := llmtest.New(t, func(req *llmtest.ChatRequest) llmtest.Reply {
				switch {
				case !req.HasToolResult("r1"):
					return llmtest.ToolCalls(llmtest.Call{ID: "r1", Name: "read_file", Args: callArgs(map[string]any{"path": "demo.go"})})
				case !req.HasToolResult("e1"):
					return llmtest.ToolCalls(
						llmtest.Call{ID: "e1", Name: "edit_file", Args: callArgs(map[string]any{"path": "demo.go", "old_string": "+ one", "new_string": "+ uno"})},
						llmtest.Call{ID: "e2", Name: "edit_file", Args: callArgs(map[string]any{"path": "demo.go", "old_string": "+ two", "new_string": "+ dos"})})
				}
				return llmtest.Text("Translated.")
			})
			dir := t.TempDir()
			file := filepath.Join(dir, "demo.go")
			if err := os.WriteFile(file, []byte(base), 0o644); err != nil {
				t.Fatal(err)
			}
			expect := filepath.Join(t.TempDir(), "expect.txt")
			if err := os.WriteFile(expect, []byte(strings.Replace(base, "+ one", "+ uno", 1)), 0o644); err != nil {
				t.Fatal(err)
			}
			result := filepath.Join(t.TempDir(), "result.txt")
			home := t.TempDir()
			testwait.EnvProcessesGone(t, "XDG_STATE_HOME="+filepath.Join(home, "state")) // agentls ends before home goes
			cmd := exec.CommandContext(lsptest.Context(t), nvim, "--headless", "--clean", "-u", "NONE", "-c", "luafile "+script)
			cmd.Env = append(os.Environ(),
				"AGENTLS_BIN="+bin, "AGENTLS_FILE="+file, "AGENTLS_RESULT="+result, "AGENTLS_EXPECT="+expect,
				"AGENTLS_MODEL_URL="+model.URL(), "AGENTLS_ENCODING="+enc, "OPENAI_API_KEY=test-key",
				"HOME="+home, "XDG_CONFIG_HOME="+filepath.Join(home, "config"),
				"XDG_DATA_HOME="+filepath.Join(home, "data"), "XDG_STATE_HOME="+filepath.Join(home, "state"),
				"XDG_CACHE_HOME="+filepath.Join(home, "cache"))
			out, err := cmd.CombinedOutput()
			report, rerr := os.ReadFile(result)
			if rerr != nil {
				t.Fatalf("no result from nvim (%v): %v\noutput:\n%s", err, rerr, out)
			}
			t.Logf("nvim report:\n%s", report)
			if lines := strings.Split(string(report), "\n"); lines[0] != "OK" {
				t.Fatalf("review through Neovim failed:\n%s\nnvim output:\n%s", report, out)
			}
			for _, want := range []string{"positionEncoding: " + enc, "run: finished", "hunks: 2",
				`diagnostic 1: line 3 severity 3: Agent proposes: return "😀 日本" + uno   (replacing: return "😀 日本" + one)`,
				`diagnostic 2: line 7 severity 3: Agent proposes: return "café 🇫🇷" + dos   (replacing: return "café 🇫🇷" + two)`,
				"hover: diff", "diagnostics after review: none", "Agent: Accept change: offered {", "Agent: Reject change: offered {", "buffer: ok", "server view: ok"} {
				if !strings.Contains(string(report), want) {
					t.Fatalf("the script did not get to %q:\n%s", want, report)
				}
			}
			if data, _ := os.ReadFile(file); string(data) != base {
				t.Fatalf("the file on disk changed: %q", data)
			}
		})
	}
}
