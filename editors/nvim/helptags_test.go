package nvim_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// TestHelpTagsUpToDate: doc/tags ships with the plugin so that :help agentls
// works right after install, without :helptags. It must match what Neovim
// generates from doc/agentls.txt; regenerate with
// `cd editors/nvim && nvim --headless --clean -c 'helptags doc' -c q`.
func TestHelpTagsUpToDate(t *testing.T) {
	nvim := nvimPath(t)
	dir := t.TempDir()
	doc := filepath.Join(dir, "doc")
	if err := os.MkdirAll(doc, 0o755); err != nil {
		t.Fatal(err)
	}
	txt, err := os.ReadFile(filepath.Join("doc", "agentls.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(doc, "agentls.txt"), txt, 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, nvim, "--headless", "--clean", "-u", "NONE", "-i", "NONE", "-c", "helptags doc", "-c", "q")
	cmd.Dir = dir
	cmd.Env = append(cleanEnv(), "HOME="+dir, "XDG_CONFIG_HOME="+filepath.Join(dir, "config"),
		"XDG_DATA_HOME="+filepath.Join(dir, "data"), "XDG_STATE_HOME="+filepath.Join(dir, "state"))
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("nvim helptags: %v\n%s", err, out)
	}
	want, err := os.ReadFile(filepath.Join(doc, "tags"))
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join("doc", "tags"))
	if err != nil {
		t.Fatalf("doc/tags is missing: %v", err)
	}
	if string(got) != string(want) {
		t.Fatalf("doc/tags is stale; regenerate it (cd editors/nvim && nvim --headless --clean -c 'helptags doc' -c q):\nhave:\n%s\nwant:\n%s", got, want)
	}
}

// TestHelpWorksAfterInstall: with only editors/nvim on the runtime path
// (what every install method does), :help agentls opens the plugin's help
// at its top.
func TestHelpWorksAfterInstall(t *testing.T) {
	nvim := nvimPath(t)
	dir := t.TempDir()
	out := filepath.Join(dir, "help.txt")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, nvim, "--headless", "--clean", "-u", "NONE", "-i", "NONE",
		"--cmd", "set rtp+="+pluginDir(t), "-c", "help agentls",
		"-c", "call writefile([expand('%:t'), &filetype, line('.')], '"+out+"')", "-c", "qa!")
	cmd.Env = append(cleanEnv(), "HOME="+dir, "XDG_CONFIG_HOME="+filepath.Join(dir, "config"),
		"XDG_DATA_HOME="+filepath.Join(dir, "data"), "XDG_STATE_HOME="+filepath.Join(dir, "state"))
	combined, err := cmd.CombinedOutput()
	data, rerr := os.ReadFile(out)
	if rerr != nil {
		t.Fatalf(":help agentls did not run (%v): %v\n%s", err, rerr, combined)
	}
	// The *agentls* tag sits at the top, so :help agentls lands on the
	// file's first lines, not on some section that mentions the name.
	if string(data) != "agentls.txt\nhelp\n3\n" {
		t.Fatalf(":help agentls opened %q (file, filetype, cursor line; want line 3)\n%s", data, combined)
	}
}
