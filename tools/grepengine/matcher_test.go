package grepengine

import (
	"fmt"
	"testing"
)

// TestLineMatcher checks the prefilters against plain regexp matching on
// tricky inputs (folding, Kelvin sign, neighbours, alternations, anchors).
func TestLineMatcher(t *testing.T) {
	text := "Deadline EXCEEDED\ndeadline exceeded\nKelvin \u212Aelvin\n2024-01-02 and 12-3\nx-y\nerrors.New(\"a\")\nfmt.Errorf(\"b\")\n\nend\r\nlast"
	cases := []struct {
		pattern string
		fold    bool
		want    []int
	}{
		{"deadline exceeded", true, []int{1, 2}},
		{"kelvin", true, []int{3}},
		{"\u212Aelvin", false, []int{3}},
		{`[0-9]{4}-[0-9]{2}-[0-9]{2}`, false, []int{4}},
		{`[0-9]-[0-9]`, false, []int{4}},
		{`errors\.New|fmt\.Errorf`, false, []int{6, 7}},
		{`^$`, false, []int{8}},
		{`d$`, false, []int{2}},
		{`end\r$`, false, []int{9}},
		{`^last$`, false, []int{10}},
		{`x.y`, false, []int{5}},
		{`\d+`, false, []int{4}},
		{`\Aend`, false, []int{9}},
		{`(?m)^x`, false, []int{5}},
	}
	for _, c := range cases {
		m, err := Compile(c.pattern, c.fold)
		if err != nil {
			t.Fatal(err)
		}
		var got []int
		m.EachMatch([]byte(text), new(Scratch), func(n int, _ []byte) bool { got = append(got, n); return true })
		if fmt.Sprint(got) != fmt.Sprint(c.want) {
			t.Errorf("%q (fold %v): lines %v, want %v", c.pattern, c.fold, got, c.want)
		}
	}
}
