package lspserver_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentls/agentls/lspserver/lsptest"
)

// TestBinaryExitCodes drives the built agentls binary over real stdio.
func TestBinaryExitCodes(t *testing.T) {
	bin := lsptest.BuildBinary(t)
	for _, tc := range []struct {
		name     string
		args     []string
		shutdown bool
		end      string // "exit", "close" or "garbage"
		want     int
		stderr   string
	}{
		{name: "shutdown then exit", shutdown: true, end: "exit", want: 0},
		{name: "exit without shutdown", end: "exit", want: 1},
		{name: "stdin closed", end: "close", want: 1},
		{name: "stdin closed after shutdown", args: []string{"serve"}, shutdown: true, end: "close", want: 0},
		{name: "unreadable header", args: []string{"--log-level", "error"}, end: "garbage", want: 2, stderr: "cannot read LSP input"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			b := lsptest.StartBinary(t, bin, tc.args...)
			ctx := lsptest.Context(t)
			if _, err := b.Initialize(ctx, lsptest.InitOptions{Folders: []string{t.TempDir()}}); err != nil {
				t.Fatal(err)
			}
			if tc.shutdown {
				if err := b.Shutdown(ctx); err != nil {
					t.Fatal(err)
				}
			}
			switch tc.end {
			case "exit":
				if err := b.Exit(ctx); err != nil {
					t.Fatal(err)
				}
			case "close":
				if err := b.CloseInput(); err != nil {
					t.Fatal(err)
				}
			case "garbage":
				if err := b.WriteRaw([]byte("Content-Length: twelve\r\n\r\n")); err != nil {
					t.Fatal(err)
				}
			}
			code, err := b.Wait(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if code != tc.want {
				t.Errorf("exit code %d, want %d\nstderr:\n%s", code, tc.want, b.Stderr())
			}
			if !strings.Contains(b.Stderr(), tc.stderr) {
				t.Errorf("stderr lacks %q:\n%s", tc.stderr, b.Stderr())
			}
		})
	}
}

// TestBinaryLogFile: --log-file takes the logs; stdout carries only frames
// (the client would fail on anything else) and stderr stays empty.
func TestBinaryLogFile(t *testing.T) {
	bin := lsptest.BuildBinary(t)
	logFile := filepath.Join(t.TempDir(), "agentls.log")
	b := lsptest.StartBinary(t, bin, "--log-file", logFile, "--log-level", "debug")
	ctx := lsptest.Context(t)
	if _, err := b.Initialize(ctx, lsptest.InitOptions{Folders: []string{t.TempDir()}}); err != nil {
		t.Fatal(err)
	}
	if err := b.Notify(ctx, "$/setTrace", map[string]string{"value": "verbose"}); err != nil { // logged at debug
		t.Fatal(err)
	}
	if err := b.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	if err := b.Exit(ctx); err != nil {
		t.Fatal(err)
	}
	if code, err := b.Wait(ctx); err != nil || code != 0 {
		t.Fatalf("exit %d, %v", code, err)
	}
	data, err := os.ReadFile(logFile)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"agentls starting", "level=DEBUG msg=$/setTrace value=verbose", "shutdown requested", "agentls exiting"} {
		if !strings.Contains(string(data), want) {
			t.Errorf("log file lacks %q:\n%s", want, data)
		}
	}
	if b.Stderr() != "" {
		t.Errorf("stderr not empty with --log-file:\n%s", b.Stderr())
	}
}

// TestBinaryParentDeath: the binary exits when its editor dies (default
// poll interval, a few seconds).
func TestBinaryParentDeath(t *testing.T) {
	t.Parallel()
	bin := lsptest.BuildBinary(t)
	editor := exec.Command("sleep", "600")
	if err := editor.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = editor.Process.Kill(); _ = editor.Wait() })
	pid := int32(editor.Process.Pid)
	b := lsptest.StartBinary(t, bin)
	ctx := lsptest.Context(t)
	if _, err := b.Initialize(ctx, lsptest.InitOptions{ProcessID: &pid}); err != nil {
		t.Fatal(err)
	}
	_ = editor.Process.Kill()
	_ = editor.Wait()
	code, err := b.Wait(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if code != 1 {
		t.Errorf("exit code %d, want 1", code)
	}
	if !strings.Contains(b.Stderr(), "editor process") {
		t.Errorf("no log line about the editor's death:\n%s", b.Stderr())
	}
}

// TestBinarySubcommands checks version, help, unknown commands, bad flags
// and the placeholders' exit codes.
func TestBinarySubcommands(t *testing.T) {
	bin := lsptest.BuildBinary(t)
	for _, tc := range []struct {
		args   []string
		code   int
		stdout string
		stderr string
	}{
		{args: []string{"version"}, code: 0, stdout: "agentls "},
		{args: []string{"help"}, code: 0, stdout: "usage: agentls"},
		{args: []string{"frobnicate"}, code: 2, stderr: `unknown command "frobnicate"`},
		{args: []string{"serve", "--log-level", "loud"}, code: 2, stderr: "bad --log-level"},
		{args: []string{"serve", "extra"}, code: 2, stderr: "unexpected arguments"},
		// run and mcp belong to other packages: only check they are dispatched.
		{args: []string{"run"}, code: 2, stderr: "agentls run"},
		{args: []string{"mcp"}, code: 2, stderr: "agentls mcp"},
	} {
		cmd := exec.Command(bin, tc.args...)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		if code != tc.code || !strings.Contains(stdout.String(), tc.stdout) || !strings.Contains(stderr.String(), tc.stderr) {
			t.Errorf("agentls %v: code %d stdout %q stderr %q; want code %d, stdout ∋ %q, stderr ∋ %q",
				tc.args, code, stdout.String(), stderr.String(), tc.code, tc.stdout, tc.stderr)
		}
	}
}
