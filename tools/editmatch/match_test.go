package editmatch

import (
	"errors"
	"strings"
	"testing"
)

// TestApplyEditTable pins the ladder's behaviour on hand-written cases:
// which rung matches, what the text becomes, and what the refusals say.
func TestApplyEditTable(t *testing.T) {
	cases := []struct {
		name       string
		text       string
		old, new   string
		replaceAll bool
		want       string      // expected text on success
		eq         Equivalence // expected rung on success
		count      int
		errHas     string // expected refusal substring ("" = success)
	}{
		{name: "exact unique", text: "a\nb\nc\n", old: "b", new: "B", want: "a\nB\nc\n", eq: MatchExact, count: 1},
		{name: "exact ambiguous lists lines", text: "x\nfoo\ny\nfoo\n", old: "foo", new: "bar", errHas: "matches 2 places (lines 2, 4)"},
		{name: "overlapping occurrences are ambiguous", text: "aaa", old: "aa", new: "b", errHas: "matches 2 places"},
		{name: "replace all", text: "foo foo\nfoo\n", old: "foo", new: "bar", replaceAll: true, want: "bar bar\nbar\n", eq: MatchExact, count: 3},
		{name: "identical strings refused", text: "a", old: "a", new: "a", errHas: "identical"},
		{name: "empty old refused", text: "a", old: "", new: "b", errHas: "old_string is empty"},
		{name: "not found", text: "alpha\nbeta\n", old: "gamma", new: "x", errHas: "not found"},
		{name: "not found points at the region", text: "func f() {\n\treturn 1\n}\n", old: "func f() {\n\treturn 2\n}", new: "x", errHas: "The most similar text is at lines 1-3; it differs in the text of line 2:\n1\tfunc f() {\n2\t\treturn 1\n3\t}\n"},
		{name: "new keeps CRLF of file on exact match", text: "a\r\nb\r\nc\r\n", old: "b", new: "b1\nb2", want: "a\r\nb1\r\nb2\r\nc\r\n", eq: MatchExact, count: 1},
		{name: "LF old in CRLF file", text: "one\r\ntwo\r\nthree\r\n", old: "one\ntwo\n", new: "1\n2\n", want: "1\r\n2\r\nthree\r\n", eq: MatchLineEndings, count: 1},
		{name: "CRLF old in LF file", text: "one\ntwo\nthree\n", old: "two\r\nthree", new: "2\r\n3", want: "one\n2\n3\n", eq: MatchLineEndings, count: 1},
		{name: "CRLF replace_all", text: "a\r\nb\r\na\r\nb\r\n", old: "a\nb", new: "c\nd", replaceAll: true, want: "c\r\nd\r\nc\r\nd\r\n", eq: MatchLineEndings, count: 2},
		{name: "trailing spaces in file", text: "x := 1   \ny := 2\t\nz\n", old: "x := 1\ny := 2\n", new: "x := 10\ny := 20\n", want: "x := 10\ny := 20\nz\n", eq: MatchTrailingSpace, count: 1},
		{name: "trailing spaces in old", text: "x := 1\ny := 2\nz\n", old: "x := 1  \ny := 2 ", new: "X\nY", want: "X\nY\nz\n", eq: MatchTrailingSpace, count: 1},
		{name: "single line trailing space in old", text: "a\nreturn x\nb\n", old: "return x  ", new: "return y", want: "a\nreturn y\nb\n", eq: MatchTrailingSpace, count: 1},
		{name: "indent added by file (tab)", text: "func f() {\n\tif x {\n\t\ty()\n\t}\n}\n", old: "if x {\n\ty()\n}", new: "if x {\n\tz()\n}", want: "func f() {\n\tif x {\n\t\tz()\n\t}\n}\n", eq: MatchIndentShift, count: 1},
		{name: "indent removed by file (spaces)", text: "if x:\n  y()\n  z()\n", old: "    y()\n    z()", new: "    y2()\n    z2()", want: "if x:\n  y2()\n  z2()\n", eq: MatchIndentShift, count: 1},
		{name: "indent shift keeps blank lines", text: "\t\ta()\n\n\t\tb()\n", old: "a()\n\nb()", new: "a()\n\nc()", want: "\t\ta()\n\n\t\tc()\n", eq: MatchIndentShift, count: 1},
		{name: "indent shift single whole line", text: "{\n    foo()\n}\n", old: "      foo()", new: "      bar()", want: "{\n    bar()\n}\n", eq: MatchIndentShift, count: 1},
		{name: "tabs versus spaces mapped", text: "\tfoo()\n\tbar()\n", old: "    foo()\n    bar()", new: "x", want: "x\n", eq: MatchIndentMap, count: 1},
		{name: "non-uniform shift refused", text: "    a()\n      b()\n", old: "  a()\n  b()", new: "x", errHas: "not found"},
		{name: "unindented first line starts mid-line", text: "\tfoo()\n\t\tbar()\n", old: "foo()\nbar()", new: "foo2()\nbar2()", want: "\tfoo2()\n\t\tbar2()\n", eq: MatchIndentShift, count: 1},
		{name: "shift cannot apply to new", text: "if x:\n  y()\n  z()\n", old: "    y()\n    z()", new: "y2()\nz2()", errHas: "cannot be shifted"},
		{name: "ambiguous under trailing whitespace", text: "a \nb\nc\na\t\nb\n", old: "a  \nb", new: "x", errHas: "matches 2 places after ignoring trailing whitespace (lines 1, 4)"},
		{name: "fuzzy replace_all refused", text: "a \nb\na \nb\n", old: "a\nb", new: "x", replaceAll: true, errHas: "replace_all needs an exact match"},
		{name: "near duplicate is not ambiguous", text: "\tv1 := f(1)\n\tv1 := f(2)\n", old: "v1 := f(2)\n", new: "v1 := g(2)\n", want: "\tv1 := f(1)\n\tv1 := g(2)\n", eq: MatchExact, count: 1},
		{name: "emoji and CJK", text: "s := \"héllo 😀\"\r\nt := \"世界\"\r\n", old: "s := \"héllo 😀\"\nt := \"世界\"", new: "s := \"😀\"\nt := \"界\"", want: "s := \"😀\"\r\nt := \"界\"\r\n", eq: MatchLineEndings, count: 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			out, err := Apply(tc.text, Edit{Old: tc.old, New: tc.new, ReplaceAll: tc.replaceAll})
			if tc.errHas != "" {
				var me *Refusal
				if err == nil || !errors.As(err, &me) {
					t.Fatalf("want refusal containing %q, got err=%v text=%q", tc.errHas, err, out.Text)
				}
				if !strings.Contains(err.Error(), tc.errHas) {
					t.Fatalf("refusal %q does not contain %q", err, tc.errHas)
				}
				return
			}
			if err != nil {
				t.Fatalf("unexpected refusal: %v", err)
			}
			if out.Text != tc.want {
				t.Fatalf("text:\n got %q\nwant %q", out.Text, tc.want)
			}
			if out.Eq != tc.eq || out.Count != tc.count {
				t.Fatalf("rung/count = %v/%d, want %v/%d", out.Eq, out.Count, tc.eq, tc.count)
			}
		})
	}
}

func TestDescribeIndent(t *testing.T) {
	for in, want := range map[string]string{"\t": "1 tab", "    ": "4 spaces", "\t\t  ": "2 tabs + 2 spaces", " ": "1 space"} {
		if got := describeIndent(in); got != want {
			t.Errorf("describeIndent(%q) = %q, want %q", in, got, want)
		}
	}
}
