package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// agentls remember prints the diff, writes only with --apply, never adds
// a note twice, and --scope user writes the user's own AGENTS.md.
func TestRememberCLI(t *testing.T) {
	cfg := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", cfg)
	ws := t.TempDir()
	agents := filepath.Join(ws, "AGENTS.md")
	rem := func(args ...string) (int, string, string) {
		var out, errb strings.Builder
		code := rememberMain(args, &out, &errb)
		return code, out.String(), errb.String()
	}
	code, out, _ := rem("--dir", ws, "Wrap errors\nwith %w.")
	if code != 0 || !strings.Contains(out, "+- Wrap errors with %w.") || !strings.Contains(out, "/dev/null") {
		t.Fatalf("diff: %d %q", code, out)
	}
	if _, err := os.Stat(agents); !os.IsNotExist(err) {
		t.Fatal("written without --apply")
	}
	if code, _, errs := rem("--dir", ws, "--apply", "Wrap errors with %w."); code != 0 || readFile(t, agents) != "- Wrap errors with %w.\n" {
		t.Fatalf("--apply: %d %s %q", code, errs, readFile(t, agents))
	}
	if code, _, errs := rem("--dir", ws, "--apply", "--", "- wrap errors with %w."); code != 0 || !strings.Contains(errs, "already holds") || readFile(t, agents) != "- Wrap errors with %w.\n" {
		t.Fatalf("duplicate: %d %s", code, errs)
	}
	user := filepath.Join(cfg, "agentls", "AGENTS.md")
	if code, _, errs := rem("--scope", "user", "--apply", "Answer briefly."); code != 0 || readFile(t, user) != "- Answer briefly.\n" {
		t.Fatalf("user scope: %d %s", code, errs)
	}
	if code, _, _ := rem("--scope", "team", "x"); code != 2 {
		t.Fatalf("bad scope: exit %d", code)
	}
}
