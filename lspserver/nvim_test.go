package lspserver_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentls/agentls/internal/testpeers"
	"github.com/agentls/agentls/internal/testwait"
	"github.com/agentls/agentls/lspserver/lsptest"
)

// TestNeovimSync runs Neovim headless as the LSP client of the built agentls
// binary (testdata/nvim/sync.lua): it opens a CRLF file with emoji and CJK,
// edits the buffer with API calls and normal-mode commands, and after each
// group compares agentls/document with the buffer. Run in utf-16 (Neovim
// 0.7's only encoding by default) and utf-8 (negotiated).
func TestNeovimSync(t *testing.T) {
	nvim, err := exec.LookPath("nvim")
	if err != nil {
		testpeers.Missing(t, "nvim not on PATH (.ci/run installs it)")
	}
	bin := lsptest.BuildBinary(t)
	script, err := filepath.Abs("testdata/nvim/sync.lua")
	if err != nil {
		t.Fatal(err)
	}
	for _, enc := range []string{"utf-16", "utf-8"} {
		t.Run(enc, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			file := filepath.Join(dir, "sample.txt")
			content := "héllo wörld 😀 end\r\n日本語のテキスト\r\n\tindented 🇫🇷 line\r\ncafe\u0301 👩‍💻\r\nlast line\r\n"
			if err := os.WriteFile(file, []byte(content), 0o644); err != nil {
				t.Fatal(err)
			}
			result := filepath.Join(dir, "result.txt")
			home := t.TempDir()                                                          // isolate Neovim from the user's config and state
			testwait.EnvProcessesGone(t, "XDG_STATE_HOME="+filepath.Join(home, "state")) // agentls ends before home goes
			cmd := exec.CommandContext(lsptest.Context(t), nvim, "--headless", "--clean", "-u", "NONE", "-c", "luafile "+script)
			cmd.Env = append(os.Environ(),
				"AGENTLS_BIN="+bin, "AGENTLS_FILE="+file, "AGENTLS_RESULT="+result, "AGENTLS_ENCODING="+enc,
				"HOME="+home, "XDG_CONFIG_HOME="+filepath.Join(home, "config"),
				"XDG_DATA_HOME="+filepath.Join(home, "data"), "XDG_STATE_HOME="+filepath.Join(home, "state"),
				"XDG_CACHE_HOME="+filepath.Join(home, "cache"))
			out, err := cmd.CombinedOutput()
			report, rerr := os.ReadFile(result)
			if rerr != nil {
				t.Fatalf("no result from nvim (%v): %v\noutput:\n%s", err, rerr, out)
			}
			t.Logf("nvim report:\n%s", report)
			lines := strings.Split(string(report), "\n")
			if lines[0] != "OK" {
				t.Fatalf("Neovim and agentls disagree:\n%s\nnvim output:\n%s", report, out)
			}
			if !strings.Contains(string(report), "checks: 5") || !strings.Contains(string(report), "fileformat: dos") ||
				!strings.Contains(string(report), "positionEncoding: "+enc) {
				t.Fatalf("the script did not run every check on a CRLF buffer:\n%s", report)
			}
		})
	}
}
