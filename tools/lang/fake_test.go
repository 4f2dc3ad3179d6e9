package lang

import (
	"cmp"
	"fmt"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/agentls/agentls/internal/testwait"
	"github.com/agentls/agentls/internal/text"
)

// TestEditReportsIntroducedProblems: an edit that adds an undefined name
// ends with the server's message; one that adds it where it already was
// reports nothing new; removing them says no new problems.
func TestEditReportsIntroducedProblems(t *testing.T) {
	leakCheck(t)
	root := workspaceOf(t, map[string]string{"main.fake": "func main() {\n\tx := 1\n\tundefinedThing()\n}\n"})
	s := newSetup(t, root, Options{Servers: []ServerConfig{fakeConfig(t, "ok", nil)}})
	s.mustCall(t, "read_file", fmtArgs("path", "main.fake"))
	res := s.mustCall(t, "edit_file", fmtArgs("path", "main.fake", "old_string", "x := 1", "new_string", "x := undefinedThing"))
	want := "this change introduced 1 problem; fix them before finishing:\nmain.fake:2: undefined: undefinedThing"
	if !strings.HasSuffix(res.Text, want) {
		t.Fatalf("edit result:\n%s\nwant it to end with:\n%s", res.Text, want)
	}
	if len(res.Problems) != 1 || res.Problems[0].Introduced != 1 || res.Problems[0].Items[0].Range.Start.Line != 1 || res.Problems[0].Items[0].Range.Start.Character != 6 {
		t.Fatalf("problems = %+v", res.Problems)
	}
	// Lines added above the old problem move it: still not new.
	res = s.mustCall(t, "edit_file", fmtArgs("path", "main.fake", "old_string", "func main() {", "new_string", "// doc\n// more\nfunc main() {"))
	if lastLine(res.Text) != "no new problems" {
		t.Fatalf("moving old problems reported as new:\n%s", res.Text)
	}
	if n := s.run.Outstanding(); n != 1 {
		t.Fatalf("outstanding = %d, want 1 (the problem the run added)", n)
	}
	if fp := res.Problems[0]; fp.Introduced != 0 || len(fp.Outstanding) != 1 || fp.Outstanding[0].Range.Start.Line != 3 {
		t.Fatalf("problems of the second edit: %+v (the first edit's problem is outstanding, now on line 4)", fp)
	}
	res = s.mustCall(t, "edit_file", fmtArgs("path", "main.fake", "old_string", "x := undefinedThing", "new_string", "x := 2"))
	if lastLine(res.Text) != "no new problems" {
		t.Fatalf("fix result:\n%s", res.Text)
	}
	if n := s.run.Outstanding(); n != 0 {
		t.Fatalf("outstanding after the fix = %d", n)
	}
}

// TestPullDiagnostics: a server that offers pull is asked, not waited on.
func TestPullDiagnostics(t *testing.T) {
	leakCheck(t)
	root := workspaceOf(t, map[string]string{"a.fake": "one\ntwo\n"})
	s := newSetup(t, root, Options{Servers: []ServerConfig{fakeConfig(t, "pull", nil)}})
	s.mustCall(t, "read_file", fmtArgs("path", "a.fake"))
	res := s.mustCall(t, "edit_file", fmtArgs("path", "a.fake", "old_string", "two", "new_string", "undefinedThing"))
	if !strings.HasSuffix(res.Text, "a.fake:2: undefined: undefinedThing") {
		t.Fatalf("edit result:\n%s", res.Text)
	}
	res = s.mustCall(t, "diagnostics", fmtArgs())
	if res.Text != "a.fake:2:1: error: undefined: undefinedThing" {
		t.Fatalf("diagnostics = %q", res.Text)
	}
}

// TestNoServerNoChange: files no server serves get the edit result they
// always had.
func TestNoServerNoChange(t *testing.T) {
	root := workspaceOf(t, map[string]string{"a.fake": "x\n", "b.txt": "hello\n"})
	s := newSetup(t, root, Options{Servers: []ServerConfig{fakeConfig(t, "ok", nil)}})
	s.mustCall(t, "read_file", fmtArgs("path", "b.txt"))
	res := s.mustCall(t, "edit_file", fmtArgs("path", "b.txt", "old_string", "hello", "new_string", "bye"))
	if strings.Contains(res.Text, "problem") || res.Problems != nil {
		t.Fatalf("unserved file got a problems line:\n%s", res.Text)
	}
	if run := NewManager(Options{}).NewRun(t.Context(), s.env); run != nil {
		t.Fatal("a manager without servers made a run")
	}
}

// TestBadPeers: each kind of broken server gives one line in the edit
// result, the edit itself is staged, and nothing is left running.
func TestBadPeers(t *testing.T) {
	cases := []struct {
		mode string
		want string // the result's last line contains it
	}{
		{"missing", "cannot start"},
		{"crash", "cannot load the workspace"},
		{"hang", "language server gave no answer in 1s"},
		{"silent", "language server gave no answer in 1s"},
		{"garbage", "sent something that is not LSP (JSON-RPC parse error)"},
		{"crashlate", "crashed on a change"},
	}
	for _, tc := range cases {
		t.Run(tc.mode, func(t *testing.T) {
			leakCheck(t)
			root := workspaceOf(t, map[string]string{"a.fake": "one\n"})
			cfg := fakeConfig(t, tc.mode, nil)
			if tc.mode == "missing" {
				cfg.Command = []string{"/nonexistent/agentls-no-such-server"}
			}
			s := newSetup(t, root, Options{Servers: []ServerConfig{cfg}, Wait: time.Second})
			s.mustCall(t, "read_file", fmtArgs("path", "a.fake"))
			start := time.Now()
			res := s.mustCall(t, "edit_file", fmtArgs("path", "a.fake", "old_string", "one", "new_string", "two"))
			// Not a timing test (the result's line proves the 1 s bound
			// fired): a hang detector for a wait that ignores its bound,
			// generous enough for a loaded CI machine.
			if took := time.Since(start); took > time.Minute {
				t.Errorf("the edit took %s: the 1 s wait was not kept", took)
			}
			last := lastLine(res.Text)
			if !strings.Contains(last, tc.want) || !strings.HasPrefix(last, "language server") {
				t.Fatalf("edit result:\n%s\nwant a last line with %q", res.Text, tc.want)
			}
			if strings.Count(res.Text, "language server") != 1 {
				t.Fatalf("more than one line about the server:\n%s", res.Text)
			}
			if st, _ := s.env.Changes.Get(root + "/a.fake"); st.Text != "two\n" {
				t.Fatalf("the edit was not staged: %+v", st)
			}
			// The run goes on: navigation answers in one line too (an
			// error, or the answer of a server that only fails to
			// publish or crashes on changes).
			nav := s.call(t, "definition", fmtArgs("path", "a.fake", "line", 1, "symbol", "two"))
			if strings.Contains(nav.Text, "\n") || nav.IsError != (tc.mode != "silent" && tc.mode != "crashlate") {
				t.Fatalf("definition on a bad server: %+v", nav)
			}
		})
	}
}

// TestFlood: 10,000 diagnostics are counted, ten are listed, and what is
// kept stays bounded.
func TestFlood(t *testing.T) {
	leakCheck(t)
	root := workspaceOf(t, map[string]string{"a.fake": "one\n"})
	s := newSetup(t, root, Options{Servers: []ServerConfig{fakeConfig(t, "flood", nil)}})
	s.mustCall(t, "read_file", fmtArgs("path", "a.fake"))
	res := s.mustCall(t, "edit_file", fmtArgs("path", "a.fake", "old_string", "one", "new_string", "two"))
	// Before and after both hold the flood (kept: the first 1000), so
	// nothing is new.
	if lastLine(res.Text) != "no new problems" {
		t.Fatalf("flood result:\n%s", res.Text)
	}
	for _, c := range s.m.clients {
		for _, p := range c.c.pubs {
			if len(p.items) > maxStoredDiags || p.total != 10000 {
				t.Fatalf("kept %d of %d diagnostics", len(p.items), p.total)
			}
		}
	}
}

// TestRestartBudget: a server that crashes on every change is restarted
// three times in a run, then reported once, then left alone.
func TestRestartBudget(t *testing.T) {
	leakCheck(t)
	root := workspaceOf(t, map[string]string{"a.fake": "v0\n"})
	s := newSetup(t, root, Options{Servers: []ServerConfig{fakeConfig(t, "crashlate", nil)}, Wait: 2 * time.Second})
	s.mustCall(t, "read_file", fmtArgs("path", "a.fake"))
	var lasts []string
	for i := 1; i <= 6; i++ {
		res := s.mustCall(t, "edit_file", fmtArgs("path", "a.fake", "old_string", "v"+itoa(i-1), "new_string", "v"+itoa(i)))
		lasts = append(lasts, lastLine(res.Text))
	}
	for i := 0; i < 4; i++ {
		if !strings.Contains(lasts[i], "crashed on a change") {
			t.Fatalf("edit %d: %q", i+1, lasts[i])
		}
	}
	if !strings.Contains(lasts[4], "failed 4 times in this run and is not started again") {
		t.Fatalf("edit 5: %q", lasts[4])
	}
	if strings.HasPrefix(lasts[5], "language server") {
		t.Fatalf("edit 6 still reports the server: %q", lasts[5])
	}
}

// TestIdleShutdown: an idle server is stopped; the next use starts it
// again (not counted as a crash).
func TestIdleShutdown(t *testing.T) {
	leakCheck(t)
	root := workspaceOf(t, map[string]string{"a.fake": "one\n"})
	s := newSetup(t, root, Options{Servers: []ServerConfig{fakeConfig(t, "ok", nil)}, IdleTimeout: 100 * time.Millisecond})
	s.mustCall(t, "read_file", fmtArgs("path", "a.fake"))
	for i, w := range []string{"two", "three", "four", "five", "six"} {
		old := []string{"one", "two", "three", "four", "five"}[i]
		res := s.mustCall(t, "edit_file", fmtArgs("path", "a.fake", "old_string", old, "new_string", w))
		if lastLine(res.Text) != "no new problems" {
			t.Fatalf("edit %d:\n%s", i, res.Text)
		}
		deadline := time.Now().Add(testwait.Limit)
		for len(s.m.Running()) > 0 || len(leftovers(t.Name())) > 0 {
			if time.Now().After(deadline) {
				t.Fatalf("server still running after the idle timeout: %v", s.m.Running())
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
}

func itoa(i int) string { return string(rune('0' + i)) }

// TestPositionsAcrossEncodings: with the server's encoding negotiated as
// utf-8, utf-16 or utf-32, emoji, CJK and tabs before the symbol, and CRLF
// or LF line ends, definition lands on the symbol and problems carry the
// right columns. An absent positionEncoding means utf-16; "offset:…" is
// negotiated through clangd's offsetEncoding extension.
func TestPositionsAcrossEncodings(t *testing.T) {
	for _, enc := range []string{"", "utf-8", "utf-16", "utf-32", "offset:utf-8", "offset:utf-32"} {
		for _, eol := range []string{"\n", "\r\n"} {
			t.Run(cmp.Or(enc, "absent")+map[string]string{"\n": "-lf", "\r\n": "-crlf"}[eol], func(t *testing.T) {
				leakCheck(t)
				src := strings.Join([]string{
					"func helper(x int) int {",
					"\treturn x",
					"}",
					"func main() {",
					"\ts := \"😀😀 日本 é\"; _ = helper(1)",
					"}",
				}, eol) + eol
				root := workspaceOf(t, map[string]string{"main.fake": src})
				s := newSetup(t, root, Options{Servers: []ServerConfig{fakeConfig(t, "ok", map[string]string{"FAKE_ENC": enc})}})
				res := s.mustCall(t, "definition", fmtArgs("path", "main.fake", "line", 5, "symbol", "helper"))
				if res.Text != "main.fake:1: func helper(x int) int {" {
					t.Fatalf("definition = %q", res.Text)
				}
				if want, _ := text.ParseEncoding(cmp.Or(strings.TrimPrefix(enc, "offset:"), "utf-16")); encodingOf(t, s.m, "fake") != want {
					t.Fatalf("negotiated %v, want %v", encodingOf(t, s.m, "fake"), want)
				}
				s.mustCall(t, "read_file", fmtArgs("path", "main.fake"))
				res = s.mustCall(t, "edit_file", fmtArgs("path", "main.fake", "old_string", "_ = helper(1)", "new_string", "_ = helper(1); y := undefinedThing"))
				if !strings.HasSuffix(res.Text, "main.fake:5: undefined: undefinedThing") {
					t.Fatalf("edit result:\n%s", res.Text)
				}
				line := "\ts := \"😀😀 日本 é\"; _ = helper(1); y := "
				it := res.Problems[0].Items[0]
				if it.Range.Start.Line != 4 || int(it.Range.Start.Character) != len(line) || int(it.Range.End.Character) != len(line)+len("undefinedThing") {
					t.Fatalf("problem range = %+v, want line 4 bytes %d-%d", it.Range, len(line), len(line)+14)
				}
				res = s.mustCall(t, "diagnostics", fmtArgs("path", "main.fake"))
				if want := fmt.Sprintf("main.fake:5:%d: error: undefined: undefinedThing", utf8.RuneCountInString(line)+1); res.Text != want {
					t.Fatalf("diagnostics = %q, want %q", res.Text, want)
				}
				// A symbol that is only part of a word is not found.
				res = s.call(t, "definition", fmtArgs("path", "main.fake", "line", 5, "symbol", "elper"))
				if !res.IsError || !strings.Contains(res.Text, `"elper" is not on line 5`) {
					t.Fatalf("partial word: %+v", res)
				}
			})
		}
	}
}

// TestServerErrorMessage: a server that says it cannot work (gopls without
// the go command answers, with no diagnostics, and only says so with
// window/showMessage) has that said once in the run's results, so "no
// new problems" is not taken for a verdict.
func TestServerErrorMessage(t *testing.T) {
	leakCheck(t)
	root := workspaceOf(t, map[string]string{"a.fake": "one\n"})
	s := newSetup(t, root, Options{Servers: []ServerConfig{fakeConfig(t, "complain", nil)}})
	s.mustCall(t, "read_file", fmtArgs("path", "a.fake"))
	res := s.mustCall(t, "edit_file", fmtArgs("path", "a.fake", "old_string", "one", "new_string", "two"))
	if !strings.HasSuffix(res.Text, "no new problems\nlanguage server fake reported an error: fake: cannot find the toolchain; second line") {
		t.Fatalf("first edit:\n%s", res.Text)
	}
	res = s.mustCall(t, "edit_file", fmtArgs("path", "a.fake", "old_string", "two", "new_string", "three"))
	if lastLine(res.Text) != "no new problems" {
		t.Fatalf("the message came again:\n%s", res.Text)
	}
}
