package main

import (
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/agentls/agentls/agent/llm/llmtest"
)

// A two-file --apply run is taken back by agentls revert: the edited file
// returns to its old text except a line the user changed since, the
// created file is deleted, a second revert does nothing, and the session's
// next run is told.
func TestRevertAppliedRun(t *testing.T) {
	srv := llmtest.New(t, func(req *llmtest.ChatRequest) llmtest.Reply {
		if req.Contains("what changed?") {
			return llmtest.Text("noted")
		}
		switch req.Turns() {
		case 0:
			return llmtest.ToolCalls(llmtest.Call{ID: "r", Name: "read_file", Args: `{"path":"greet.py"}`})
		case 1:
			return llmtest.ToolCalls(
				llmtest.Call{ID: "e", Name: "edit_file", Args: `{"path":"greet.py","old_string":"nme","new_string":"name"}`},
				llmtest.Call{ID: "w", Name: "write_file", Args: `{"path":"NOTES.md","content":"fixed\n"}`})
		}
		return llmtest.Text("done")
	})
	cliEnv(t, srv)
	ws := t.TempDir()
	orig := "# greeting\ndef greet(name):\n    return 'hi ' + nme\n\n\nprint(greet('x'))\n"
	writeFile(t, filepath.Join(ws, "greet.py"), orig, 0o644)
	code, _, stderr := runCLI(t, "--dir", ws, "--apply", "fix")
	if code != 0 {
		t.Fatalf("run: %d %s", code, stderr)
	}
	m := regexp.MustCompile(`transcript \S+-([0-9a-f]+)\.jsonl`).FindStringSubmatch(stderr)
	session := regexp.MustCompile(`session ([0-9a-f]+) \(continue`).FindStringSubmatch(stderr)
	if m == nil || session == nil || readFile(t, filepath.Join(ws, "NOTES.md")) != "fixed\n" {
		t.Fatalf("the run did not apply or print its ids:\n%s", stderr)
	}
	// The user edits the first line after the run.
	edited := strings.Replace(readFile(t, filepath.Join(ws, "greet.py")), "# greeting", "# greeting (mine)", 1)
	writeFile(t, filepath.Join(ws, "greet.py"), edited, 0o644)

	code, out, errOut := runRevert(t, "--dir", ws, m[1])
	if code != 0 {
		t.Fatalf("revert: %d\n%s\n%s", code, out, errOut)
	}
	if got, want := readFile(t, filepath.Join(ws, "greet.py")), strings.Replace(orig, "# greeting", "# greeting (mine)", 1); got != want {
		t.Fatalf("greet.py after revert:\n%q\nwant\n%q", got, want)
	}
	if _, err := os.Stat(filepath.Join(ws, "NOTES.md")); !os.IsNotExist(err) {
		t.Fatalf("the created file survived the revert: %v", err)
	}
	if !strings.Contains(out, "greet.py: reverted") || !strings.Contains(out, "NOTES.md: deleted") {
		t.Fatalf("revert said:\n%s", out)
	}
	// The run's transcript holds each file's fate: applied by the run,
	// then reverted (for agentls report).
	tpath := regexp.MustCompile(`transcript (\S+\.jsonl)`).FindStringSubmatch(stderr)[1]
	tr := readFile(t, tpath)
	for _, want := range []string{`"fate":"accepted","hunks":0,"kind":"fate","path":"` + filepath.Join(ws, "greet.py"), `"fate":"accepted","hunks":0,"kind":"fate","path":"` + filepath.Join(ws, "NOTES.md"),
		`"fate":"reverted","hunks":1,"kind":"fate","path":"` + filepath.Join(ws, "greet.py"), `"fate":"reverted","hunks":1,"kind":"fate","path":"` + filepath.Join(ws, "NOTES.md")} {
		if strings.Count(tr, want) != 1 {
			t.Errorf("transcript has %d of %s", strings.Count(tr, want), want)
		}
	}
	code, _, errOut = runRevert(t, "--dir", ws, m[1])
	if code != 0 || !strings.Contains(errOut, "already reverted") {
		t.Fatalf("second revert: %d %s", code, errOut)
	}
	if code, _, errOut = runRevert(t, "--dir", ws, "0123456789ab"); code != 1 || !strings.Contains(errOut, "no applied changes") {
		t.Fatalf("unknown run: %d %s", code, errOut)
	}
	if code, _, _ := runCLI(t, "--dir", ws, "--session", session[1], "what changed?"); code != 0 {
		t.Fatal("follow-up failed")
	}
	reqs := srv.Requests()
	if last := reqs[len(reqs)-1]; !last.Contains("The user reverted the changes of run "+m[1]) || !last.Contains("NOTES.md: deleted") {
		t.Fatal("the session's next run was not told about the revert")
	}
}

// A file the user changed on the very lines the run changed is left alone
// and reported, with exit status 1.
func TestRevertLeavesUsersLines(t *testing.T) {
	srv := llmtest.New(t, llmtest.Sequence(
		llmtest.ToolCalls(llmtest.Call{ID: "r", Name: "read_file", Args: `{"path":"a.txt"}`}),
		llmtest.ToolCalls(llmtest.Call{ID: "e", Name: "edit_file", Args: `{"path":"a.txt","old_string":"two","new_string":"TWO"}`}),
		llmtest.Text("done"),
	))
	cliEnv(t, srv)
	ws := t.TempDir()
	writeFile(t, filepath.Join(ws, "a.txt"), "one\ntwo\nthree\n", 0o644)
	_, _, stderr := runCLI(t, "--dir", ws, "--apply", "shout")
	m := regexp.MustCompile(`transcript \S+-([0-9a-f]+)\.jsonl`).FindStringSubmatch(stderr)
	if m == nil {
		t.Fatal(stderr)
	}
	writeFile(t, filepath.Join(ws, "a.txt"), "one\nTWO!!\nthree\n", 0o644)
	code, out, _ := runRevert(t, "--dir", ws, m[1])
	if code != 1 || !strings.Contains(out, "left alone") || readFile(t, filepath.Join(ws, "a.txt")) != "one\nTWO!!\nthree\n" {
		t.Fatalf("revert over the user's line: code %d, %q, file %q", code, out, readFile(t, filepath.Join(ws, "a.txt")))
	}
}

// The case: the run added line c below b, the user then added d
// below c; the revert takes c back and keeps d (a line next to the run's
// is no conflict).
func TestRevertKeepsUsersLineBelowRunsLine(t *testing.T) {
	srv := llmtest.New(t, llmtest.Sequence(
		llmtest.ToolCalls(llmtest.Call{ID: "r", Name: "read_file", Args: `{"path":"a.txt"}`}),
		llmtest.ToolCalls(llmtest.Call{ID: "e", Name: "edit_file", Args: `{"path":"a.txt","old_string":"b\n","new_string":"b\nc\n"}`}),
		llmtest.Text("done"),
	))
	cliEnv(t, srv)
	ws := t.TempDir()
	a := filepath.Join(ws, "a.txt")
	writeFile(t, a, "a\nb\n", 0o644)
	code, _, stderr := runCLI(t, "--dir", ws, "--apply", "add c")
	m := regexp.MustCompile(`transcript \S+-([0-9a-f]+)\.jsonl`).FindStringSubmatch(stderr)
	if code != 0 || m == nil || readFile(t, a) != "a\nb\nc\n" {
		t.Fatalf("run: %d, a.txt %q\n%s", code, readFile(t, a), stderr)
	}
	writeFile(t, a, "a\nb\nc\nd\n", 0o644)
	code, out, errOut := runRevert(t, "--dir", ws, m[1])
	if code != 0 || !strings.Contains(out, "a.txt: reverted") || readFile(t, a) != "a\nb\nd\n" {
		t.Fatalf("revert: code %d, a.txt %q, want \"a\\nb\\nd\\n\"\n%s%s", code, readFile(t, a), out, errOut)
	}
}

func runRevert(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb strings.Builder
	code := revertMain(args, &out, &errb)
	return code, out.String(), errb.String()
}

// An --apply run that could write only some of its files (the user edited
// one on disk during the run) names its run and how to take it back, and
// what it did write can be reverted; the session keeps only the file it
// could not write as pending, never the one already on disk.
func TestRevertPartlyAppliedRun(t *testing.T) {
	dir := t.TempDir()
	a := filepath.Join(dir, "a.txt")
	writeFile(t, a, "hello\nworld\n", 0o644)
	srv := llmtest.New(t, editScript(t, func() { writeFile(t, a, "hello\nworld\nuser line\n", 0o644) }))
	cliEnv(t, srv)
	code, _, stderr := runCLI(t, "--apply", "--dir", dir, "change world")
	if code != 1 || !strings.Contains(stderr, "applied changes to 1 of 2 file(s)") {
		t.Fatalf("code %d\nstderr:\n%s", code, stderr)
	}
	m := regexp.MustCompile(`take it back with: agentls revert --dir \S+ ([0-9a-f]+)\)`).FindStringSubmatch(stderr)
	if m == nil {
		t.Fatalf("the run's id and how to revert it are not printed:\n%s", stderr)
	}
	var out strings.Builder
	if code := sessionsMain([]string{"--dir", dir}, &out, io.Discard); code != 0 || !regexp.MustCompile(`\n\S+\s+\S+ \S+\s+1\s+1\s+change world`).MatchString(out.String()) {
		t.Fatalf("sessions (want 1 run, 1 pending: a.txt only):\n%s", out.String())
	}
	code, rout, rerr := runRevert(t, "--dir", dir, m[1])
	if code != 0 || !strings.Contains(rout, "new.txt: deleted") {
		t.Fatalf("revert: %d\n%s\n%s", code, rout, rerr)
	}
	if _, err := os.Stat(filepath.Join(dir, "sub", "new.txt")); !os.IsNotExist(err) {
		t.Fatalf("the written file survived the revert: %v", err)
	}
	if got := readFile(t, a); got != "hello\nworld\nuser line\n" {
		t.Fatalf("a.txt, never written, changed: %q", got)
	}
}
