package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/agent/llm/llmtest"
	"github.com/agentls/agentls/internal/testpeers"
	"golang.org/x/net/html"
)

// hostile is text that would run, restyle or hide things if the report
// did not escape it: a script, an end of the style element, an event
// handler, a terminal escape (OSC 52 writes the clipboard) and a
// right-to-left override.
const hostile = "<script>document.title='pwned'</script></style><img src=x onerror=\"document.body.setAttribute('data-pwned','1')\">\x1b]52;c;aGk=\x07 \u202Egnp.exe"

// The report of a real session, made by the CLI from the transcripts of
// real runs (scripted model over SSE), shows a reader the whole run in a
// real browser: prompt, turns, tool calls with results, a sub-agent under
// its task call, each change as a diff with its fate, a failed run; and
// nothing in it runs.
func TestReportOfScriptedSessionInChromium(t *testing.T) {
	chromium := testpeers.LookPath(t, "chromium", "apt-get install chromium")
	big := strings.Repeat("x", 6<<20) // a 6 MB line in a model answer (answers are bounded at 8 MB; report_test in agent/report renders 10 MB lines)
	srv := llmtest.New(t, func(req *llmtest.ChatRequest) llmtest.Reply {
		if strings.Contains(req.System(), "sub-agent") || req.Contains("List the callers of greet") && !req.HasTool("edit_file") {
			if req.Turns() == 0 {
				return llmtest.ToolCalls(llmtest.Call{ID: "s1", Name: "grep", Args: `{"pattern":"greet\\("}`})
			}
			return llmtest.Text("greet is called once, in greet.py's main block.").Usage(50, 10)
		}
		if req.Contains("Now break it") {
			return llmtest.Error(400, "the model refused: "+hostile)
		}
		switch req.Turns() {
		case 0:
			return llmtest.ToolCalls(llmtest.Call{ID: "c1", Name: "read_file", Args: `{"path":"greet.py"}`}).WithText("Reading "+hostile).Usage(300, 20)
		case 1:
			return llmtest.ToolCalls(llmtest.Call{ID: "c2", Name: "task", Args: `{"description":"find callers","prompt":"List the callers of greet"}`}).Usage(400, 20)
		case 2:
			return llmtest.ToolCalls(
				llmtest.Call{ID: "c3", Name: "edit_file", Args: `{"path":"greet.py","old_string":"\"Hello, \" + nme","new_string":"\"Hello, \" + name"}`},
				llmtest.Call{ID: "c4", Name: "write_file", Args: `{"path":"NOTES.md","content":"# Notes\nfixed nme\n"}`},
			).Usage(500, 40)
		}
		return llmtest.Text("Fixed the typo. "+hostile+"\n"+big).ChunkSize(1<<20).Usage(600, 30)
	})
	state := cliEnv(t, srv)
	ws := t.TempDir()
	writeFile(t, filepath.Join(ws, "greet.py"), "def greet(name):\n    # "+hostile+"\n    return \"Hello, \" + nme + \"!\"\n\nif __name__ == \"__main__\":\n    print(greet(\"world\"))\n", 0o644)

	code, _, stderr := runCLI(t, "--dir", ws, "Fix the bug in greet.py")
	if code != 0 {
		t.Fatalf("run: code %d\n%s", code, clipped(stderr))
	}
	session := regexp.MustCompile(`session ([0-9a-f]+) \(continue`).FindStringSubmatch(stderr)
	transcript := regexp.MustCompile(`transcript (\S+\.jsonl)`).FindStringSubmatch(stderr)
	if session == nil || transcript == nil {
		t.Fatalf("no session or transcript in stderr:\n%s", clipped(stderr))
	}
	runID := strings.TrimSuffix(filepath.Base(transcript[1]), ".jsonl")[len("2006-01-02-"):]
	// Fates as review records them after the run (agent.Session.Decide for
	// accept/reject; the store for conflicts).
	runs := filepath.Join(state, "agentls", "runs")
	for _, f := range []agent.Fate{
		{RunID: runID, Path: filepath.Join(ws, "greet.py"), Fate: agent.FateRejected, Hunks: 1, Reason: "use an f-string <b>please</b>"},
		{RunID: runID, Path: filepath.Join(ws, "NOTES.md"), Fate: agent.FateConflicted, Hunks: 1, Reason: "the file was created since"},
	} {
		if err := agent.RecordFate(runs, f); err != nil {
			t.Fatal(err)
		}
	}
	code, _, stderr = runCLI(t, "--dir", ws, "--session", session[1], "Now break it")
	if code == 0 {
		t.Fatalf("the failing run exited 0:\n%s", clipped(stderr))
	}

	var out, errb bytes.Buffer
	if code := run([]string{"report", "--dir", ws, "--session", session[1]}, strings.NewReader(""), &out, &errb); code != 0 {
		t.Fatalf("report: code %d: %s", code, errb.String())
	}
	page := strings.TrimSpace(out.String())
	if filepath.Dir(page) != runs || !strings.HasSuffix(page, "session-"+session[1]+".html") {
		t.Fatalf("report written to %s, want beside the transcripts in %s", page, runs)
	}
	if fi, err := os.Stat(page); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("report file: %v %v", fi, err)
	}
	raw := readFile(t, page)
	if strings.Contains(raw, testKey) {
		t.Fatal("the page holds the API key")
	}

	dom := dumpDOM(t, chromium, page)
	inert(t, raw, "the page as written")
	inert(t, dom, "the page as Chromium ran it")
	for _, bad := range []string{"\x1b", "\u202E"} {
		if strings.Contains(dom, bad) {
			t.Errorf("the rendered page contains %q raw", bad)
		}
	}
	for _, want := range []string{
		"agentls session " + session[1],
		"Fix the bug in greet.py", "Now break it", // both prompts, in order below
		"&lt;script&gt;document.title='pwned'&lt;/script&gt;&lt;/style&gt;", // shown as text
		"␛]52;c;aGk=␇", "⟨U+202E⟩", // controls made visible
		`class="badge rejected fate">rejected (1 hunk)`, "“use an f-string &lt;b&gt;please&lt;/b&gt;”",
		`class="badge conflicted fate">conflicted`, "new file",
		`<span class="del">-    return "Hello, " + nme + "!"`, `<span class="add">+    return "Hello, " + name + "!"`,
		`class="sub"`, "greet is called once", // the sub-agent and its answer
		`data-status="finished"`, `data-status="failed"`, "the model refused",
		"read_file", "edit_file", "write_file", "grep",
	} {
		if !strings.Contains(dom, want) {
			t.Errorf("the page does not show %q", want)
		}
	}
	if i, j := strings.Index(dom, "Fix the bug in greet.py"), strings.Index(dom, "Now break it"); i < 0 || j < i {
		t.Error("the session's runs are not in order")
	}
	// The sub-agent is nested inside the task call's entry, before the next step.
	task := strings.Index(dom, `<span class="kind">task</span>`)
	sub := strings.Index(dom, `class="sub"`)
	edit := strings.Index(dom, `<span class="kind">edit_file</span>`)
	if task < 0 || !(task < sub && sub < edit) {
		t.Errorf("sub-agent not under its task call (task %d, sub %d, next call %d)", task, sub, edit)
	}
	if !strings.Contains(dom, strings.Repeat("x", 1<<20)) {
		t.Error("the 10 MB answer is not in the page (it must stay available, collapsed)")
	}
	screenshot(t, chromium, page, "report-session.png")
}

// A cancelled run and a single-run report by run id.
func TestReportOfCancelledRun(t *testing.T) {
	chromium := testpeers.LookPath(t, "chromium", "apt-get install chromium")
	hang := llmtest.NewHang()
	srv := llmtest.New(t, llmtest.Always(llmtest.Text("thinking").HangAfter(1, hang)))
	cliEnv(t, srv)
	ws := t.TempDir()
	writeFile(t, filepath.Join(ws, "a.txt"), "a\n", 0o644)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		select {
		case <-hang.Started():
			cancel()
		case <-time.After(30 * time.Second):
		}
	}()
	var out, errb bytes.Buffer
	code := runMainContext(ctx, []string{"--dir", ws, "Think about a.txt"}, strings.NewReader(""), &out, &errb)
	if code == 0 {
		t.Fatalf("a cancelled run exited 0:\n%s", errb.String())
	}
	m := regexp.MustCompile(`transcript \S+-([0-9a-f]+)\.jsonl`).FindStringSubmatch(errb.String())
	if m == nil {
		t.Fatalf("no transcript:\n%s", errb.String())
	}
	out.Reset()
	errb.Reset()
	page := filepath.Join(t.TempDir(), "cancelled.html")
	if code := run([]string{"report", m[1], "-o", page}, strings.NewReader(""), &out, &errb); code != 0 || strings.TrimSpace(out.String()) != page {
		t.Fatalf("report: code %d out %q err %q", code, out.String(), errb.String())
	}
	dom := dumpDOM(t, chromium, page)
	for _, want := range []string{"agentls run " + m[1], `data-status="cancelled"`, "Think about a.txt"} {
		if !strings.Contains(dom, want) {
			t.Errorf("the page does not show %q", want)
		}
	}
	// Unknown run: a clear error, exit 1, nothing written.
	errb.Reset()
	if code := run([]string{"report", "0123456789ab"}, strings.NewReader(""), &out, &errb); code != 1 || !strings.Contains(errb.String(), "transcript of run 0123456789ab") {
		t.Fatalf("unknown run: code %d, %q", code, errb.String())
	}
}

// inert parses page as a browser would and fails on anything that can
// load or run: elements other than the report's own one script and one
// style, src/href attributes, event handlers; and on the marks the hostile
// content leaves when it ran (a changed title, a data-pwned attribute).
func inert(t *testing.T, page, what string) {
	t.Helper()
	doc, err := html.Parse(strings.NewReader(page))
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	scripts := 0
	for n := range doc.Descendants() {
		if n.Type != html.ElementNode {
			continue
		}
		switch n.Data {
		case "script":
			scripts++
		case "img", "iframe", "object", "embed", "link", "base", "form":
			t.Errorf("%s has a <%s> element", what, n.Data)
		case "title":
			if n.FirstChild != nil && strings.Contains(n.FirstChild.Data, "pwned") {
				t.Errorf("%s: the title was changed to %q", what, n.FirstChild.Data)
			}
		}
		for _, a := range n.Attr {
			if a.Key == "src" || a.Key == "href" || strings.HasPrefix(a.Key, "on") || a.Key == "data-pwned" {
				t.Errorf("%s: <%s %s=%q>", what, n.Data, a.Key, a.Val)
			}
		}
	}
	if scripts != 1 {
		t.Errorf("%s has %d script elements, want only the report's own", what, scripts)
	}
}

// clipped keeps failure messages readable when a run printed megabytes.
func clipped(s string) string {
	if len(s) > 4000 {
		return s[:2000] + "\n[…]\n" + s[len(s)-2000:]
	}
	return s
}

// chromiumArgs are headless Chromium's flags with a profile of its own
// (profile is a fresh directory: Chromium locks its profile, so two
// browsers sharing one fail).
func chromiumArgs(profile, page string, extra ...string) []string {
	args := []string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
		"--disable-component-update", "--disable-sync", "--no-first-run", "--user-data-dir=" + profile}
	return append(append(args, extra...), "file://"+page)
}

// dumpDOM loads page in headless Chromium (scripts run) and returns the
// DOM as the browser serialises it.
func dumpDOM(t *testing.T, chromium, page string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, chromium, chromiumArgs(t.TempDir(), page, "--dump-dom", "--virtual-time-budget=2000")...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("chromium --dump-dom: %v\n%s", err, stderr.String())
	}
	return string(out)
}

// screenshot keeps a picture of the page for the docs when
// AGENTLS_ARTIFACTS is set (CI keeps it).
func screenshot(t *testing.T, chromium, page, name string) {
	dir := os.Getenv("AGENTLS_ARTIFACTS")
	if dir == "" {
		return
	}
	dir = filepath.Join(dir, "report")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(chromium, chromiumArgs(t.TempDir(), page, "--screenshot="+filepath.Join(dir, name), "--window-size=1200,1600")...)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("screenshot: %v\n%s", err, out)
	}
}
