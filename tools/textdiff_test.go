package tools

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/agentls/agentls/internal/text"
)

var encodings = []text.Encoding{text.UTF16, text.UTF8, text.UTF32}

// applyTextEdits applies LSP-style edits (ranges in before, in enc) the way
// a client does: convert every range against the original text, check they
// are sorted and disjoint, then splice from the end.
func applyTextEdits(t testing.TB, before string, edits []text.Edit, enc text.Encoding) string {
	t.Helper()
	ix := text.NewIndex(before)
	type span struct {
		s, e int
		txt  string
	}
	spans := make([]span, len(edits))
	prevEnd := -1
	for i, ed := range edits {
		s, e := ix.Offset(ed.Range.Start, enc), ix.Offset(ed.Range.End, enc)
		if s > e || s < prevEnd {
			t.Fatalf("edit %d [%d,%d) is inverted or overlaps the previous (end %d)", i, s, e, prevEnd)
		}
		// The positions must round-trip: no clamping or snapping happened.
		if ix.Position(s, enc) != ed.Range.Start || ix.Position(e, enc) != ed.Range.End {
			t.Fatalf("edit %d range %v does not round-trip", i, ed.Range)
		}
		prevEnd = e
		spans[i] = span{s, e, ed.NewText}
	}
	out := before
	for i := len(spans) - 1; i >= 0; i-- {
		out = out[:spans[i].s] + spans[i].txt + out[spans[i].e:]
	}
	return out
}

func TestDiffEditsReproduceAfter(t *testing.T) {
	cases := []struct {
		name, before, after string
		maxEdits            int // 0 = don't check
	}{
		{"one char", "hello world\nsecond line\n", "hello World\nsecond line\n", 1},
		{"insert line", "a\nb\nc\n", "a\nb\nX\nc\n", 1},
		{"delete line", "a\nb\nc\n", "a\nc\n", 1},
		{"empty before", "", "new file\n", 1},
		{"empty after", "gone\n", "", 1},
		{"crlf one char", "alpha\r\nbeta\r\ngamma\r\n", "alpha\r\nbetA\r\ngamma\r\n", 1},
		{"crlf to lf", "a\r\nb\r\n", "a\nb\n", 0},
		{"lf to crlf", "a\nb\n", "a\r\nb\r\n", 0},
		{"insert between cr and lf", "a\r\nb", "a\rX\nb", 0},
		{"emoji", "x := \"😀😀\"\n", "x := \"😀🎉😀\"\n", 1},
		{"cjk", "世界你好\n", "世界您好\n", 1},
		{"combining", "e\u0301t\u00e9\n", "e\u0301te\u0301\n", 0},
		{"lone cr", "a\rb\rc", "a\rB\rc", 1},
		{"no final newline", "a\nb", "a\nb\nc", 1},
		{"tabs", "\tfoo()\n\t\tbar()\n", "\tfoo()\n\t\tbaz()\n", 1},
	}
	for _, tc := range cases {
		for _, enc := range encodings {
			t.Run(fmt.Sprintf("%s/%v", tc.name, enc), func(t *testing.T) {
				edits := text.Diff(tc.before, tc.after, enc)
				if got := applyTextEdits(t, tc.before, edits, enc); got != tc.after {
					t.Fatalf("applying %v\n got %q\nwant %q", edits, got, tc.after)
				}
				if tc.maxEdits > 0 && len(edits) > tc.maxEdits {
					t.Fatalf("%d edits, want at most %d: %v", len(edits), tc.maxEdits, edits)
				}
			})
		}
	}
}

func TestDiffOneCharIsTiny(t *testing.T) {
	before := "package main\n\nfunc main() {\n\tprintln(\"héllo 😀\")\n}\n"
	after := strings.Replace(before, "héllo", "hällo", 1)
	edits := text.Diff(before, after, text.UTF16)
	if len(edits) != 1 {
		t.Fatalf("want 1 edit, got %v", edits)
	}
	want := text.Edit{Range: text.Range{Start: text.Position{Line: 3, Character: 11}, End: text.Position{Line: 3, Character: 12}}, NewText: "ä"}
	if edits[0] != want {
		t.Fatalf("got %+v, want %+v", edits[0], want)
	}
	if text.Diff(before, before, text.UTF16) != nil {
		t.Fatal("identical texts must give no edits")
	}
}

// TestDiffRandom mutates random texts (CRLF, emoji, CJK, tabs) and checks
// the edits reproduce the result in every encoding.
func TestDiffRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	atoms := []string{"a", "b", "\t", " ", "\n", "\r\n", "\r", "😀", "世", "é", "e\u0301", "x := 1", "}"}
	gen := func(n int) string {
		var b strings.Builder
		for range n {
			b.WriteString(atoms[r.IntN(len(atoms))])
		}
		return b.String()
	}
	for i := range 2000 {
		before := gen(r.IntN(60))
		after := before
		for range 1 + r.IntN(3) {
			p := 0
			if after != "" {
				p = r.IntN(len(after) + 1)
			}
			for p < len(after) && (after[p]&0xC0) == 0x80 {
				p++ // rune start
			}
			q := p
			for range r.IntN(4) {
				if q < len(after) {
					q++
					for q < len(after) && (after[q]&0xC0) == 0x80 {
						q++
					}
				}
			}
			after = after[:p] + gen(r.IntN(4)) + after[q:]
		}
		enc := encodings[i%3]
		edits := text.Diff(before, after, enc)
		if got := applyTextEdits(t, before, edits, enc); got != after {
			t.Fatalf("case %d (%v): before %q after %q edits %v got %q", i, enc, before, after, edits, got)
		}
	}
}

// bigFile is a 5 MB Go-like text.
func bigFile() string {
	var b strings.Builder
	for i := 0; b.Len() < 5<<20; i++ {
		fmt.Fprintf(&b, "\tv%d := compute(%d, \"some text to make the line longer 世界\") // 😀\n", i, i)
	}
	return b.String()
}

// TestDiffBigFileSmallChange checks the 5 MB case is minimal; its time is
// measured by BenchmarkDiff5MB (timings are never asserted in tests).
func TestDiffBigFileSmallChange(t *testing.T) {
	before := bigFile()
	mid := len(before) / 2
	after := before[:mid] + "Z" + before[mid+1:]
	start := time.Now()
	edits := text.Diff(before, after, text.UTF16)
	t.Logf("5 MB, one char: %d edit(s) in %v", len(edits), time.Since(start))
	if len(edits) != 1 || len(edits[0].NewText) != 1 {
		t.Fatalf("want one 1-char edit, got %v", edits)
	}
	if got := applyTextEdits(t, before, edits, text.UTF16); got != after {
		t.Fatal("edits do not reproduce the change")
	}
}

// BenchmarkDiff5MB: a staged change to a 5 MB file turned into TextEdits
// through the changeset (Changeset.Edits → text.Diff). Goal: ≤ 10 ms.
//
//	go test ./tools -run '^$' -bench Diff5MB -benchmem
//
// "spread" has three small edits far apart (start, middle, end: the line
// diff covers the whole file); "one-edit" is a single edit in the middle,
// the usual shape of an agent's edit_file.
func BenchmarkDiff5MB(b *testing.B) {
	before := bigFile()
	spread := strings.Replace(before, "\tv10 :=", "\tv1O :=", 1)
	spread = strings.Replace(spread, "\tv30000 :=", "\tinserted()\n\tv30000 :=", 1)
	spread = strings.Replace(spread, "\tv60000 := compute(60000", "\tv60000 := compute(60001", 1)
	oneEdit := strings.Replace(before, "\tv30000 := compute(30000", "\tv30000 := compute(30001", 1)
	for _, c := range []struct {
		name  string
		after string
		edits int
	}{{"spread", spread, 3}, {"one-edit", oneEdit, 1}} {
		b.Run(c.name, func(b *testing.B) {
			cs := NewChangeset(nil)
			cs.stage("/big.go", before, hashText(before), false, c.after)
			b.SetBytes(int64(len(before)))
			for b.Loop() {
				e, err := cs.Edits("/big.go", text.UTF16)
				if err != nil || len(e) != c.edits {
					b.Fatalf("%d edits, %v", len(e), err)
				}
			}
		})
	}
}

// FuzzDiff checks that the edits of any two valid UTF-8 texts reproduce
// the second in every encoding, sorted, disjoint and round-tripping, and
// that invalid UTF-8 never panics.
//
//	go test ./tools -run '^$' -fuzz FuzzDiff -fuzztime 30s
func FuzzDiff(f *testing.F) {
	f.Add("a\r\nb\r\n", "a\rX\nb")
	f.Add("😀世界\n", "😀界\n")
	f.Add("", "x")
	f.Add("line\n", "")
	f.Fuzz(func(t *testing.T, before, after string) {
		if !utf8.ValidString(before) || !utf8.ValidString(after) {
			text.Diff(before, after, text.UTF16) // must not panic
			return
		}
		for _, enc := range encodings {
			if got := applyTextEdits(t, before, text.Diff(before, after, enc), enc); got != after {
				t.Fatalf("%v: got %q want %q", enc, got, after)
			}
		}
	})
}
