package editmatch

import (
	"errors"
	"strings"
	"testing"
)

// precisionCase is one drift with its exact expected outcome: the text
// and the note on success, or the whole refusal message.
type precisionCase struct {
	name     string
	text     string
	old, new string
	want     string // expected text ("" when refused)
	note     string // expected Outcome.Note() on success
	refusal  string // expected refusal message, exactly
}

func runPrecision(t *testing.T, cases []precisionCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			out, err := Apply(tc.text, Edit{Old: tc.old, New: tc.new})
			if tc.refusal != "" {
				var r *Refusal
				if !errors.As(err, &r) {
					t.Fatalf("want refusal, got err=%v text=%q", err, out.Text)
				}
				if err.Error() != tc.refusal {
					t.Fatalf("refusal:\n got %q\nwant %q", err.Error(), tc.refusal)
				}
				return
			}
			if err != nil {
				t.Fatalf("unexpected refusal: %v", err)
			}
			if out.Text != tc.want {
				t.Fatalf("text:\n got %q\nwant %q", out.Text, tc.want)
			}
			if out.Note() != tc.note {
				t.Fatalf("note:\n got %q\nwant %q", out.Note(), tc.note)
			}
		})
	}
}

const goFunc = "func f(x int) int {\n\tif x > 0 {\n\t\treturn x\n\t}\n\treturn -x\n}\n"

func TestIndentMapping(t *testing.T) {
	runPrecision(t, []precisionCase{{
		name: "4 spaces for a tab, nested line added",
		text: goFunc,
		old:  "    if x > 0 {\n        return x\n    }",
		new:  "    if x > 0 {\n        if x > 9 {\n            return 9\n        }\n        return x\n    }",
		want: "func f(x int) int {\n\tif x > 0 {\n\t\tif x > 9 {\n\t\t\treturn 9\n\t\t}\n\t\treturn x\n\t}\n\treturn -x\n}\n",
		note: "old_string matched at line 2 with its indentation written differently (4 spaces in old_string ↔ 1 tab in the file); new_string was re-indented the same way",
	}, {
		name: "relative spaces against a tab base",
		text: goFunc,
		old:  "if x > 0 {\n    return x\n}",
		new:  "if x > 1 {\n    return x\n}",
		want: "func f(x int) int {\n\tif x > 1 {\n\t\treturn x\n\t}\n\treturn -x\n}\n",
		note: "old_string matched at line 2 with its indentation written differently (4 spaces in old_string ↔ 1 tab in the file, plus 1 tab); new_string was re-indented the same way",
	}, {
		name: "single depth single line, new adds a deeper line",
		text: goFunc,
		old:  "        return x",
		new:  "        x++\n        return x",
		want: "func f(x int) int {\n\tif x > 0 {\n\t\tx++\n\t\treturn x\n\t}\n\treturn -x\n}\n",
		note: "old_string matched at line 3 with its indentation written differently (4 spaces in old_string ↔ 1 tab in the file); new_string was re-indented the same way",
	}, {
		name: "block from column 0 with a nested part in spaces",
		text: "func g() {\n\ta()\n\tb()\n}\n",
		old:  "a()\nb()",
		new:  "a()\nif c {\n    d()\n}\nb()",
		want: "func g() {\n\ta()\n\tif c {\n\t\td()\n\t}\n\tb()\n}\n",
		note: "old_string matched at line 2 with its indentation written differently (4 spaces in old_string ↔ 1 tab in the file, plus 1 tab); new_string was re-indented the same way",
	}, {
		name: "python 2 spaces for 4",
		text: "def f(x):\n    if x:\n        return 1\n    return 2\n",
		old:  "  if x:\n    return 1\n  return 2",
		new:  "  if x:\n    return 1\n  else:\n    return 3\n  return 2",
		want: "def f(x):\n    if x:\n        return 1\n    else:\n        return 3\n    return 2\n",
		note: "old_string matched at line 2 with its indentation written differently (2 spaces in old_string ↔ 4 spaces in the file); new_string was re-indented the same way",
	}, {
		name: "tabs in old_string, spaces in the file",
		text: "class A:\n    def f(self):\n        pass\n",
		old:  "\tdef f(self):\n\t\tpass",
		new:  "\tdef f(self):\n\t\treturn 1",
		want: "class A:\n    def f(self):\n        return 1\n",
		note: "old_string matched at line 2 with its indentation written differently (1 tab in old_string ↔ 4 spaces in the file); new_string was re-indented the same way",
	}, {
		name:    "new_string line that does not convert is refused",
		text:    goFunc,
		old:     "    if x > 0 {\n        return x\n    }",
		new:     "    if x > 0 {\n      return x\n    }",
		refusal: "old_string matched at line 2 with its indentation written differently (4 spaces in old_string ↔ 1 tab in the file), but line 2 of new_string is indented by 6 spaces, which does not convert to a whole indentation under that mapping; indent new_string as the file does",
	}, {
		name:    "inconsistent mapping is not a match",
		text:    "\tif a {\n\t\tb()\n\t}\n",
		old:     "    if a {\n      b()\n      }",
		new:     "x",
		refusal: "old_string not found, even ignoring line endings, trailing and inner whitespace, how indentation is written, and typographic quotes/dashes. The most similar text is at lines 1-3; it differs in tabs versus spaces in indentation (line 1: the file has 1 tab, old_string 4 spaces; line 2: the file has 2 tabs, old_string 6 spaces; line 3: the file has 1 tab, old_string 6 spaces):\n1\t\tif a {\n2\t\t\tb()\n3\t\t}\nCopy old_string from the file exactly (read it again if unsure).",
	}, {
		name:    "ambiguous mapping lists every place",
		text:    "\tx()\n\ty()\n\tx()\n",
		old:     "    x()",
		new:     "    z()",
		refusal: "old_string matches 2 places after ignoring indentation characters (lines 1, 3); include more surrounding lines to make it unique",
	}})
}

func TestTypography(t *testing.T) {
	runPrecision(t, []precisionCase{{
		name: "curly quotes in the file kept on unchanged lines",
		text: "// It says “hello” — twice.\nmsg := \"hi\"\n",
		old:  "// It says \"hello\" - twice.\nmsg := \"hi\"",
		new:  "// It says \"hello\" - twice.\nmsg := \"bye\"",
		want: "// It says “hello” — twice.\nmsg := \"bye\"\n",
		note: "old_string matched at line 1 only after ignoring typographic characters and inner whitespace; the file's own characters were kept where new_string does not change the text",
	}, {
		name: "changed line keeps the file's characters around the change",
		text: "x := “a”  // the “first”\n",
		old:  "x := \"a\" // the \"first\"",
		new:  "x := \"b\" // the \"first\"",
		want: "x := “b”  // the “first”\n",
		note: "old_string matched at line 1 only after ignoring typographic characters and inner whitespace; the file's own characters were kept where new_string does not change the text",
	}, {
		name: "collapsed alignment spaces",
		text: "const (\n\ta    = 1 // one\n\tbcd  = 2 // two\n)\n",
		old:  "\ta = 1 // one\n\tbcd = 2 // two",
		new:  "\ta = 1 // one\n\tbcd = 3 // two",
		want: "const (\n\ta    = 1 // one\n\tbcd  = 3 // two\n)\n",
		note: "old_string matched at line 2 only after ignoring typographic characters and inner whitespace; the file's own characters were kept where new_string does not change the text",
	}, {
		name: "non-breaking space",
		text: "price = \"10\u00a0€\"\n",
		old:  "price = \"10 €\"",
		new:  "price = \"12 €\"",
		want: "price = \"12\u00a0€\"\n",
		note: "old_string matched at line 1 only after ignoring typographic characters and inner whitespace; the file's own characters were kept where new_string does not change the text",
	}, {
		name: "ellipsis kept",
		text: "msg = \"wait… done\"\n",
		old:  "msg = \"wait... done\"",
		new:  "msg = \"wait... now\"",
		want: "msg = \"wait… now\"\n",
		note: "old_string matched at line 1 only after ignoring typographic characters and inner whitespace; the file's own characters were kept where new_string does not change the text",
	}, {
		name:    "a match may not cut an ellipsis",
		text:    "a…b\n",
		old:     "..b",
		new:     "x",
		refusal: "old_string not found, even ignoring line endings, trailing and inner whitespace, how indentation is written, and typographic quotes/dashes. The most similar text is at line 1; it differs in the text of line 1:\n1\ta…b\nCopy old_string from the file exactly (read it again if unsure).",
	}, {
		name:    "single and double quotes are different text",
		text:    "s := “a”\nt := 1\ns := \"a\"  \n",
		old:     "s := 'a'",
		new:     "s := 'b'",
		refusal: "old_string not found, even ignoring line endings, trailing and inner whitespace, how indentation is written, and typographic quotes/dashes. The most similar text is at line 1; it differs in the text of line 1:\n1\ts := “a”\nAlso similar: line 3, line 2.\nCopy old_string from the file exactly (read it again if unsure).",
	}, {
		name:    "two normalised matches",
		text:    "a := “x”\nb := 1\na := \"x\"\n",
		old:     "a := ”x”",
		new:     "a := 2",
		refusal: "old_string matches 2 places after ignoring typographic characters and inner whitespace (lines 1, 3); include more surrounding lines to make it unique",
	}})
}

func TestAddedLinesIndented(t *testing.T) {
	runPrecision(t, []precisionCase{{
		name: "python: exact match after the indentation",
		text: "def f(x):\n    return x\n",
		old:  "return x",
		new:  "if x is None:\n    return 0\nreturn x",
		want: "def f(x):\n    if x is None:\n        return 0\n    return x\n",
	}, {
		name: "one line with its line break",
		text: "def f(x):\n    return x\n",
		old:  "return x\n",
		new:  "if x is None:\n    return 0\nreturn x\n",
		want: "def f(x):\n    if x is None:\n        return 0\n    return x\n",
	}, {
		name: "added lines already in file terms are left alone",
		text: "def f(x):\n    return x\n",
		old:  "return x",
		new:  "y = x\n    return y",
		want: "def f(x):\n    y = x\n    return y\n",
	}, {
		name: "mid-line after other text is not indentation",
		text: "a = b; c = d\n",
		old:  "c = d",
		new:  "c = e\nf = g",
		want: "a = b; c = e\nf = g\n",
	}, {
		name: "trailing-whitespace rung too",
		text: "\tfoo()  \n",
		old:  "foo()   ",
		new:  "foo()\nbar()",
		want: "\tfoo()\n\tbar()\n",
		note: "old_string matched at line 1 only after ignoring trailing whitespace",
	}})
}

func TestNotFoundHints(t *testing.T) {
	file := "package p\n\nfunc a() {\n\tx := 1\n\ty := 2\n}\n\nfunc b() {\n\tx := 10\n\ty := 20\n}\n"
	runPrecision(t, []precisionCase{{
		name:    "difference on the first line",
		text:    file,
		old:     "func b() {\n\tx := 11\n\ty := 20\n}",
		new:     "x",
		refusal: "old_string not found, even ignoring line endings, trailing and inner whitespace, how indentation is written, and typographic quotes/dashes. The most similar text is at lines 8-11; it differs in the text of line 9:\n8\tfunc b() {\n9\t\tx := 10\n10\t\ty := 20\n11\t}\nAlso similar: lines 3-6.\nCopy old_string from the file exactly (read it again if unsure).",
	}, {
		name:    "combined drifts are named",
		text:    "func c() {\n\ts := “q”  + 1\n}\n",
		old:     "func c() {\n    s := 'q' + 2\n}",
		new:     "x",
		refusal: "old_string not found, even ignoring line endings, trailing and inner whitespace, how indentation is written, and typographic quotes/dashes. The most similar text is at lines 1-3; it differs in tabs versus spaces in indentation (line 2: the file has 1 tab, old_string 4 spaces); the text of line 2:\n1\tfunc c() {\n2\t\ts := “q”  + 1\n3\t}\nCopy old_string from the file exactly (read it again if unsure).",
	}, {
		name:    "typography and spacing combined with tabs",
		text:    "func c() {\n\ts := “q”  + 1\n}\n",
		old:     "func c() {\n    s := \"q\" + 1\n}",
		new:     "x",
		refusal: "old_string not found, even ignoring line endings, trailing and inner whitespace, how indentation is written, and typographic quotes/dashes. The most similar text is at lines 1-3; it differs in tabs versus spaces in indentation (line 2: the file has 1 tab, old_string 4 spaces); typographic characters (line 2: the file has “ (U+201C), ” (U+201D) where old_string has \"); whitespace inside lines (line 2):\n1\tfunc c() {\n2\t\ts := “q”  + 1\n3\t}\nCopy old_string from the file exactly (read it again if unsure).",
	}, {
		name:    "nothing similar",
		text:    file,
		old:     "zzzz qqqq",
		new:     "x",
		refusal: "old_string not found, even ignoring line endings, trailing and inner whitespace, how indentation is written, and typographic quotes/dashes, and no similar text either. Re-read the file and copy the text exactly.",
	}})
}

// TestAmbiguousListsEveryPlace: past the old bound of 10 the lines are
// still all listed (up to maxListedLines).
func TestAmbiguousListsEveryPlace(t *testing.T) {
	text := strings.Repeat("x()\n", 30)
	_, err := Apply(text, Edit{Old: "x()", New: "y()"})
	want := "old_string matches 30 places (lines 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30); include more surrounding lines to make it unique, or set replace_all to change every one"
	if err == nil || err.Error() != want {
		t.Fatalf("got %v\nwant %s", err, want)
	}
}
