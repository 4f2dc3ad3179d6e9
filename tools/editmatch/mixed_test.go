package editmatch

import (
	"errors"
	"strings"
	"testing"
)

// mixedGo is a Go function as gofmt writes it (tabs).
const mixedGo = "func parse(s string) (int, error) {\n\tn := 0\n\tfor _, c := range s {\n\t\tif c < '0' || c > '9' {\n\t\t\treturn 0, errBad\n\t\t}\n\t\tn = n*10 + int(c-'0')\n\t}\n\treturn n, nil\n}\n"

// Issue 18, edit precision: a model that wrote SOME of a line's leading
// tabs as 4 spaces (on some lines) is understood through one mapping
// learned per indentation unit, applied to new_string too; an inconsistent
// mapping, an ambiguous place and two drifts at once are refused with a
// message.
func TestMixedIndentation(t *testing.T) {
	cases := []struct {
		name, text, old, new, want, errHas string
	}{
		{
			name: "some tabs of some lines as 4 spaces (Go)",
			text: mixedGo,
			old:  "\tfor _, c := range s {\n    \tif c < '0' || c > '9' {\n\t    \treturn 0, errBad\n        }",
			new:  "\tfor _, c := range s {\n    \tif c < '0' || c > '9' {\n\t\t    log.Printf(\"bad %q\", c)\n\t    \treturn 0, errBad\n        }",
			want: strings.Replace(mixedGo, "\t\t\treturn 0, errBad\n", "\t\t\tlog.Printf(\"bad %q\", c)\n\t\t\treturn 0, errBad\n", 1),
		},
		{
			name: "old all spaces, new with the file's tabs",
			text: mixedGo,
			old:  "        n = n*10 + int(c-'0')\n    }",
			new:  "\t\tn = n*10 + int(c-'0')\n\t\tcount++\n\t}",
			want: strings.Replace(mixedGo, "\t\tn = n*10 + int(c-'0')\n\t}\n", "\t\tn = n*10 + int(c-'0')\n\t\tcount++\n\t}\n", 1),
		},
		{
			name: "some 4-space steps as tabs (Python)",
			text: "def f(x):\n    if x:\n        return 1\n    return 2\n",
			old:  "\tif x:\n    \treturn 1",
			new:  "\tif x:\n\t\tprint(x)\n    \treturn 1",
			want: "def f(x):\n    if x:\n        print(x)\n        return 1\n    return 2\n",
		},
		{
			name:   "inconsistent mapping refused",
			text:   mixedGo,
			old:    "\tfor _, c := range s {\n    \tif c < '0' || c > '9' {\n\t  \treturn 0, errBad",
			new:    "x",
			errHas: "not found",
		},
		{
			name:   "ambiguous under the mapping refused",
			text:   mixedGo + "\nfunc g() {\n\tfor {\n\t\tbreak\n\t}\n}\n\nfunc h() {\n\tfor {\n\t\tbreak\n\t}\n}\n",
			old:    "\tfor {\n    \tbreak\n    }",
			new:    "\tfor {\n\t\tcontinue\n\t}",
			errHas: "matches 2 places",
		},
		{
			name:   "mixed indentation and curly quotes at once refused",
			text:   mixedGo,
			old:    "    \tif c < ‘0’ || c > ‘9’ {\n\t    \treturn 0, errBad",
			new:    "x",
			errHas: "not found",
		},
		{
			name:   "new_string off the mapping refused",
			text:   mixedGo,
			old:    "    for _, c := range s {\n    \tif c < '0' || c > '9' {",
			new:    "    for _, c := range s {\n      \tif c < '0' || c > '9' {",
			errHas: "does not convert to a whole indentation",
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			out, err := Apply(tc.text, Edit{Old: tc.old, New: tc.new})
			if tc.errHas != "" {
				var ref *Refusal
				if !errors.As(err, &ref) || !strings.Contains(err.Error(), tc.errHas) {
					t.Fatalf("want a refusal with %q, got %v (text %q)", tc.errHas, err, out.Text)
				}
				return
			}
			if err != nil {
				t.Fatalf("refused: %v", err)
			}
			if out.Text != tc.want || out.Eq != MatchIndentMap {
				t.Fatalf("%v %s\ngot  %q\nwant %q", out.Eq, out.Note(), out.Text, tc.want)
			}
			if !strings.Contains(out.Note(), "in old_string ↔") {
				t.Errorf("note %q does not say how indentation was read", out.Note())
			}
		})
	}
}
