package text

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// sourceLike returns a document of n lines that looks like code: indented,
// 0–80 columns, mostly ASCII with some non-ASCII, joined by eol.
func sourceLike(n int, eol string) string {
	r := rand.New(rand.NewPCG(7, 8))
	var b strings.Builder
	for i := range n {
		b.WriteString(strings.Repeat("\t", r.IntN(4)))
		fmt.Fprintf(&b, "x%d := call(%q) // ", i, "arg")
		b.WriteString(randText(r, r.IntN(12), []string{"word ", "mot ", "é", "中文", "😀"}))
		b.WriteString(eol)
	}
	return b.String()
}

// BenchmarkApplyChangesSingleChar is one didChange carrying a one-character
// insertion at a random position in a 10,000-line document, the commonest
// message an LSP server gets while the user types: through the stateless
// ApplyChanges (a new string per change) and through a Buffer (in place).
func BenchmarkApplyChangesSingleChar(b *testing.B) {
	for _, eol := range []struct{ name, s string }{{"LF", "\n"}, {"CRLF", "\r\n"}} {
		doc := sourceLike(10000, eol.s)
		r := rand.New(rand.NewPCG(9, 10))
		changes := make([][]Change, 1024)
		for i := range changes {
			p := Position{Line: uint32(r.IntN(10000)), Character: uint32(r.IntN(40))}
			changes[i] = []Change{{Range: &Range{Start: p, End: p}, Text: "x"}}
		}
		b.Run("ApplyChanges/"+eol.name, func(b *testing.B) {
			text := doc
			b.SetBytes(int64(len(doc)))
			for i := 0; b.Loop(); i++ {
				out, err := ApplyChanges(text, changes[i%len(changes)], UTF16)
				if err != nil || len(out) != len(text)+1 {
					b.Fatalf("ApplyChanges: %v, len %d", err, len(out))
				}
				text = out
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "edits/s")
		})
		b.Run("Buffer/"+eol.name, func(b *testing.B) {
			buf := NewBuffer(doc)
			b.SetBytes(int64(len(doc)))
			for i := 0; b.Loop(); i++ {
				n := buf.Len()
				if err := buf.Apply(changes[i%len(changes)], UTF16); err != nil || buf.Len() != n+1 {
					b.Fatalf("Apply: %v, len %d", err, buf.Len())
				}
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "edits/s")
		})
		b.Run("Buffer-typing/"+eol.name, func(b *testing.B) {
			// Real typing is local: characters go in one after another at
			// the cursor, here a new 60-column line typed in the middle of
			// the document, then a line break, then the next line.
			buf := NewBuffer(doc)
			b.SetBytes(int64(len(doc)))
			line, col := uint32(5000), uint32(0)
			for b.Loop() {
				ch := "x"
				if col == 60 {
					ch = eol.s
				}
				p := Position{Line: line, Character: col}
				n := buf.Len()
				if err := buf.Apply([]Change{{Range: &Range{Start: p, End: p}, Text: ch}}, UTF16); err != nil || buf.Len() != n+len(ch) {
					b.Fatalf("Apply: %v, len %d", err, buf.Len())
				}
				if col++; col > 60 {
					line, col = line+1, 0
				}
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "edits/s")
		})
	}
}

// BenchmarkPositionLongLine converts positions near the end of a 1 MB single
// line of mixed ASCII and non-ASCII text (a minified file), where without
// checkpoints every conversion would count units across the whole line.
func BenchmarkPositionLongLine(b *testing.B) {
	r := rand.New(rand.NewPCG(11, 12))
	var sb strings.Builder
	for sb.Len() < 1<<20 {
		sb.WriteString(randText(r, 1, []string{"abcdefgh", "ijkl", "é", "中", "😀", "{x:1}"}))
	}
	line := sb.String()
	ix := NewIndex(line)
	for _, enc := range allEncodings {
		b.Run(enc.String()+"/Position", func(b *testing.B) {
			for b.Loop() {
				if p := ix.Position(len(line)-1, enc); p.Line != 0 {
					b.Fatal(p)
				}
			}
		})
		b.Run(enc.String()+"/PositionOf-scan", func(b *testing.B) {
			// The same conversion without an Index (no checkpoints).
			for b.Loop() {
				if p := PositionOf(line, len(line)-1, enc); p.Line != 0 {
					b.Fatal(p)
				}
			}
		})
		end := ix.Position(len(line), enc)
		b.Run(enc.String()+"/Offset", func(b *testing.B) {
			for b.Loop() {
				if off := ix.Offset(end, enc); off != len(line) {
					b.Fatal(off)
				}
			}
		})
	}
}

// BenchmarkNewIndex indexes a 5 MB document: code-like lines, and one
// minified line (which also builds long-line checkpoints).
func BenchmarkNewIndex(b *testing.B) {
	b.Run("OneLine", func(b *testing.B) {
		r := rand.New(rand.NewPCG(13, 14))
		var sb strings.Builder
		for sb.Len() < 5<<20 {
			sb.WriteString(randText(r, 1, []string{"function(a,b){return a+b}", "\"é\"", "\"中文\""}))
		}
		doc := sb.String()
		b.SetBytes(int64(len(doc)))
		for b.Loop() {
			if ix := NewIndex(doc); ix.LineCount() != 1 {
				b.Fatal(ix.LineCount())
			}
		}
	})
	for _, eol := range []struct{ name, s string }{{"LF", "\n"}, {"CRLF", "\r\n"}} {
		b.Run(eol.name, func(b *testing.B) {
			var doc string
			for n := 1000; len(doc) < 5<<20; n *= 2 {
				doc = sourceLike(n, eol.s)
			}
			doc = doc[:5<<20]
			b.SetBytes(int64(len(doc)))
			for b.Loop() {
				if ix := NewIndex(doc); ix.LineCount() < 2 {
					b.Fatal(ix.LineCount())
				}
			}
		})
	}
}
