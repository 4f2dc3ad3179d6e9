package main

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agentls/agentls/agent/llm"
	"github.com/agentls/agentls/agent/llm/llmtest"
)

var update = flag.Bool("update", false, "re-record examples/hello/fix-greet.cassette.json against the scripted model")

const (
	exampleDir      = "../../examples/hello"
	exampleCassette = exampleDir + "/fix-greet.cassette.json"
	examplePrompt   = "Fix the bug in greet.py"
)

// helloScript is the model of the example run: read, fix, answer.
func helloScript() llmtest.Script {
	return llmtest.Sequence(
		llmtest.ToolCalls(llmtest.Call{ID: "call_read", Name: "read_file", Args: `{"path":"greet.py"}`}).
			WithText("Let me look at greet.py."),
		llmtest.ToolCalls(llmtest.Call{ID: "call_edit", Name: "edit_file",
			Args: `{"path":"greet.py","old_string":"return \"Hello, \" + nme + \"!\"","new_string":"return \"Hello, \" + name + \"!\""}`}).
			WithText("greet() uses `nme`, which is not defined; the parameter is `name`."),
		llmtest.Text("Fixed: greet() referred to the undefined name `nme`; it now uses its parameter `name`."),
	)
}

// noModelEnv unsets every variable that could configure a model, so a
// replay proves it needs none.
func noModelEnv(t *testing.T) {
	t.Helper()
	cliEnv(t, nil)
	for _, v := range []string{"OPENAI_API_KEY", "OPENAI_BASE_URL", "AGENTLS_MODEL"} {
		t.Setenv(v, "")
		os.Unsetenv(v)
	}
}

// copyExample copies the example workspace (without its cassette) to a
// temp dir.
func copyExample(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "greet.py"), readFile(t, filepath.Join(exampleDir, "greet.py")), 0o644)
	return dir
}

// TestExampleHello replays the Quick start's example run with no model
// configured and checks its diff, so the shipped cassette cannot rot.
// With -update it first records the cassette again against llmtest.
func TestExampleHello(t *testing.T) {
	if *update {
		srv := llmtest.New(t, helloScript())
		cliEnv(t, srv)
		cas, err := filepath.Abs(exampleCassette)
		if err != nil {
			t.Fatal(err)
		}
		code, _, stderr := runCLI(t, "--dir", exampleDir, "--record", cas, examplePrompt)
		if code != 0 {
			t.Fatalf("record: exit %d\n%s", code, stderr)
		}
	}
	noModelEnv(t)
	before := readFile(t, filepath.Join(exampleDir, "greet.py"))
	code, stdout, stderr := runCLI(t, "--dir", exampleDir, "--replay", exampleCassette, examplePrompt)
	if code != 0 {
		t.Fatalf("replay: exit %d\nstdout:\n%s\nstderr:\n%s\nIf the tools or the prompt changed on purpose, re-record the cassette: "+
			"go test ./cmd/agentls -run TestExampleHello -update", code, stdout, stderr)
	}
	for _, want := range []string{
		"--- a/greet.py", "+++ b/greet.py",
		`-    return "Hello, " + nme + "!"`, `+    return "Hello, " + name + "!"`,
		"Fixed: greet() referred to the undefined name",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, stdout)
		}
	}
	for _, want := range []string{"→ read_file", "→ edit_file", "nothing was written; run again with --apply"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	if after := readFile(t, filepath.Join(exampleDir, "greet.py")); after != before {
		t.Fatalf("a run without --apply changed greet.py:\n%s", after)
	}
}

// TestReplayApplyWritesSameResult replays the example with --apply in a
// copy: the file ends up fixed, as when it was recorded.
func TestReplayApplyWritesSameResult(t *testing.T) {
	noModelEnv(t)
	dir := copyExample(t)
	code, _, stderr := runCLI(t, "--dir", dir, "--replay", exampleCassette, "--apply", examplePrompt)
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	if got := readFile(t, filepath.Join(dir, "greet.py")); !strings.Contains(got, `return "Hello, " + name + "!"`) {
		t.Fatalf("greet.py not fixed:\n%s", got)
	}
}

// TestReplayDivergence: a replay whose run differs from the recording fails
// with an error naming the turn and writes nothing.
func TestReplayDivergence(t *testing.T) {
	noModelEnv(t)
	cas, err := llm.LoadCassette(exampleCassette)
	if err != nil {
		t.Fatal(err)
	}
	t.Run("workspace text differs", func(t *testing.T) {
		dir := copyExample(t)
		changed := strings.Replace(readFile(t, filepath.Join(dir, "greet.py")), "Return a greeting", "Greet", 1)
		writeFile(t, filepath.Join(dir, "greet.py"), changed, 0o644)
		code, stdout, stderr := runCLI(t, "--dir", dir, "--replay", exampleCassette, "--apply", examplePrompt)
		if code != 1 {
			t.Fatalf("exit %d, want 1\n%s", code, stderr)
		}
		if !strings.Contains(stderr, "turn 2:") || !strings.Contains(stderr, "differs from the recording") {
			t.Fatalf("stderr does not name the diverging turn:\n%s", stderr)
		}
		if strings.Contains(stdout, "+++") || readFile(t, filepath.Join(dir, "greet.py")) != changed {
			t.Fatalf("a diverged replay proposed or wrote a change:\nstdout:\n%s", stdout)
		}
	})
	t.Run("different prompt", func(t *testing.T) {
		dir := copyExample(t)
		code, _, stderr := runCLI(t, "--dir", dir, "--replay", exampleCassette, "Explain greet.py")
		if code != 1 || !strings.Contains(stderr, "turn 1:") || !strings.Contains(stderr, "Explain greet.py") {
			t.Fatalf("exit %d\n%s", code, stderr)
		}
	})
	t.Run("more turns than recorded", func(t *testing.T) {
		short := *cas
		short.Turns = short.Turns[:2]
		b, _ := json.Marshal(short)
		path := filepath.Join(t.TempDir(), "short.json")
		writeFile(t, path, string(b), 0o644)
		dir := copyExample(t)
		code, _, stderr := runCLI(t, "--dir", dir, "--replay", path, "--apply", examplePrompt)
		if code != 1 || !strings.Contains(stderr, "turn 3:") || !strings.Contains(stderr, "more often than recorded") {
			t.Fatalf("exit %d\n%s", code, stderr)
		}
		if strings.Contains(readFile(t, filepath.Join(dir, "greet.py")), "+ name +") {
			t.Fatal("a failed run wrote its change")
		}
	})
	t.Run("not a cassette", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "x.json")
		writeFile(t, path, `{"version": 99}`, 0o644)
		code, _, stderr := runCLI(t, "--dir", copyExample(t), "--replay", path, examplePrompt)
		if code != 2 || !strings.Contains(stderr, "version 99") {
			t.Fatalf("exit %d\n%s", code, stderr)
		}
	})
}

// TestRecordThenReplay: a run recorded against the scripted model replays
// with every model variable unset and produces the same diff and answer.
func TestRecordThenReplay(t *testing.T) {
	srv := llmtest.New(t, helloScript())
	cliEnv(t, srv)
	cas := filepath.Join(t.TempDir(), "rec.json")
	dir := copyExample(t)
	code, recOut, stderr := runCLI(t, "--dir", dir, "--record", cas, examplePrompt)
	if code != 0 {
		t.Fatalf("record: exit %d\n%s", code, stderr)
	}
	c, err := llm.LoadCassette(cas)
	if err != nil || len(c.Turns) != 3 || !strings.Contains(c.Turns[0].SSE, "data: ") {
		t.Fatalf("cassette: %v, %+v", err, c)
	}
	noModelEnv(t)
	code, repOut, stderr := runCLI(t, "--dir", copyExample(t), "--replay", cas, examplePrompt)
	if code != 0 {
		t.Fatalf("replay: exit %d\n%s", code, stderr)
	}
	if repOut != recOut || !strings.Contains(repOut, "+++ b/greet.py") {
		t.Fatalf("replayed stdout differs from the recorded run:\n%s\n---\n%s", repOut, recOut)
	}
	if n := len(srv.Requests()); n != 3 {
		t.Fatalf("the model server saw %d requests, want the 3 recorded ones only", n)
	}
}

// N10: the replay and record files are opened like every other file: a
// FIFO (or anything but a regular file) named as either is refused at
// once with a message naming it, never waited on, and an oversized
// cassette is refused rather than read into memory.
func TestReplayAndRecordRefuseSpecialFiles(t *testing.T) {
	noModelEnv(t)
	fifo := filepath.Join(t.TempDir(), "cassette.fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { // release a reader stuck in open (the bug this test guards against)
		if f, err := os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			f.Close()
		}
	})
	huge := filepath.Join(t.TempDir(), "huge.json")
	writeFile(t, huge, "", 0o644)
	if err := os.Truncate(huge, llm.MaxCassetteBytes+1); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"replay FIFO", []string{"--replay", fifo}, "named pipe (FIFO)"},
		{"record FIFO", []string{"--record", fifo}, "named pipe (FIFO)"},
		{"replay directory", []string{"--replay", t.TempDir()}, "is a directory"},
		{"replay too large", []string{"--replay", huge}, "file too large"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.name == "record FIFO" {
				srv := llmtest.New(t, helloScript())
				cliEnv(t, srv)
			}
			type result struct {
				code   int
				stderr string
			}
			done := make(chan result, 1)
			go func() {
				code, _, stderr := runCLI(t, append(tc.args, "--dir", copyExample(t), examplePrompt)...)
				done <- result{code, stderr}
			}()
			select {
			case r := <-done:
				if r.code != 2 || !strings.Contains(r.stderr, tc.want) {
					t.Fatalf("exit %d, stderr:\n%s", r.code, r.stderr)
				}
			case <-time.After(20 * time.Second):
				t.Fatal("agentls run is stuck opening the cassette")
			}
		})
	}
}
