package editmatch

import (
	"errors"
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzEditLadder feeds arbitrary texts and edits to the ladder and checks
// the properties that must hold whatever the input:
//   - it never panics, and every refusal is a *Refusal;
//   - a unique exact occurrence is replaced exactly there (lines added by
//     a one-line old_string after a line's indentation get it too);
//   - an accepted fuzzy match starts at the reported line, and the text it
//     replaced equals old_string once whitespace is ignored;
//   - everything before the first touched line is left as it was;
//   - valid UTF-8 stays valid UTF-8.
//
// Run: go test ./tools/editmatch -run '^$' -fuzz FuzzEditLadder -fuzztime 30s
func FuzzEditLadder(f *testing.F) {
	r := rand.New(rand.NewPCG(3, 4))
	for kind := range driftKinds {
		for n := 0; n < 3; {
			if s, ok := genScenario(r, kind); ok {
				f.Add(s.text, s.old, s.new, false)
				n++
			}
		}
	}
	f.Add("a\r\nb\r\n", "a\nb", "c", false)
	f.Add("\tif x {\n\t\ty()\n\t}\n", "if x {\n\ty()\n}", "z", false)
	f.Add("foo foo", "foo", "bar", true)
	f.Add(mixedGo, "\tfor _, c := range s {\n    \tif c < '0' || c > '9' {", "\tfor _, c := range s {\n    \tif c < '1' {", false)
	f.Fuzz(func(t *testing.T, text, old, new string, all bool) {
		out, err := Apply(text, Edit{Old: old, New: new, ReplaceAll: all})
		if err != nil {
			var me *Refusal
			if !errors.As(err, &me) {
				t.Fatalf("refusal is not a Refusal: %T %v", err, err)
			}
			return
		}
		if out.Count < 1 {
			t.Fatalf("accepted with count %d", out.Count)
		}
		if utf8.ValidString(text) && utf8.ValidString(old) && utf8.ValidString(new) && !utf8.ValidString(out.Text) {
			t.Fatalf("produced invalid UTF-8: %q", out.Text)
		}
		lines := splitFileLines(text)
		if out.Line < 1 || out.Line > len(lines) {
			t.Fatalf("line %d out of range (%d lines)", out.Line, len(lines))
		}
		if !all && !strings.HasPrefix(out.Text, text[:lines[out.Line-1].start]) {
			t.Fatalf("text before line %d changed", out.Line)
		}
		if out.Eq == MatchExact && !all {
			i := strings.Index(text, old)
			for i >= 0 && (splitsCRLF(text, i) || splitsCRLF(text, i+len(old))) {
				j := strings.Index(text[i+1:], old)
				if j < 0 {
					i = -1
					break
				}
				i += 1 + j
			}
			if i < 0 {
				t.Fatalf("exact match reported but old_string absent")
			}
			repl := new
			if onlyFirstLine(old) {
				repl = indentAdded(repl, leadingIndent(text, i))
			}
			want := text[:i] + AdaptEOL(repl, eolOf(text, i, i+len(old))) + text[i+len(old):]
			if out.Text != want {
				t.Fatalf("exact replacement differs:\n got %q\nwant %q", out.Text, want)
			}
			return
		}
		if out.Eq > MatchExact && !all {
			checkLooseWindow(t, lines[out.Line-1:], splitOldLines(old))
		}
	})
}

// checkLooseWindow asserts that the file lines starting at the reported line
// equal old's lines with all whitespace and typographic characters ignored
// (first line as a suffix, last as a prefix, as the ladder defines them).
func checkLooseWindow(t *testing.T, lines []fileLine, old []string) {
	t.Helper()
	if len(lines) < len(old) {
		t.Fatalf("window of %d lines runs past the end", len(old))
	}
	loose := looseKey // whitespace and typographic characters ignored
	for j, ol := range old {
		fl := loose(lines[j].content)
		o := loose(ol)
		switch {
		case len(old) == 1:
			if !strings.Contains(fl, o) {
				t.Fatalf("line %q does not contain %q", fl, o)
			}
		case j == 0:
			if !strings.HasSuffix(fl, o) {
				t.Fatalf("first line %q does not end with %q", fl, o)
			}
		case j == len(old)-1:
			if !strings.HasPrefix(fl, o) {
				t.Fatalf("last line %q does not start with %q", fl, o)
			}
		default:
			if fl != o {
				t.Fatalf("middle line %q != %q", fl, o)
			}
		}
	}
}
