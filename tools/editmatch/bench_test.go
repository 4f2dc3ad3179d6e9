package editmatch

import (
	"os"
	"strings"
	"testing"
)

// benchText is 10 copies of strings.go (13k lines) with a unique marker
// line near the end, so that a drifted old_string is unique.
func benchText(b *testing.B) string {
	src, err := os.ReadFile("testdata/corpus/go/strings.go")
	if err != nil {
		b.Fatal(err)
	}
	return strings.Repeat(string(src), 10) + "func marker() {\n\tif x := “q”; x != \"\" {\n\t\treturn\n\t}\n}\n"
}

// BenchmarkApplyLadder times the rungs a drifted edit walks through on a
// 13,000-line file: the exact search, then each rung until the one that
// matches (indentation mapping, typography), and a refusal with its hint.
func BenchmarkApplyLadder(b *testing.B) {
	text := benchText(b)
	cases := []struct{ name, old string }{
		{"exact", "func marker() {\n\tif x := “q”"},
		{"tabs-as-spaces", "func marker() {\n    if x := “q”; x != \"\" {\n        return"},
		{"typography", "func marker() {\n\tif x := \"q\"; x != \"\" {"},
		{"not-found", "func marker() {\n\tif y := \"q\"; y != \"\" {\n\t\treturn\n\t}"},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				Apply(text, Edit{Old: c.old, New: "x"})
			}
		})
	}
}
