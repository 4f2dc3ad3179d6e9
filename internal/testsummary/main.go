// Command testsummary runs `go test -json` and prints what `go test`
// would (package results, and the whole output of every failed test),
// then ends with every skipped test and its reason, so `make test` never
// hides what it did not run. Its exit status is go test's (non-zero if any
// run failed).
//
//	go run ./internal/testsummary [go test flags and packages] [--- more runs]...
//
// Each run's arguments are passed to `go test -json`; "---" separates
// runs, which go one after the other with one summary at the end. A run
// with -v shows every test's output, as `go test -v` would.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strings"
)

func main() {
	goBin := os.Getenv("GO")
	if goBin == "" {
		goBin = "go"
	}
	var s summary
	code := 0
	for _, args := range splitRuns(os.Args[1:]) {
		if c := run(goBin, args, &s, os.Stdout); c != 0 {
			code = c
		}
	}
	s.report(os.Stdout)
	os.Exit(code)
}

// splitRuns splits the arguments at "---" into the runs' arguments.
func splitRuns(args []string) [][]string {
	var runs [][]string
	cur := []string{}
	for _, a := range args {
		if a == "---" {
			runs = append(runs, cur)
			cur = []string{}
			continue
		}
		cur = append(cur, a)
	}
	return append(runs, cur)
}

// run runs one `go test -json args...`, printing as it goes; it returns
// the exit status.
func run(goBin string, args []string, s *summary, out io.Writer) int {
	cmd := exec.Command(goBin, append([]string{"test", "-json"}, args...)...)
	cmd.Stderr = os.Stderr // build errors of packages without tests, vet failures
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		fmt.Fprintln(os.Stderr, "testsummary:", err)
		return 2
	}
	if err := cmd.Start(); err != nil {
		fmt.Fprintln(os.Stderr, "testsummary:", err)
		return 2
	}
	s.consume(stdout, out, slices.Contains(args, "-v"))
	if err := cmd.Wait(); err != nil {
		if ee, ok := err.(*exec.ExitError); ok {
			return ee.ExitCode()
		}
		fmt.Fprintln(os.Stderr, "testsummary:", err)
		return 2
	}
	return 0
}

// event is one line of `go test -json` (cmd/test2json).
type event struct {
	Action  string
	Package string
	Test    string
	Output  string
}

// result is a test that was skipped or failed, with what it printed.
type result struct {
	pkg, test string
	reason    []string
}

// summary follows the event stream of one or more runs.
type summary struct {
	output  map[string][]string // package + "\x00" + test → output lines so far
	skipped []result
	failed  []result
}

// consume reads events from r and prints to out what go test (or go test
// -v, when verbose) would; a line that is not JSON is printed as is.
func (s *summary) consume(r io.Reader, out io.Writer, verbose bool) {
	if s.output == nil {
		s.output = map[string][]string{}
	}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	for sc.Scan() {
		var ev event
		if json.Unmarshal(sc.Bytes(), &ev) != nil || ev.Action == "" {
			fmt.Fprintln(out, sc.Text())
			continue
		}
		key := ev.Package + "\x00" + ev.Test
		switch {
		case ev.Action == "output" && ev.Test == "":
			// Package-level lines: "ok pkg 1.2s", "FAIL pkg", build output,
			// a leak report from TestMain, a panic outside any test.
			if verbose || strings.TrimSpace(ev.Output) != "PASS" {
				fmt.Fprint(out, ev.Output)
			}
		case ev.Action == "build-output":
			fmt.Fprint(out, ev.Output)
		case ev.Action == "output":
			if verbose {
				fmt.Fprint(out, ev.Output)
			}
			s.output[key] = append(s.output[key], ev.Output)
		case ev.Test == "":
			// Package start, pass, fail, skip ("no test files"): the
			// package-level output above already says it.
		case ev.Action == "fail":
			if !verbose {
				fmt.Fprint(out, strings.Join(s.output[key], ""))
			}
			s.failed = append(s.failed, result{ev.Package, ev.Test, nil})
			delete(s.output, key)
		case ev.Action == "skip":
			s.skipped = append(s.skipped, result{ev.Package, ev.Test, reason(s.output[key])})
			delete(s.output, key)
		case ev.Action == "pass":
			delete(s.output, key)
		}
	}
	if err := sc.Err(); err != nil {
		fmt.Fprintln(out, "testsummary: reading go test output:", err)
	}
}

// reason keeps what a skipped test said about why: its log lines, without
// the framing go test adds (=== RUN, --- SKIP).
func reason(lines []string) []string {
	var out []string
	for _, l := range lines {
		t := strings.TrimSpace(l)
		if t == "" || strings.HasPrefix(t, "=== ") || strings.HasPrefix(t, "--- SKIP") {
			continue
		}
		out = append(out, t)
	}
	return out
}

// report prints the skipped tests with their reasons, then the failed
// tests, if any, so they are the last thing on the screen.
func (s *summary) report(out io.Writer) {
	fmt.Fprintf(out, "\n%d skipped tests\n", len(s.skipped))
	for _, r := range s.skipped {
		why := "(no reason given)"
		if len(r.reason) > 0 {
			why = strings.Join(r.reason, " / ")
		}
		fmt.Fprintf(out, "SKIP %s %s: %s\n", r.pkg, r.test, why)
	}
	if len(s.failed) == 0 {
		return
	}
	fmt.Fprintf(out, "\n%d failed tests (their output is above)\n", len(s.failed))
	for _, r := range s.failed {
		fmt.Fprintf(out, "FAIL %s %s\n", r.pkg, r.test)
	}
}
