package main

import (
	"strings"
	"testing"
)

// A stream as `go test -json` writes it: a passing test, a skipped one
// with its reason, a failing one with a subtest, a package without tests.
const stream = `{"Action":"start","Package":"ex/a"}
{"Action":"run","Package":"ex/a","Test":"TestPass"}
{"Action":"output","Package":"ex/a","Test":"TestPass","Output":"=== RUN   TestPass\n"}
{"Action":"output","Package":"ex/a","Test":"TestPass","Output":"    a_test.go:3: chatter of a passing test\n"}
{"Action":"output","Package":"ex/a","Test":"TestPass","Output":"--- PASS: TestPass (0.00s)\n"}
{"Action":"pass","Package":"ex/a","Test":"TestPass"}
{"Action":"run","Package":"ex/a","Test":"TestNvim"}
{"Action":"output","Package":"ex/a","Test":"TestNvim","Output":"=== RUN   TestNvim\n"}
{"Action":"output","Package":"ex/a","Test":"TestNvim","Output":"    nvim_test.go:9: nvim not on PATH (apt install neovim)\n"}
{"Action":"output","Package":"ex/a","Test":"TestNvim","Output":"--- SKIP: TestNvim (0.00s)\n"}
{"Action":"skip","Package":"ex/a","Test":"TestNvim"}
{"Action":"run","Package":"ex/a","Test":"TestBroken"}
{"Action":"output","Package":"ex/a","Test":"TestBroken","Output":"=== RUN   TestBroken\n"}
{"Action":"run","Package":"ex/a","Test":"TestBroken/case"}
{"Action":"output","Package":"ex/a","Test":"TestBroken/case","Output":"    a_test.go:20: got 1, want 2\n"}
{"Action":"output","Package":"ex/a","Test":"TestBroken/case","Output":"    --- FAIL: TestBroken/case (0.00s)\n"}
{"Action":"fail","Package":"ex/a","Test":"TestBroken/case"}
{"Action":"output","Package":"ex/a","Test":"TestBroken","Output":"--- FAIL: TestBroken (0.00s)\n"}
{"Action":"fail","Package":"ex/a","Test":"TestBroken"}
{"Action":"output","Package":"ex/a","Output":"FAIL\n"}
{"Action":"output","Package":"ex/a","Output":"FAIL\tex/a\t0.01s\n"}
{"Action":"fail","Package":"ex/a"}
{"Action":"output","Package":"ex/b","Output":"?   \tex/b\t[no test files]\n"}
{"Action":"skip","Package":"ex/b"}
not json: printed as is
`

func TestSummary(t *testing.T) {
	var s summary
	var out strings.Builder
	s.consume(strings.NewReader(stream), &out, false)
	s.report(&out)
	got := out.String()
	for _, want := range []string{
		"got 1, want 2",                // a failed subtest's output
		"--- FAIL: TestBroken (0.00s)", // and its parent's
		"FAIL\tex/a\t0.01s",            // the package result
		"?   \tex/b\t[no test files]",  // packages without tests, as go test says
		"not json: printed as is",
		"1 skipped tests\nSKIP ex/a TestNvim: nvim_test.go:9: nvim not on PATH (apt install neovim)\n",
		"2 failed tests (their output is above)\nFAIL ex/a TestBroken/case\nFAIL ex/a TestBroken\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "chatter of a passing test") {
		t.Errorf("a passing test's output was shown without -v:\n%s", got)
	}
	if !strings.HasSuffix(got, "FAIL ex/a TestBroken\n") {
		t.Errorf("the failures are not the last lines:\n%s", got)
	}

	var v summary
	out.Reset()
	v.consume(strings.NewReader(stream), &out, true)
	if !strings.Contains(out.String(), "chatter of a passing test") {
		t.Errorf("-v hid a passing test's output:\n%s", out.String())
	}
}

func TestSplitRuns(t *testing.T) {
	got := splitRuns([]string{"-race", "./...", "---", "-run", "X", "-v", "./tools"})
	if len(got) != 2 || strings.Join(got[0], " ") != "-race ./..." || strings.Join(got[1], " ") != "-run X -v ./tools" {
		t.Fatalf("splitRuns = %q", got)
	}
}
