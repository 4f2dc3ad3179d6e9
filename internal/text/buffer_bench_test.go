package text

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// BenchmarkBufferChunkSize is the measurement behind defaultChunk: random
// one-character insertions and local typing into the 10,000-line document
// of BenchmarkApplyChangesSingleChar, and String, for several chunk sizes.
// Small chunks make the in-chunk memmove cheap but the prefix arrays long;
// large ones the reverse.
func BenchmarkBufferChunkSize(b *testing.B) {
	doc := sourceLike(10000, "\n")
	for _, target := range []int{1 << 10, 2 << 10, 4 << 10, 8 << 10, 16 << 10} {
		name := fmt.Sprintf("%dk", target>>10)
		b.Run(name+"/random", func(b *testing.B) {
			buf := newChunkedBuffer(doc, target)
			r := rand.New(rand.NewPCG(9, 10))
			for b.Loop() {
				p := Position{Line: uint32(r.IntN(10000)), Character: uint32(r.IntN(40))}
				if err := buf.Apply([]Change{{Range: &Range{Start: p, End: p}, Text: "x"}}, UTF16); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "edits/s")
		})
		b.Run(name+"/typing", func(b *testing.B) {
			buf := newChunkedBuffer(doc, target)
			line, col := uint32(5000), uint32(0)
			for b.Loop() {
				ch := "x"
				if col == 60 {
					ch = "\n"
				}
				p := Position{Line: line, Character: col}
				if err := buf.Apply([]Change{{Range: &Range{Start: p, End: p}, Text: ch}}, UTF16); err != nil {
					b.Fatal(err)
				}
				if col++; col > 60 {
					line, col = line+1, 0
				}
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "edits/s")
		})
		b.Run(name+"/String", func(b *testing.B) {
			buf := newChunkedBuffer(doc, target)
			b.SetBytes(int64(len(doc)))
			for b.Loop() {
				buf.strOK = false
				if len(buf.String()) != len(doc) {
					b.Fatal("length")
				}
			}
		})
	}
}

// BenchmarkBufferPaste inserts a 1 MB, 20,000-line paste into the middle of
// a 10,000-line document and deletes it again: the edits that rebuild many
// chunks at once.
func BenchmarkBufferPaste(b *testing.B) {
	doc := sourceLike(10000, "\n")
	paste := sourceLike(20000, "\n")
	buf := NewBuffer(doc)
	at := Position{Line: 5000, Character: 3}
	after := NewIndex(paste).Position(len(paste), UTF16)
	after.Line += at.Line
	b.SetBytes(int64(len(paste)))
	for b.Loop() {
		if err := buf.Apply([]Change{{Range: &Range{Start: at, End: at}, Text: paste}}, UTF16); err != nil {
			b.Fatal(err)
		}
		if err := buf.Apply([]Change{{Range: &Range{Start: at, End: after}}}, UTF16); err != nil {
			b.Fatal(err)
		}
		if buf.Len() != len(doc) {
			b.Fatalf("length %d after paste and delete, want %d", buf.Len(), len(doc))
		}
	}
}

// BenchmarkBufferLongLine types at the end of a 1 MB single line of mixed
// ASCII and non-ASCII text (a minified file) in UTF-16, where every
// keystroke converts a position a megabyte into its line.
func BenchmarkBufferLongLine(b *testing.B) {
	r := rand.New(rand.NewPCG(11, 12))
	var sb strings.Builder
	for sb.Len() < 1<<20 {
		sb.WriteString(randText(r, 1, []string{"abcdefgh", "ijkl", "é", "中", "😀", "{x:1}"}))
	}
	buf := NewBuffer(sb.String())
	end := buf.Position(buf.Len(), UTF16)
	for b.Loop() {
		if err := buf.Apply([]Change{{Range: &Range{Start: end, End: end}, Text: "x"}}, UTF16); err != nil {
			b.Fatal(err)
		}
		end.Character++
	}
	if p := buf.Position(buf.Len(), UTF16); p != end {
		b.Fatalf("end at %v, typed up to %v", p, end)
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "edits/s")
}

// BenchmarkBufferLargeDocument is the random one-character insertion of
// BenchmarkApplyChangesSingleChar on a 10 MB, 180,000-line document, where
// the per-chunk prefix arrays (2,500 chunks) are what an edit pays for.
func BenchmarkBufferLargeDocument(b *testing.B) {
	const lines = 180000
	buf := NewBuffer(sourceLike(lines, "\n"))
	r := rand.New(rand.NewPCG(9, 10))
	for b.Loop() {
		p := Position{Line: uint32(r.IntN(lines)), Character: uint32(r.IntN(40))}
		if err := buf.Apply([]Change{{Range: &Range{Start: p, End: p}, Text: "x"}}, UTF16); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "edits/s")
}
