package command

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agentls/agentls/internal/testwait"
)

func TestMain(m *testing.M) { testwait.VerifyTestMain(m) }

var env = []string{"PATH=" + os.Getenv("PATH")}

func run(t *testing.T, ctx context.Context, dir, cmdline string, timeout time.Duration, b Bounds) (Result, error) {
	t.Helper()
	return Run(ctx, Spec{Command: cmdline, Dir: dir, Env: env, Timeout: timeout, Output: b})
}

func TestRunExitCodeOutputAndStdin(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "marker"), []byte("here\n"), 0o644)
	// cat with no file reads stdin: /dev/null, so it ends at once.
	res, err := run(t, context.Background(), dir, "cat marker; cat; echo err >&2; exit 3", 0, Bounds{TailBytes: 1000})
	if err != nil {
		t.Fatal(err)
	}
	if res.ExitCode != 3 || res.TimedOut || res.Output != "here\nerr\n" || res.Bytes != 9 {
		t.Fatalf("%+v", res)
	}
	// Nothing of agentls's environment leaks in when Env says otherwise.
	t.Setenv("AGENTLS_COMMAND_SECRET", "s3cret")
	res, _ = Run(context.Background(), Spec{Command: "env", Dir: dir, Output: Bounds{TailBytes: 4096}})
	if strings.Contains(res.Output, "s3cret") {
		t.Fatalf("environment leaked: %q", res.Output)
	}
	// A command that waits for input gets EOF instead of hanging.
	res, err = run(t, context.Background(), dir, "read line; echo read=$? line=$line", 20*time.Second, Bounds{TailBytes: 100})
	if err != nil || res.TimedOut || res.Output != "read=1 line=\n" {
		t.Fatalf("stdin: %+v %v", res, err)
	}
}

func TestRunUnstartable(t *testing.T) {
	_, err := Run(context.Background(), Spec{Command: "true", Dir: filepath.Join(t.TempDir(), "missing"), Env: env})
	if err == nil || !strings.Contains(err.Error(), "could not run the command") {
		t.Fatalf("err = %v", err)
	}
}

// pids reads the shell's pid (its process group: internal/childproc
// starts it as a group leader) and its background child's from dir.
func pids(t *testing.T, dir string) (group, child int) {
	t.Helper()
	for _, f := range []struct {
		name string
		pid  *int
	}{{"sh.pid", &group}, {"child.pid", &child}} {
		n, err := strconv.Atoi(strings.TrimSpace(testwait.File(t, filepath.Join(dir, f.name))))
		if err != nil {
			t.Fatal(err)
		}
		*f.pid = n
	}
	return group, child
}

// assertGroupGone checks, right after Run returned, that nothing of the
// command's process group runs any more.
func assertGroupGone(t *testing.T, dir string) {
	t.Helper()
	group, child := pids(t, dir)
	if m := testwait.GroupMembers(group); len(m) != 0 {
		t.Fatalf("group %d still has %v", group, m)
	}
	if testwait.Alive(child) {
		t.Fatalf("background child %d still runs", child)
	}
}

const background = "echo $$ > sh.pid; sleep 60 & echo $! > child.pid; echo started; wait"

func TestRunTimeoutKillsTheGroup(t *testing.T) {
	for _, tc := range []struct{ name, cmdline string }{
		{"plain", background},
		// SIGTERM is ignored by the shell and its job: SIGKILL ends them.
		{"ignoring TERM", `trap "" TERM; ` + background},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			res, err := run(t, context.Background(), dir, tc.cmdline, time.Second, Bounds{TailBytes: 100})
			if err != nil {
				t.Fatal(err)
			}
			if !res.TimedOut || res.ExitCode != -1 || res.Output != "started\n" {
				t.Fatalf("%+v", res)
			}
			assertGroupGone(t, dir)
		})
	}
}

func TestRunCancelKillsTheGroup(t *testing.T) {
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := run(t, ctx, dir, background, 0, Bounds{TailBytes: 100})
		done <- err
	}()
	testwait.File(t, filepath.Join(dir, "child.pid"))
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v", err)
	}
	assertGroupGone(t, dir)
}

// A shell that exits with a job still in the background ends at once
// (the job does not hold its output open) and takes the job with it.
func TestRunExitKillsTheBackgroundJob(t *testing.T) {
	dir := t.TempDir()
	res, err := run(t, context.Background(), dir, "echo $$ > sh.pid; sleep 60 & echo $! > child.pid; echo left", 0, Bounds{TailBytes: 100})
	if err != nil || res.ExitCode != 0 || res.Output != "left\n" {
		t.Fatalf("%+v %v", res, err)
	}
	group, child := pids(t, dir)
	testwait.GroupGone(t, group)
	if testwait.Alive(child) {
		t.Fatalf("background child %d still runs", child)
	}
}

// 100 MB of output costs bounded memory and keeps the tail.
func TestRunHugeOutputIsBounded(t *testing.T) {
	res, err := run(t, context.Background(), t.TempDir(), "head -c 100000000 /dev/zero | tr '\\0' x; echo; echo THE-END", 120*time.Second, Bounds{TailBytes: 16 << 10, MaxLines: 100})
	if err != nil {
		t.Fatal(err)
	}
	if res.Bytes != 100_000_000+1+8 {
		t.Fatalf("bytes = %d", res.Bytes)
	}
	if len(res.Output) > 17<<10 || !strings.HasSuffix(res.Output, "\nTHE-END\n") || !strings.HasPrefix(res.Output, "[... ") {
		t.Fatalf("output %d bytes: %q…%q", len(res.Output), res.Output[:60], res.Output[len(res.Output)-20:])
	}
}

func TestBufferBounds(t *testing.T) {
	b := NewBuffer(Bounds{HeadBytes: 4, TailBytes: 6})
	for _, s := range []string{"ab", "cdef", "ghij", "klmnopqrstuvwxyz"} {
		b.Write([]byte(s))
	}
	if got := b.String(); got != "abcd\n[... 16 bytes of output omitted ...]\nuvwxyz\n" {
		t.Fatalf("%q", got)
	}
	lines := NewBuffer(Bounds{TailBytes: 1 << 20, MaxLines: 3})
	lines.Write([]byte("1\n2\n3\n4\n5\n6\n"))
	if got := lines.String(); got != "[... 4 lines omitted ...]\n5\n6\n" {
		t.Fatalf("tail lines %q", got)
	}
	both := NewBuffer(Bounds{HeadBytes: 1 << 20, TailBytes: 1 << 20, MaxLines: 4})
	both.Write([]byte("1\n2\n3\n4\n5\n6\n7"))
	if got := both.String(); got != "1\n2\n[... 3 lines omitted ...]\n6\n7\n" {
		t.Fatalf("head+tail lines %q", got)
	}
	bad := NewBuffer(Bounds{TailBytes: 100})
	bad.Write([]byte("ok \xff\xfe"))
	if got := bad.String(); got != "ok \uFFFD\n" {
		t.Fatalf("invalid UTF-8 %q", got)
	}
}

func TestStripANSI(t *testing.T) {
	for in, want := range map[string]string{
		"\x1b[31mFAIL\x1b[0m: x":                    "FAIL: x",
		"\x1b[1;32m✓\x1b[39;49m ok":                 "✓ ok",
		"\x1b]8;;http://x\x07link\x1b]8;;\x07 done": "link done",
		"\x1b]0;title\x1b\\text":                    "text",
		"a\x1b[2K\x1b[1Gb":                          "ab",
		"plain \x1b(B text":                         "plain  text",
		"keep\ttabs and 中文 😀":                       "keep\ttabs and 中文 😀",
	} {
		if got := StripANSI(in); got != want {
			t.Errorf("StripANSI(%q) = %q, want %q", in, got, want)
		}
	}
}
