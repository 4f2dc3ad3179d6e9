package text

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

func TestIndexLines(t *testing.T) {
	for _, tc := range []struct {
		text   string
		starts []int
		ends   []int
	}{
		{"", []int{0}, []int{0}},
		{"abc", []int{0}, []int{3}},
		{"\n", []int{0, 1}, []int{0, 1}},
		{"a\nb", []int{0, 2}, []int{1, 3}},
		{"a\r\nb\r\n", []int{0, 3, 6}, []int{1, 4, 6}},
		{"a\rb", []int{0, 2}, []int{1, 3}},
		{"ab\r", []int{0, 3}, []int{2, 3}},
		{"\r\r\n\n", []int{0, 1, 3, 4}, []int{0, 1, 3, 4}},
		{"\n\r", []int{0, 1, 2}, []int{0, 1, 2}}, // LF then a lone CR: two breaks
		{"x\n\n\ny", []int{0, 2, 3, 4}, []int{1, 2, 3, 5}},
		{"\t中\r\n😀", []int{0, 6}, []int{4, 10}},
	} {
		ix := NewIndex(tc.text)
		if ix.Text() != tc.text {
			t.Errorf("%q: Text() = %q", tc.text, ix.Text())
		}
		if ix.LineCount() != len(tc.starts) {
			t.Errorf("%q: LineCount = %d, want %d", tc.text, ix.LineCount(), len(tc.starts))
			continue
		}
		for i := range tc.starts {
			if got := ix.LineStart(i); got != tc.starts[i] {
				t.Errorf("%q: LineStart(%d) = %d, want %d", tc.text, i, got, tc.starts[i])
			}
			if got := ix.LineEnd(i); got != tc.ends[i] {
				t.Errorf("%q: LineEnd(%d) = %d, want %d", tc.text, i, got, tc.ends[i])
			}
		}
		n := len(tc.text)
		if ix.LineStart(-1) != 0 || ix.LineStart(len(tc.starts)) != n || ix.LineEnd(len(tc.starts)+5) != n {
			t.Errorf("%q: out-of-range lines do not clamp", tc.text)
		}
	}
}

// doc has every hard case on four lines: an emoji (surrogate pair), CRLF,
// CJK, a tab, a combining mark, a lone CR, an empty line and an empty last
// line. Byte layout:
//
//	line 0 [0,6)   "a😀b"        + "\r\n" at 6–7
//	line 1 [8,18)  "中文\te\u0301" + "\r" at 18
//	line 2 [19,20) "x"          + "\n" at 20
//	line 3 [21,21) ""           + "\n" at 21
//	line 4 [22,22) ""
const doc = "a😀b\r\n中文\te\u0301\rx\n\n"

func TestOffset(t *testing.T) {
	type pc = [2]uint32
	for _, tc := range []struct {
		enc  Encoding
		pos  pc
		want int
	}{
		// Line 0, UTF-16: the emoji is two units; its middle snaps back.
		{UTF16, pc{0, 0}, 0}, {UTF16, pc{0, 1}, 1}, {UTF16, pc{0, 2}, 1}, {UTF16, pc{0, 3}, 5},
		{UTF16, pc{0, 4}, 6}, {UTF16, pc{0, 5}, 6}, {UTF16, pc{0, 100}, 6}, // past EOL: before the CRLF
		// Line 0, UTF-8: inside the 4-byte emoji snaps to its start.
		{UTF8, pc{0, 1}, 1}, {UTF8, pc{0, 2}, 1}, {UTF8, pc{0, 4}, 1}, {UTF8, pc{0, 5}, 5}, {UTF8, pc{0, 7}, 6},
		// Line 0, UTF-32: one unit per code point.
		{UTF32, pc{0, 1}, 1}, {UTF32, pc{0, 2}, 5}, {UTF32, pc{0, 3}, 6}, {UTF32, pc{0, 4}, 6},
		// Line 1: CJK, tab, combining mark (a separate code point).
		{UTF16, pc{1, 0}, 8}, {UTF16, pc{1, 1}, 11}, {UTF16, pc{1, 2}, 14}, {UTF16, pc{1, 3}, 15},
		{UTF16, pc{1, 4}, 16}, {UTF16, pc{1, 5}, 18}, {UTF16, pc{1, 6}, 18},
		{UTF32, pc{1, 4}, 16}, {UTF32, pc{1, 5}, 18},
		{UTF8, pc{1, 1}, 8}, {UTF8, pc{1, 3}, 11}, {UTF8, pc{1, 6}, 14}, {UTF8, pc{1, 7}, 15},
		{UTF8, pc{1, 9}, 16}, {UTF8, pc{1, 10}, 18}, {UTF8, pc{1, 11}, 18},
		// Line 2 follows a lone CR; lines 3 and 4 are empty.
		{UTF16, pc{2, 0}, 19}, {UTF16, pc{2, 1}, 20}, {UTF16, pc{2, 9}, 20},
		{UTF16, pc{3, 0}, 21}, {UTF16, pc{3, 3}, 21},
		{UTF16, pc{4, 0}, 22}, {UTF8, pc{4, 9}, 22},
		// Past the last line: end of document.
		{UTF16, pc{5, 0}, 22}, {UTF32, pc{1000, 7}, 22}, {UTF8, pc{math.MaxUint32, math.MaxUint32}, 22},
		{UTF16, pc{1, math.MaxUint32}, 18},
	} {
		p := Position{Line: tc.pos[0], Character: tc.pos[1]}
		if got := NewIndex(doc).Offset(p, tc.enc); got != tc.want {
			t.Errorf("%v Offset(%v) = %d, want %d", tc.enc, p, got, tc.want)
		}
		if got := OffsetOf(doc, p, tc.enc); got != tc.want {
			t.Errorf("%v OffsetOf(%v) = %d, want %d", tc.enc, p, got, tc.want)
		}
	}
}

func TestPosition(t *testing.T) {
	type pc = [2]uint32
	for _, tc := range []struct {
		enc  Encoding
		off  int
		want pc
	}{
		{UTF16, 0, pc{0, 0}}, {UTF16, 1, pc{0, 1}},
		{UTF16, 2, pc{0, 1}}, {UTF16, 3, pc{0, 1}}, {UTF16, 4, pc{0, 1}}, // inside the emoji
		{UTF16, 5, pc{0, 3}}, {UTF16, 6, pc{0, 4}},
		{UTF16, 7, pc{0, 4}}, // between CR and LF: end of line 0
		{UTF16, 8, pc{1, 0}}, {UTF16, 9, pc{1, 0}}, {UTF16, 11, pc{1, 1}}, {UTF16, 14, pc{1, 2}},
		{UTF16, 15, pc{1, 3}}, {UTF16, 16, pc{1, 4}}, {UTF16, 17, pc{1, 4}}, {UTF16, 18, pc{1, 5}},
		{UTF16, 19, pc{2, 0}}, {UTF16, 20, pc{2, 1}}, {UTF16, 21, pc{3, 0}}, {UTF16, 22, pc{4, 0}},
		{UTF16, -5, pc{0, 0}}, {UTF16, 100, pc{4, 0}},
		{UTF8, 5, pc{0, 5}}, {UTF8, 6, pc{0, 6}}, {UTF8, 7, pc{0, 6}}, {UTF8, 16, pc{1, 8}},
		{UTF8, 17, pc{1, 8}}, {UTF8, 18, pc{1, 10}},
		{UTF32, 5, pc{0, 2}}, {UTF32, 6, pc{0, 3}}, {UTF32, 18, pc{1, 5}},
	} {
		want := Position{Line: tc.want[0], Character: tc.want[1]}
		if got := NewIndex(doc).Position(tc.off, tc.enc); got != want {
			t.Errorf("%v Position(%d) = %v, want %v", tc.enc, tc.off, got, want)
		}
		if got := PositionOf(doc, tc.off, tc.enc); got != want {
			t.Errorf("%v PositionOf(%d) = %v, want %v", tc.enc, tc.off, got, want)
		}
	}
}

func TestEmptyDocument(t *testing.T) {
	ix := NewIndex("")
	for _, enc := range allEncodings {
		for _, p := range []Position{{}, {Line: 0, Character: 5}, {Line: 3, Character: 0}} {
			if got := ix.Offset(p, enc); got != 0 {
				t.Errorf("%v Offset(%v) on empty = %d", enc, p, got)
			}
		}
		if got := ix.Position(10, enc); got != (Position{}) {
			t.Errorf("%v Position(10) on empty = %v", enc, got)
		}
	}
}

func TestRangeOffsetsNormalises(t *testing.T) {
	ix := NewIndex(doc)
	r := Range{Start: Position{Line: 1, Character: 2}, End: Position{Line: 0, Character: 1}}
	s, e := ix.RangeOffsets(r, UTF16)
	if s != 1 || e != 14 {
		t.Errorf("inverted range: %d, %d; want 1, 14", s, e)
	}
	if got := ix.Range(1, 14, UTF16); got != (Range{Start: Position{0, 1}, End: Position{1, 2}}) {
		t.Errorf("Range(1, 14) = %v", got)
	}
	if got := ix.LineOf(7); got != 0 {
		t.Errorf("LineOf inside CRLF = %d, want 0", got)
	}
}

func TestConvertPosition(t *testing.T) {
	for _, tc := range []struct {
		p        Position
		from, to Encoding
		want     Position
	}{
		{Position{0, 3}, UTF16, UTF8, Position{0, 5}},
		{Position{0, 5}, UTF8, UTF16, Position{0, 3}},
		{Position{0, 5}, UTF8, UTF32, Position{0, 2}},
		{Position{0, 2}, UTF16, UTF32, Position{0, 1}}, // mid-surrogate snaps to the emoji's start
		{Position{1, 4}, UTF32, UTF8, Position{1, 8}},
		{Position{1, 50}, UTF16, UTF8, Position{1, 10}}, // past EOL clamps
		{Position{9, 0}, UTF16, UTF8, Position{4, 0}},   // past EOF: end of document
	} {
		if got := ConvertPosition(doc, tc.p, tc.from, tc.to); got != tc.want {
			t.Errorf("ConvertPosition(%v, %v→%v) = %v, want %v", tc.p, tc.from, tc.to, got, tc.want)
		}
	}
	r := ConvertRange(doc, Range{Start: Position{0, 1}, End: Position{0, 3}}, UTF16, UTF8)
	if r != (Range{Start: Position{0, 1}, End: Position{0, 5}}) {
		t.Errorf("ConvertRange = %v", r)
	}
}

func TestLongLineASCIIFastPath(t *testing.T) {
	// Non-ASCII runes at every alignment relative to the 8-byte fast path.
	for pad := range 17 {
		line := ""
		for range pad {
			line += "a"
		}
		line += "😀" + line + "中" + line
		ix := NewIndex(line)
		for _, enc := range allEncodings {
			var offs []int
			for off := 0; off <= len(line); off++ {
				p := ix.Position(off, enc)
				if want := refPosition(line, off, enc); p != want {
					t.Fatalf("pad %d %v: Position(%d) = %v, reference %v", pad, enc, off, p, want)
				}
				offs = append(offs, ix.Offset(p, enc))
			}
			if !slices.IsSorted(offs) {
				t.Fatalf("pad %d %v: offsets not monotonic: %v", pad, enc, offs)
			}
		}
	}
}

// TestLongLineCheckpoints compares conversions on lines long enough to get
// checkpoints with the scanning functions, which have none (and are checked
// against the reference elsewhere), around every checkpoint and at random.
func TestLongLineCheckpoints(t *testing.T) {
	r := rand.New(rand.NewPCG(15, 16))
	for _, mix := range [][]string{
		{"a", "é", "中", "😀", "e\u0301", "\t"},
		{"😀"},
		{"abcdefghij", "😀", "\xff"},
	} {
		var sb strings.Builder
		sb.WriteString("short\r\n")
		for sb.Len() < 3*longLine {
			sb.WriteString(mix[r.IntN(len(mix))])
		}
		sb.WriteString("\r\nshort\n")
		for sb.Len() < 5*longLine {
			sb.WriteString(mix[r.IntN(len(mix))])
		}
		text := sb.String()
		ix := NewIndex(text)
		if len(ix.long) != 2 {
			t.Fatalf("%d long lines indexed, want 2", len(ix.long))
		}
		var offs []int
		for _, cps := range ix.long {
			for _, cp := range cps {
				for d := -6; d <= 6; d++ {
					offs = append(offs, cp.off+d)
				}
			}
		}
		for range 500 {
			offs = append(offs, r.IntN(len(text)+1))
		}
		for _, enc := range allEncodings {
			for _, off := range offs {
				p := ix.Position(off, enc)
				if want := PositionOf(text, off, enc); p != want {
					t.Fatalf("%v Position(%d) = %v, scan %v", enc, off, p, want)
				}
				for d := uint32(0); d < 3; d++ {
					q := Position{Line: p.Line, Character: p.Character + d}
					if got, want := ix.Offset(q, enc), OffsetOf(text, q, enc); got != want {
						t.Fatalf("%v Offset(%v) = %d, scan %d", enc, q, got, want)
					}
				}
			}
		}
	}
}
