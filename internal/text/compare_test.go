package text

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// checkAgainstReference compares every conversion entry point with the
// reference implementation on one text, for a grid of positions and every
// offset, in all encodings.
func checkAgainstReference(t *testing.T, text string) {
	t.Helper()
	ix := NewIndex(text)
	lines := refSplit(text)
	if ix.LineCount() != len(lines) {
		t.Fatalf("%q: LineCount = %d, reference %d", text, ix.LineCount(), len(lines))
	}
	for i, l := range lines {
		if ix.LineStart(i) != l.start || ix.LineEnd(i) != l.end {
			t.Fatalf("%q line %d: [%d,%d), reference [%d,%d)", text, i, ix.LineStart(i), ix.LineEnd(i), l.start, l.end)
		}
	}
	for _, enc := range allEncodings {
		for line := 0; line <= len(lines)+1; line++ {
			for char := 0; char <= 14; char++ {
				p := Position{Line: uint32(line), Character: uint32(char)}
				want := refOffset(text, p, enc)
				if got := ix.Offset(p, enc); got != want {
					t.Fatalf("%q %v Offset(%v) = %d, reference %d", text, enc, p, got, want)
				}
				if got := OffsetOf(text, p, enc); got != want {
					t.Fatalf("%q %v OffsetOf(%v) = %d, reference %d", text, enc, p, got, want)
				}
				for _, to := range allEncodings {
					wantP := refPosition(text, want, to)
					if got := ConvertPosition(text, p, enc, to); got != wantP {
						t.Fatalf("%q ConvertPosition(%v, %v→%v) = %v, reference %v", text, p, enc, to, got, wantP)
					}
				}
			}
		}
		for off := -1; off <= len(text)+1; off++ {
			want := refPosition(text, off, enc)
			if got := ix.Position(off, enc); got != want {
				t.Fatalf("%q %v Position(%d) = %v, reference %v", text, enc, off, got, want)
			}
			if got := PositionOf(text, off, enc); got != want {
				t.Fatalf("%q %v PositionOf(%d) = %v, reference %v", text, enc, off, got, want)
			}
		}
		for _, off := range refBoundaries(text) {
			p := ix.Position(off, enc)
			if back := ix.Offset(p, enc); back != off {
				t.Fatalf("%q %v: offset %d → %v → %d", text, enc, off, p, back)
			}
		}
	}
}

func TestAgainstReferenceRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for range 400 {
		checkAgainstReference(t, randText(r, r.IntN(14), pieces))
	}
}

func TestApplyChangesAgainstReferenceRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for range 2000 {
		text := randText(r, r.IntN(12), pieces)
		changes := make([]Change, 1+r.IntN(5))
		cur := text
		for i := range changes {
			changes[i] = randChange(r, cur)
			cur = refApply(cur, changes[i:i+1], UTF16)
		}
		for _, enc := range allEncodings {
			want := refApply(text, changes, enc)
			got, err := ApplyChanges(text, changes, enc)
			if err != nil {
				t.Fatalf("ApplyChanges(%q, %v): %v", text, enc, err)
			}
			if got != want {
				t.Fatalf("ApplyChanges(%q, %+v, %v) = %q, reference %q", text, changes, enc, got, want)
			}
		}
	}
}

// TestScanAcrossChunks puts line terminators, CRLF pairs and multi-byte runes
// on both sides of the scanner's chunk boundaries, where advanceLines
// switches between counting and stepping.
func TestScanAcrossChunks(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for _, shape := range []string{"lf", "crlf", "cr", "mixed"} {
		var text string
		for len(text) < 3*scanChunk {
			switch shape {
			case "lf":
				text += randText(r, r.IntN(80), []string{"a", "é", "😀"}) + "\n"
			case "crlf":
				text += randText(r, r.IntN(80), []string{"a", "é", "😀"}) + "\r\n"
			case "cr":
				text += randText(r, r.IntN(80), []string{"a", "é", "😀"}) + "\r"
			default:
				text += randText(r, r.IntN(80), pieces)
			}
		}
		// Force a CRLF pair to straddle each chunk boundary.
		b := []byte(text)
		b[scanChunk-1], b[scanChunk] = '\r', '\n'
		b[2*scanChunk-1], b[2*scanChunk] = '\r', '\n'
		text = string(b)
		lines := refSplit(text)
		for _, enc := range allEncodings {
			for line := 0; line <= len(lines); line++ {
				p := Position{Line: uint32(line), Character: uint32(r.IntN(40))}
				want := refOffset(text, p, enc)
				if got := OffsetOf(text, p, enc); got != want {
					t.Fatalf("%s %v OffsetOf(%v) = %d, reference %d", shape, enc, p, got, want)
				}
				if got := NewIndex(text).Offset(p, enc); got != want {
					t.Fatalf("%s %v Offset(%v) = %d, reference %d", shape, enc, p, got, want)
				}
			}
		}
		for _, off := range []int{0, scanChunk - 1, scanChunk, scanChunk + 1, 2 * scanChunk, len(text)} {
			for _, enc := range allEncodings {
				if got, want := PositionOf(text, off, enc), refPosition(text, off, enc); got != want {
					t.Fatalf("%s %v PositionOf(%d) = %v, reference %v", shape, enc, off, got, want)
				}
			}
		}
	}
}

// FuzzRoundTrip checks, for arbitrary bytes, that every rune-boundary offset
// survives offset → position → offset in every encoding, that conversions
// match the reference, and that ApplyChanges matches the reference.
func FuzzRoundTrip(f *testing.F) {
	for _, s := range []string{"", "a", "a\r\nb", "\r\r\n\n", "x😀y\n中\te\u0301\r", "\xf0\x9f\x98a", "🇫🇷\r\n\r"} {
		f.Add(s, uint32(0), uint32(1), uint32(1), uint32(2), "z")
	}
	f.Fuzz(func(t *testing.T, text string, l1, c1, l2, c2 uint32, insert string) {
		// Keep inputs small: the body is quadratic in len(text), and the
		// fuzzer minimises every new input by re-running it many times.
		text = text[:min(len(text), 128)]
		insert = insert[:min(len(insert), 32)]
		ix := NewIndex(text)
		for _, enc := range allEncodings {
			for _, off := range refBoundaries(text) {
				p := ix.Position(off, enc)
				if back := ix.Offset(p, enc); back != off {
					t.Fatalf("%v: offset %d → %v → %d", enc, off, p, back)
				}
				if q := PositionOf(text, off, enc); q != p {
					t.Fatalf("%v: PositionOf(%d) = %v, Index %v", enc, off, q, p)
				}
			}
			p := Position{Line: l1 % 8, Character: c1 % 16}
			if got, want := ix.Offset(p, enc), refOffset(text, p, enc); got != want {
				t.Fatalf("%v Offset(%v) = %d, reference %d", enc, p, got, want)
			}
		}
		insert = strings.ToValidUTF8(insert, "\uFFFD")
		rg := Range{Start: Position{Line: l1 % 8, Character: c1 % 16}, End: Position{Line: l2 % 8, Character: c2 % 16}}
		changes := []Change{{Range: &rg, Text: insert}, {Range: &Range{End: rg.Start}, Text: insert}}
		for _, enc := range allEncodings {
			got, err := ApplyChanges(text, changes, enc)
			if err != nil {
				t.Fatal(err)
			}
			want := refApply(text, changes, enc)
			if got != want {
				t.Fatalf("%v ApplyChanges = %q, reference %q", enc, got, want)
			}
			buf := NewBuffer(text)
			if err := buf.Apply(changes, enc); err != nil {
				t.Fatal(err)
			}
			checkBuffer(t, buf, want, enc.String())
			// The same with 16-byte chunks, so that the fuzzer's texts
			// straddle chunk boundaries.
			small := newChunkedBuffer(text, 16)
			if err := small.Apply(changes, enc); err != nil {
				t.Fatal(err)
			}
			checkBuffer(t, small, want, enc.String()+" 16-byte chunks")
		}
	})
}

// checkBuffer asserts that buf holds want, that its chunks keep their
// invariants and that its incrementally maintained line index and
// conversions equal those of a fresh index of want.
func checkBuffer(t *testing.T, buf *Buffer, want string, context string) {
	t.Helper()
	if got := buf.String(); got != want {
		t.Fatalf("%s: Buffer = %q, reference %q", context, got, want)
	}
	if got, fresh := buf.lineStarts(), NewIndex(want).starts; !slices.Equal(got, fresh) {
		t.Fatalf("%s: Buffer line starts %v, fresh index %v (text %q)", context, got, fresh, want)
	}
	if err := buf.checkChunks(); err != nil {
		t.Fatalf("%s: %v (text %q)", context, err, want)
	}
	checkBufferConversions(t, buf, want, context)
}

func TestBufferAgainstReferenceRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 14))
	for _, enc := range allEncodings {
		for range 300 {
			text := randText(r, r.IntN(12), pieces)
			buf := NewBuffer(text)
			for step := range 12 {
				c := randChange(r, text)
				before := text
				text = refApply(text, []Change{c}, enc)
				if err := buf.Apply([]Change{c}, enc); err != nil {
					t.Fatal(err)
				}
				rg := "nil"
				if c.Range != nil {
					rg = fmt.Sprint(*c.Range)
				}
				checkBuffer(t, buf, text, fmt.Sprintf("%v step %d: %q + {%s %q}", enc, step, before, rg, c.Text))
			}
		}
	}
}
