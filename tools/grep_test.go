package tools

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
)

// TestGrepManyFilesNoLiteral: a pattern without a literal (the DFA path)
// over more matching lines than grep keeps, so the kept files are pruned
// and files sorting after the cutoff are only counted. The output must be
// exactly the first grepMaxMatches lines by path then line, and the note
// must count every matching line, CRLF and last-line-without-'\n' files
// included.
func TestGrepManyFilesNoLiteral(t *testing.T) {
	const pattern = `^[a-z]+\s[0-9]+\s[0-9]+\r?$`
	re := regexp.MustCompile(pattern)
	files := map[string]string{}
	var want []string
	for i := range 60 {
		var b strings.Builder
		for j := range 20 {
			eol := "\n"
			if i%3 == 1 {
				eol = "\r\n"
			}
			fmt.Fprintf(&b, "match %d %d%s", i, j, eol)
			if j%5 == 0 {
				b.WriteString("x 1\n\n") // not matching: a second word
			}
		}
		text := strings.TrimSuffix(b.String(), "\n")
		if i%2 == 0 {
			text += "\nmatch last " + fmt.Sprint(i) // no '\n' at the end
		}
		name := fmt.Sprintf("f%02d.txt", i)
		files[name] = text
		for n, l := range strings.Split(text, "\n") {
			if re.MatchString(l) {
				want = append(want, fmt.Sprintf("%s:%d:%s", name, n+1, strings.TrimSuffix(l, "\r")))
			}
		}
	}
	root := newWorkspace(t, files)
	env := newEnv(t, root, Policy{})
	got := mustOK(t, call(t, env, "grep", map[string]any{"pattern": pattern}))
	if len(want) != 60*20 {
		t.Fatalf("reference found %d lines", len(want))
	}
	exp := strings.Join(want[:grepMaxMatches], "\n") +
		fmt.Sprintf("\n[showing %d of %d matching lines in 60 files; narrow the pattern, path or glob]\n", grepMaxMatches, len(want))
	if got != exp {
		t.Fatalf("got:\n%s\nwant:\n%s", got, exp)
	}
}
