package grepengine

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"regexp"
	"regexp/syntax"
	"strings"
	"testing"
)

// The lazy DFA must answer exactly what regexp.Match answers for each line
// on its own. These tests compare it with that per-line reference on
// generated buffers, for patterns chosen to hit every corner: anchors,
// word boundaries, classes and (?s) dots that could match '\n', patterns
// matching the empty string, case folding outside ASCII, Unicode classes,
// invalid UTF-8, CRLF, empty lines and a last line without '\n'.

var dfaPatterns = []string{
	`[A-Z]{5}[0-9]+`, `^`, `$`, `^$`, `^\s*$`, `\s+$`, `^[a-z]`, `[a-z]$`, `a\s*b`,
	`[^a]`, `[^a]+b`, `a[^b]*b`, `(?s)a.b`, `a.b`, `(?s).`, `(?s)^.*$`, `(?m)^b`, `(?m)a$`,
	`(?m)^$`, `\Aa`, `b\z`, `\A$`, `\ba`, `a\b`, `\Ba\B`, `\b`, `\B`, `x*`, `(a|b)*c`,
	`[[:^alpha:]]{2}`, `(?i)k`, `(?i)K{2}`, `\x{212A}`, `\pL+`, `\p{Han}`, `[^\x00-\x7f]`,
	`\x{FFFD}`, `é|日`, `\r$`, `a\r?$`, `[\s\S]{3}`, `(?s:.){2}b`, `\n`, `[\n]`, `a[\n]?b`,
	`a\nb`, `\W\w`, `^\W*$`, `[ab]*a[ab]{6}`, `(?U)a+?b`, `(a+)+b`, `^$|a`, `^[A-Z][a-z]+[A-Z]`,
	`\b[0-9]+[a-f]+[0-9]+\b`, `[ \t]+$`, `^[ \t]*$`, `(?i)[a-z]{3}\d`, `\d{2,}|^_`,
	`[^\n]{4}`, `[[:space:]]{2}`, `(?s)[^z]{5}$`,
}

// dfaTokens build the generated buffers.
var dfaTokens = []string{
	"a", "b", "c", "k", "x", "A", "B", "K", "Z", "ABCDE", "0", "9", "12f3", "_", " ", "\t",
	"\r", "\n", "\n", "\r\n", "\n\n", "é", "\u212A", "日", "αβ", "\xff", "\xe6\x97", "//",
}

// refLines is the reference: the 1-based numbers of the lines of buf that
// re matches, each line on its own, as grep defines lines.
func refLines(re *regexp.Regexp, buf []byte) []int {
	if len(buf) == 0 {
		return nil
	}
	lines := bytes.Split(buf, []byte("\n"))
	if buf[len(buf)-1] == '\n' {
		lines = lines[:len(lines)-1]
	}
	var got []int
	for i, l := range lines {
		if re.Match(l) {
			got = append(got, i+1)
		}
	}
	return got
}

// dfaLines runs the DFA over buf and returns the matching line numbers,
// checking that every reported span is exactly one line.
func dfaLines(t *testing.T, d *lineDFA, buf []byte) ([]int, int) {
	t.Helper()
	var got []int
	resume := d.scan(buf, 0, func(ls, le int) bool {
		if (ls > 0 && buf[ls-1] != '\n') || (le < len(buf) && buf[le] != '\n') || bytes.IndexByte(buf[ls:le], '\n') >= 0 {
			t.Fatalf("span %d:%d of %q is not a line", ls, le, buf)
		}
		got = append(got, bytes.Count(buf[:ls], newline)+1)
		return true
	})
	return got, resume
}

func genBuffer(r *rand.Rand) []byte {
	var b strings.Builder
	for range r.IntN(40) {
		b.WriteString(dfaTokens[r.IntN(len(dfaTokens))])
	}
	return []byte(b.String())
}

func compileProg(t *testing.T, pattern string) *syntax.Prog {
	t.Helper()
	re, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		t.Fatal(err)
	}
	prog, err := syntax.Compile(re.Simplify())
	if err != nil {
		t.Fatal(err)
	}
	return prog
}

func TestLineDFAMatchesRegexpPerLine(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	fixed := [][]byte{
		nil, []byte("\n"), []byte("\n\n"), []byte("a"), []byte("a\n"), []byte("\r\n"),
		[]byte("ABCDE12\r\nb\n\nlast"), []byte("a\nb"), []byte("  \n\t\n"), []byte("\xff\n\xe6\x97"),
	}
	for _, p := range dfaPatterns {
		re := regexp.MustCompile(p)
		d := newLineDFA(compileProg(t, p))
		for i := range 400 + len(fixed) {
			buf := genBuffer(r)
			if i < len(fixed) {
				buf = fixed[i]
			}
			got, resume := dfaLines(t, d, buf)
			if want := refLines(re, buf); resume != -1 || fmt.Sprint(got) != fmt.Sprint(want) {
				t.Fatalf("%q on %q: DFA lines %v (resume %d), regexp per line %v", p, buf, got, resume, want)
			}
		}
	}
}

// TestLineMatcherDFAFallback drives EachMatch with a DFA whose cache holds
// only a few states, so that it drops the cache, gives up mid-buffer and
// hands the rest to the per-line regexp: the lines must not change.
func TestLineMatcherDFAFallback(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, p := range []string{`[ab]*[ac][ab]{6}`, `^[A-Z][a-z]+[A-Z]`, `\b[kK]\b`, `[^a]+[bc]$`} {
		m, err := Compile(p, false)
		if err != nil {
			t.Fatal(err)
		}
		if m.needles != nil {
			t.Fatalf("%q has a literal; this test is for the DFA path", p)
		}
		gaveUp := false
		for range 200 {
			buf := bytes.Repeat(genBuffer(r), 3)
			sc := &Scratch{dfa: newLineDFA(m.prog)}
			sc.dfa.limit = 3 // the line-start state and one more
			var got []int
			m.EachMatch(buf, sc, func(n int, line []byte) bool {
				if want := strings.Split(string(buf), "\n")[n-1]; string(line) != want {
					t.Fatalf("line %d is %q, want %q", n, line, want)
				}
				got = append(got, n)
				return true
			})
			gaveUp = gaveUp || sc.dfa.failed
			if want := refLines(m.re, buf); fmt.Sprint(got) != fmt.Sprint(want) {
				t.Fatalf("%q on %q: lines %v, want %v", p, buf, got, want)
			}
		}
		if !gaveUp {
			t.Errorf("%q: the DFA never gave up with a 2-state cache", p)
		}
	}
}

// TestLineDFASkipsAndStops checks which states take the skip loops (so the
// differential tests above do exercise them) and that emit returning
// false stops the scan.
func TestLineDFASkipsAndStops(t *testing.T) {
	d := newLineDFA(compileProg(t, `[A-Z]{5}[0-9]+`))
	st := d.states[d.start/d.stride]
	if st.skip == nil || st.skip['A'] || !st.skip['a'] || !st.skip['\n'] || !st.skip[0xE6] || st.escape != -1 {
		t.Fatalf("[A-Z]{5}[0-9]+: start state skip set wrong (escape %d)", st.escape)
	}
	d = newLineDFA(compileProg(t, `^[A-Z]x`))
	if d.states[d.start/d.stride].skip != nil {
		t.Fatal("^[A-Z]x: the line-start state must not skip")
	}
	d.scan([]byte("ab\nAx\n"), 0, func(int, int) bool { return true })
	steady := d.states[d.table[d.start+int32(d.classes['a'])]/-d.stride]
	if steady.skip == nil || steady.escape != '\n' {
		t.Fatalf("^[A-Z]x: after a non-match the state should skip to '\\n' (escape %d)", steady.escape)
	}
	d = newLineDFA(compileProg(t, `[a-z]`))
	if d.states[d.start/d.stride].skip != nil {
		t.Fatal("[a-z]: common bytes escape the start state; skipping would not pay")
	}
	var lines []int
	buf := []byte("a\nb\nc\n")
	d.scan(buf, 0, func(ls, _ int) bool { lines = append(lines, ls); return len(lines) < 2 })
	if fmt.Sprint(lines) != "[0 2]" {
		t.Fatalf("emit returned false on the 2nd line, scan went on: %v", lines)
	}
}

// FuzzLineDFA compares the DFA and the whole line matcher with regexp per
// line on any pattern and buffer (go test -fuzz FuzzLineDFA ./tools).
func FuzzLineDFA(f *testing.F) {
	f.Add(`[A-Z]{5}[0-9]+`, "ABCDE1\nx")
	f.Add(`(?s)a.b$`, "a\nb\r\n\xffab")
	f.Add(`\b\w+\B`, "日a_b\n\n")
	f.Add(`\n`, "\n")         // a literal that only occurs across lines
	f.Add(`a\nb|c`, "a\nb\n") // one that does, in an alternation
	f.Fuzz(func(t *testing.T, pattern, text string) {
		if len(pattern) > 64 {
			return
		}
		re, err := regexp.Compile(pattern)
		if err != nil {
			return
		}
		want := refLines(re, []byte(text))
		d := newLineDFA(compileProg(t, pattern))
		got, resume := dfaLines(t, d, []byte(text))
		if resume == -1 && fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("%q on %q: DFA lines %v, regexp per line %v", pattern, text, got, want)
		}
		// The whole matcher too: literal prefilters, then the DFA.
		m, err := Compile(pattern, false)
		if err != nil {
			t.Fatal(err)
		}
		got = nil
		m.EachMatch([]byte(text), new(Scratch), func(n int, _ []byte) bool { got = append(got, n); return true })
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("%q on %q: Matcher lines %v, regexp per line %v", pattern, text, got, want)
		}
	})
}
