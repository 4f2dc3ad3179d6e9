package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/agentls/agentls/lspserver/lsptest"
)

// agentlsBin runs the built binary with env added to the test's
// environment and returns its exit status and output.
func agentlsBin(t *testing.T, env []string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	return agentlsIn(t, "", env, args...)
}

// agentlsIn is agentlsBin in the directory dir ("": the test's).
func agentlsIn(t *testing.T, dir string, env []string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	cmd := exec.Command(lsptest.BuildBinary(t), args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdin = strings.NewReader("")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			t.Fatal(err)
		}
	}
	return cmd.ProcessState.ExitCode(), out.String(), errb.String()
}

// A newcomer's `agentls run` without a prompt gets one line that says what
// is missing and where the help is, not the whole help (issue 31 item 11).
func TestRunMissingPromptIsOneLine(t *testing.T) {
	cliEnv(t, nil)
	for _, args := range [][]string{{"run"}, {"run", "--dir", t.TempDir()}, {"run", "--apply"}} {
		code, stdout, stderr := agentlsBin(t, nil, args...)
		if code != 2 || stdout != "" || strings.Count(stderr, "\n") != 1 {
			t.Fatalf("%q: exit %d, stdout %q, stderr %q", args, code, stdout, stderr)
		}
		for _, want := range []string{"missing PROMPT", "agentls run [flags] PROMPT", "or - ", "agentls help run"} {
			if !strings.Contains(stderr, want) {
				t.Errorf("%q: stderr lacks %q: %q", args, want, stderr)
			}
		}
	}
	// The other commands missing a word say so in one line too.
	for _, args := range [][]string{{"mcp"}, {"revert"}, {"frobnicate"}, {"completion"}, {"completion", "tcsh"}} {
		code, stdout, stderr := agentlsBin(t, nil, args...)
		if code != 2 || stdout != "" || strings.Count(stderr, "\n") != 1 {
			t.Errorf("%q: exit %d, stdout %q, stderr %q", args, code, stdout, stderr)
		}
	}
}

// `agentls help CMD` is `agentls CMD --help`, exit 0, for every command;
// an unknown one is a one-line error, exit 2.
func TestHelpCommand(t *testing.T) {
	for _, c := range commands() {
		code, help, stderr := agentlsBin(t, nil, "help", c.name)
		if code != 0 || stderr != "" || !strings.HasPrefix(help, "usage: agentls") {
			t.Errorf("help %s: exit %d, stdout %q, stderr %q", c.name, code, help, stderr)
			continue
		}
		code, flagHelp, _ := agentlsBin(t, nil, c.name, "--help")
		if code != 0 || flagHelp != help {
			t.Errorf("help %s differs from %s --help (exit %d):\n%s\n---\n%s", c.name, c.name, code, help, flagHelp)
		}
		if c.name != "serve" && !strings.HasPrefix(help, "usage: agentls "+c.name) {
			t.Errorf("help %s is not its own:\n%s", c.name, help)
		}
	}
	if code, stdout, _ := agentlsBin(t, nil, "help"); code != 0 || !strings.Contains(stdout, "agentls help COMMAND") || !strings.Contains(stdout, "agentls completion") {
		t.Errorf("help: exit %d\n%s", code, stdout)
	}
	code, stdout, stderr := agentlsBin(t, nil, "help", "frobnicate")
	if code != 2 || stdout != "" || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, `"frobnicate"`) || !strings.Contains(stderr, "run") {
		t.Errorf("help frobnicate: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
}

// Help writes flags as docs/cli.md does: -o and -v with one dash, words
// with two; never --o.
func TestHelpFlagDashes(t *testing.T) {
	oneLetter := regexp.MustCompile(`^  --?([a-z])(\s|$)`)
	seen := map[string]bool{}
	for _, c := range commands() {
		_, help, _ := agentlsBin(t, nil, c.name, "--help")
		for _, line := range strings.Split(help, "\n") {
			if strings.HasPrefix(line, "  --") && len(strings.Fields(line)[0]) == 3 {
				t.Errorf("%s --help: a one-letter flag with two dashes: %q", c.name, line)
			}
			if strings.HasPrefix(line, "  -") && !strings.HasPrefix(line, "  --") && !oneLetter.MatchString(line) {
				t.Errorf("%s --help: a word flag with one dash: %q", c.name, line)
			}
			if m := oneLetter.FindStringSubmatch(line); m != nil {
				seen[c.name+" -"+m[1]] = true
			}
		}
	}
	for _, want := range []string{"report -o", "mcp -v"} {
		if !seen[want] {
			t.Errorf("no %s in the help", want)
		}
	}
	// Errors name flags the same way.
	if _, _, stderr := agentlsBin(t, nil, "report", "-o"); !strings.Contains(stderr, "argument: -o\n") {
		t.Errorf("report -o without a file: %q", stderr)
	}
}

// The completion scripts are generated from the commands' flag sets: bash
// accepts its script and completes `agentls ru<TAB>` to run, a command's
// flags and words; zsh and fish name every command and flag (those shells
// need not be installed: their scripts are checked as text, and by the
// shell when it is there).
func TestCompletionScripts(t *testing.T) {
	dir := t.TempDir()
	scripts := map[string]string{}
	for _, sh := range shells {
		code, script, stderr := agentlsBin(t, nil, "completion", sh)
		if code != 0 || stderr != "" || script == "" {
			t.Fatalf("completion %s: exit %d, stderr %q", sh, code, stderr)
		}
		scripts[sh] = script
		for _, c := range commands() {
			if !strings.Contains(script, c.name) {
				t.Errorf("%s script lacks the command %s", sh, c.name)
			}
		}
		for _, want := range []string{"apply", "replay", "transcripts", "trust-workspace"} {
			if !strings.Contains(script, want) {
				t.Errorf("%s script lacks the flag %s", sh, want)
			}
		}
		if err := os.WriteFile(filepath.Join(dir, "agentls."+sh), []byte(script), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if out, err := exec.Command("bash", "-n", filepath.Join(dir, "agentls.bash")).CombinedOutput(); err != nil {
		t.Fatalf("bash -n rejects the script: %v\n%s", err, out)
	}
	for _, sh := range []string{"zsh", "fish"} {
		if path, err := exec.LookPath(sh); err == nil {
			if out, err := exec.Command(path, "-n", filepath.Join(dir, "agentls."+sh)).CombinedOutput(); err != nil {
				t.Errorf("%s -n rejects the script: %v\n%s", sh, err, out)
			}
		}
	}
	writeFile(t, filepath.Join(dir, "ws", "a.txt"), "x\n", 0o644)

	// complete drives bash's completion function as readline would for
	// the words typed so far (the last is the one being completed).
	complete := func(line string) []string {
		t.Helper()
		cmd := exec.Command("bash", "--norc", "--noprofile", "-c", `source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(( $# - 1 )); _agentls; printf '%s\n' "${COMPREPLY[@]}"`,
			"bash", filepath.Join(dir, "agentls.bash"))
		cmd.Args = append(cmd.Args, strings.Split(line, " ")...)
		cmd.Dir = dir
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("completing %q: %v\n%s", line, err, out)
		}
		return strings.Fields(string(out))
	}
	for line, want := range map[string]string{
		"agentls ru":              "run",
		"agentls run --ap":        "--apply",
		"agentls run --dir w":     "ws",
		"agentls report -":        "-o --dir --session --transcripts --help",
		"agentls mcp lo":          "login logout",
		"agentls mcp -":           "-v --verbose --json",
		"agentls help rev":        "revert",
		"agentls completion f":    "fish",
		"agentls --log":           "--log-file --log-level",
		"agentls sessions --dir ": "ws",
	} {
		got := complete(line)
		for _, w := range strings.Fields(want) {
			if !strings.Contains(" "+strings.Join(got, " ")+" ", " "+w+" ") {
				t.Errorf("%q completes to %q, want %s among them", line, got, w)
			}
		}
	}
	if got := complete("agentls ru"); len(got) != 1 {
		t.Errorf("agentls ru completes to %q, want only run", got)
	}
}

// stateFiles lists the files under the state directory.
func stateFiles(t *testing.T, state string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(state, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			out = append(out, p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// The README's demo, as a newcomer meets it: a replay with a mistyped
// prompt or a missing cassette leaves nothing (no session for the editor
// to show, no transcript); the right prompt's run ends naming its report
// command; and `agentls report` one directory too high lists that run
// (id, time, workspace) instead of only failing.
func TestNewcomerReplayAndReport(t *testing.T) {
	noModelEnv(t)
	state := os.Getenv("XDG_STATE_HOME")
	cas, err := filepath.Abs(exampleCassette)
	if err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	ws := filepath.Join(root, "examples", "hello")
	writeFile(t, filepath.Join(ws, "greet.py"), readFile(t, filepath.Join(exampleDir, "greet.py")), 0o644)

	code, _, stderr := agentlsIn(t, root, nil, "report")
	if code != 1 || !strings.Contains(stderr, "no run in "+root+" nor in a workspace below it") {
		t.Fatalf("report with no runs at all: exit %d\n%s", code, stderr)
	}

	for name, args := range map[string][]string{
		"wrong prompt":     {"--replay", cas, "Fix greet.py"},
		"missing cassette": {"--replay", filepath.Join(root, "nope.cassette.json"), examplePrompt},
	} {
		code, _, stderr := agentlsIn(t, root, nil, append([]string{"run", "--dir", ws}, args...)...)
		if code == 0 || !strings.Contains(stderr, "agentls run:") {
			t.Fatalf("%s: exit %d\n%s", name, code, stderr)
		}
		if left := stateFiles(t, state); len(left) > 0 {
			t.Fatalf("%s left %q behind\n%s", name, left, stderr)
		}
		if strings.Contains(stderr, "agentls report") || strings.Contains(stderr, "session ") {
			t.Errorf("%s names a report or session it did not keep:\n%s", name, stderr)
		}
	}
	if _, stdout, _ := agentlsIn(t, root, nil, "sessions", "--dir", ws); stdout != "" {
		t.Fatalf("a failed replay left a session:\n%s", stdout)
	}

	code, _, stderr = agentlsIn(t, root, nil, "run", "--dir", ws, "--replay", cas, examplePrompt)
	if code != 0 {
		t.Fatalf("replay: exit %d\n%s", code, stderr)
	}
	runID := regexp.MustCompile(`transcript \S+-([0-9a-f]+)\.jsonl`).FindStringSubmatch(stderr)
	if runID == nil {
		t.Fatalf("no transcript:\n%s", stderr)
	}
	lines := strings.Split(strings.TrimSpace(stderr), "\n")
	if got, want := lines[len(lines)-2], "agentls: see this run as a page: agentls report "+runID[1]; got != want {
		t.Fatalf("the line above the usage line is %q, want %q\n%s", got, want, stderr)
	}

	code, stdout, stderr := agentlsIn(t, root, nil, "report")
	if code != 1 || stdout != "" {
		t.Fatalf("report above the workspace: exit %d, stdout %q\n%s", code, stdout, stderr)
	}
	row := regexp.MustCompile(`(?m)^  ` + runID[1] + `  (\d{4}-\d\d-\d\d \d\d:\d\d:\d\d)  examples/hello$`).FindStringSubmatch(stderr)
	if row == nil || !strings.Contains(stderr, "agentls report "+runID[1]) {
		t.Fatalf("report above the workspace does not list the run with its time and workspace:\n%s", stderr)
	}
	if when, err := time.ParseInLocation(time.DateTime, row[1], time.Local); err != nil || time.Since(when) > time.Hour || time.Until(when) > time.Minute {
		t.Errorf("the run's time %q is not now (%v)", row[1], err)
	}
	code, stdout, stderr = agentlsIn(t, root, nil, "report", runID[1])
	if code != 0 || !strings.HasSuffix(strings.TrimSpace(stdout), runID[1]+".html") {
		t.Fatalf("the listed command: exit %d, stdout %q\n%s", code, stdout, stderr)
	}
}
