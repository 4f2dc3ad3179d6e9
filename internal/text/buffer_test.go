package text

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// Tests of the chunked Buffer's edge cases: edits at and across chunk
// boundaries, CRLF pairs and runes that an edit joins across a boundary,
// huge pastes and deleting everything. Most run on buffers with 16-byte
// chunks, so that short texts have many boundaries.

// TestBufferChunkedAgainstReferenceRandom runs random edit sequences (small
// and large inserts, deletions across many lines) on buffers with tiny
// chunks and compares each state with the reference.
func TestBufferChunkedAgainstReferenceRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(15, 16))
	for _, target := range []int{16, 24, 64} {
		for _, enc := range allEncodings {
			for range 40 {
				text := randText(r, r.IntN(80), pieces)
				buf := newChunkedBuffer(text, target)
				checkBuffer(t, buf, text, fmt.Sprintf("target %d: new buffer", target))
				for step := range 25 {
					c := randBigChange(r, text)
					before := text
					text = refApply(text, []Change{c}, enc)
					if err := buf.Apply([]Change{c}, enc); err != nil {
						t.Fatal(err)
					}
					checkBuffer(t, buf, text, fmt.Sprintf("target %d %v step %d: %q + %s", target, enc, step, before, describe(c)))
				}
			}
		}
	}
}

// randBigChange is randChange with a wider spread: inserts of up to 120
// pieces (several chunks of a tiny-chunk buffer) and ranges over many lines.
func randBigChange(r *rand.Rand, text string) Change {
	lines := len(refSplit(text))
	switch r.IntN(4) {
	case 0:
		start := randPosition(r, lines)
		end := Position{Line: start.Line + uint32(r.IntN(8)), Character: uint32(r.IntN(12))}
		return Change{Range: &Range{Start: start, End: end}, Text: randText(r, r.IntN(3), validPieces)}
	case 1:
		p := randPosition(r, lines)
		return Change{Range: &Range{Start: p, End: p}, Text: randText(r, r.IntN(120), validPieces)}
	}
	return randChange(r, text)
}

func describe(c Change) string {
	if c.Range == nil {
		return fmt.Sprintf("{nil %q}", c.Text)
	}
	return fmt.Sprintf("{%v %q}", *c.Range, c.Text)
}

// TestBufferEditsAroundBoundaries applies every small edit at every offset
// within 4 bytes of every chunk boundary of texts built to put CRLF pairs,
// lone CRs, multi-byte runes and invalid bytes next to the boundaries: an
// insert can complete a CRLF across a boundary, a deletion can join a "\r"
// with a "\n" or the halves of an invalid sequence into an emoji.
func TestBufferEditsAroundBoundaries(t *testing.T) {
	texts := []string{
		strings.Repeat("a", 15) + "\rX\n" + strings.Repeat("b", 30),                              // CR | X LF: deleting X joins a CRLF
		strings.Repeat("a", 15) + "\r" + strings.Repeat("b", 32),                                 // lone CR at a chunk end
		strings.Repeat("a", 14) + "\xf0\x9fX\x98\x80" + strings.Repeat("b", 30),                  // deleting X makes an emoji
		strings.Repeat("a", 14) + "😀" + strings.Repeat("b", 14) + "中文" + strings.Repeat("c", 20), // runes where a cut would fall
		strings.Repeat("x\r\n", 30),
		strings.Repeat("\r", 40) + strings.Repeat("\n", 40),
		strings.Repeat("é😀\r", 20),
	}
	r := rand.New(rand.NewPCG(17, 18))
	for i := range 3 {
		texts = append(texts, randText(r, 30+i*10, pieces))
	}
	inserts := []string{"", "\n", "\r", "\r\n", "\n\r", "z", "😀", "é", strings.Repeat("q\r\n", 12)}
	for ti, text := range texts {
		base := newChunkedBuffer(text, 16)
		checkBuffer(t, base, text, fmt.Sprintf("text %d", ti))
		if len(base.chunks) < 2 {
			t.Fatalf("text %d (%q) is one chunk: the test needs boundaries", ti, text)
		}
		for _, at := range base.off[1 : len(base.off)-1] {
			for d := -4; d <= 4; d++ {
				for span := range 5 {
					for _, ins := range inserts {
						start, end := at+d, at+d+span
						if start < 0 || end > len(text) {
							continue
						}
						rg := Range{Start: refPosition(text, start, UTF8), End: refPosition(text, end, UTF8)}
						c := Change{Range: &rg, Text: ins}
						want := refApply(text, []Change{c}, UTF8)
						buf := newChunkedBuffer(text, 16)
						if err := buf.Apply([]Change{c}, UTF8); err != nil {
							t.Fatal(err)
						}
						checkBuffer(t, buf, want, fmt.Sprintf("text %d (%q) + %s", ti, text, describe(c)))
					}
				}
			}
		}
	}
}

func TestBufferJoinsAcrossBoundary(t *testing.T) {
	t.Run("deleting between CR and LF makes one CRLF break", func(t *testing.T) {
		text := strings.Repeat("a", 15) + "\rX\n" + strings.Repeat("b", 30)
		buf := newChunkedBuffer(text, 16)
		if buf.off[1] != 16 || buf.LineCount() != 3 {
			t.Fatalf("boundary %d, %d lines; the test expects the boundary after the CR and 3 lines", buf.off[1], buf.LineCount())
		}
		if err := buf.Apply([]Change{{Range: rg(1, 0, 1, 1)}}, UTF16); err != nil {
			t.Fatal(err)
		}
		want := strings.Repeat("a", 15) + "\r\n" + strings.Repeat("b", 30)
		checkBuffer(t, buf, want, "after deleting X")
		if buf.LineCount() != 2 || buf.Offset(Position{1, 0}, UTF16) != 17 || buf.Position(16, UTF16) != (Position{0, 15}) {
			t.Errorf("%d lines, line 1 at %d, offset 16 at %v; want 2 lines, 17, {0 15} (never between CR and LF)",
				buf.LineCount(), buf.Offset(Position{1, 0}, UTF16), buf.Position(16, UTF16))
		}
	})
	t.Run("LF inserted after a lone CR at a chunk end", func(t *testing.T) {
		text := strings.Repeat("a", 15) + "\r" + strings.Repeat("b", 32)
		buf := newChunkedBuffer(text, 16)
		if buf.off[1] != 16 || buf.LineCount() != 2 {
			t.Fatalf("boundary %d, %d lines", buf.off[1], buf.LineCount())
		}
		// Type on line 1 first, then insert the LF in front of it.
		if err := buf.Apply([]Change{{Range: rg(1, 0, 1, 0), Text: "Y"}, {Range: rg(1, 0, 1, 0), Text: "\n"}}, UTF16); err != nil {
			t.Fatal(err)
		}
		checkBuffer(t, buf, strings.Repeat("a", 15)+"\r\nY"+strings.Repeat("b", 32), "after LF")
		if buf.LineCount() != 2 || buf.Offset(Position{1, 0}, UTF16) != 17 {
			t.Errorf("%d lines, line 1 at %d; want 2 and 17", buf.LineCount(), buf.Offset(Position{1, 0}, UTF16))
		}
	})
	t.Run("deleting between invalid bytes makes an emoji", func(t *testing.T) {
		text := strings.Repeat("a", 14) + "\xf0\x9fX\x98\x80" + strings.Repeat("b", 30)
		buf := newChunkedBuffer(text, 16)
		if buf.off[1] != 16 {
			t.Fatalf("boundary at %d, the test expects 16 (between the invalid bytes and X)", buf.off[1])
		}
		if got := buf.Position(len(text), UTF16); got != (Position{0, 49}) {
			t.Fatalf("end at %v before the edit, want {0 49} (each invalid byte one unit)", got)
		}
		if err := buf.Apply([]Change{{Range: rg(0, 16, 0, 17)}}, UTF8); err != nil {
			t.Fatal(err)
		}
		checkBuffer(t, buf, strings.Repeat("a", 14)+"😀"+strings.Repeat("b", 30), "after deleting X")
		if got := buf.Position(buf.Len(), UTF16); got != (Position{0, 46}) {
			t.Errorf("end at %v, want {0 46} (the emoji is one surrogate pair)", got)
		}
		if got := buf.Offset(Position{0, 15}, UTF16); got != 14 {
			t.Errorf("UTF-16 character 15, inside the emoji, at byte %d, want 14 (snapped to its start)", got)
		}
	})
}

// TestBufferTypingAcrossBoundaries types a session keystroke by keystroke
// (characters, line breaks, emoji, backspaces, CRLF) into a buffer with tiny
// chunks, so the cursor crosses boundaries again and again.
func TestBufferTypingAcrossBoundaries(t *testing.T) {
	r := rand.New(rand.NewPCG(19, 20))
	text := sourceLike(20, "\r\n")
	buf := newChunkedBuffer(text, 16)
	line, char := uint32(3), uint32(0)
	for step := range 600 {
		var c Change
		switch k := r.IntN(10); {
		case k == 0 && char > 0: // backspace (one UTF-16 unit, or two for a pair)
			c = Change{Range: rg(line, char-1, line, char)}
			char--
		case k == 1:
			c = Change{Range: rg(line, char, line, char), Text: "\r\n"}
			line, char = line+1, 0
		case k == 2:
			c = Change{Range: rg(line, char, line, char), Text: "😀"}
			char += 2
		default:
			c = Change{Range: rg(line, char, line, char), Text: string(rune('a' + r.IntN(26)))}
			char++
		}
		text = refApply(text, []Change{c}, UTF16)
		if err := buf.Apply([]Change{c}, UTF16); err != nil {
			t.Fatal(err)
		}
		// Follow the cursor as an editor would: snapped to what exists.
		p := buf.Position(buf.Offset(Position{line, char}, UTF16), UTF16)
		line, char = p.Line, p.Character
		if step%20 == 0 || step > 580 {
			checkBuffer(t, buf, text, fmt.Sprintf("step %d %s", step, describe(c)))
		}
	}
	if buf.String() != text {
		t.Fatal("typed text differs from the reference")
	}
}

// TestBufferHugePasteAndDeleteAll pastes megabytes in the middle of a
// document, deletes everything, and starts typing again.
func TestBufferHugePasteAndDeleteAll(t *testing.T) {
	doc := sourceLike(2000, "\n")
	paste := sourceLike(20000, "\r\n") // about 1.2 MB
	buf := NewBuffer(doc)
	mid := uint32(1000)
	if err := buf.Apply([]Change{{Range: rg(mid, 3, mid, 3), Text: paste}}, UTF16); err != nil {
		t.Fatal(err)
	}
	ix := NewIndex(doc)
	at := ix.Offset(Position{mid, 3}, UTF16)
	want := doc[:at] + paste + doc[at:]
	checkBuffer(t, buf, want, "after pasting 1.2 MB")
	if _, _, maxSize := buf.sizes(); len(buf.chunks) < len(want)/maxSize {
		t.Errorf("%d chunks for %d bytes: the paste was not split", len(buf.chunks), len(want))
	}
	last := uint32(buf.LineCount() - 1)
	if err := buf.Apply([]Change{{Range: rg(0, 0, last, 1<<20)}}, UTF16); err != nil {
		t.Fatal(err)
	}
	checkBuffer(t, buf, "", "after deleting everything")
	if buf.LineCount() != 1 || len(buf.chunks) != 0 || buf.footprint() > 4<<10 {
		t.Errorf("empty buffer: %d lines, %d chunks, %d bytes held", buf.LineCount(), len(buf.chunks), buf.footprint())
	}
	if err := buf.Apply([]Change{{Range: rg(5, 5, 5, 5), Text: "again\r"}, {Range: rg(1, 0, 1, 0), Text: "\n"}}, UTF16); err != nil {
		t.Fatal(err)
	}
	checkBuffer(t, buf, "again\r\n", "typing into the emptied buffer")
}

// TestBufferChunkedEmptyAndZero covers the empty document with tiny
// chunks: deleting every byte of a multi-chunk text one keystroke at a time
// from the end, and the zero Buffer growing chunks.
func TestBufferChunkedEmptyAndZero(t *testing.T) {
	text := strings.Repeat("ab\r\n😀", 12)
	buf := newChunkedBuffer(text, 16)
	for buf.Len() > 0 {
		end := buf.Position(buf.Len(), UTF16)
		start := end
		if start.Character > 0 {
			start.Character--
		} else {
			start = Position{Line: end.Line - 1, Character: 1 << 20}
		}
		text = refApply(text, []Change{{Range: &Range{Start: start, End: end}}}, UTF16)
		if err := buf.Apply([]Change{{Range: &Range{Start: start, End: end}}}, UTF16); err != nil {
			t.Fatal(err)
		}
		checkBuffer(t, buf, text, fmt.Sprintf("deleting back to %v", start))
	}
	var zero Buffer
	big := strings.Repeat("line\n", 3000)
	if err := zero.Apply([]Change{{Range: rg(0, 0, 0, 0), Text: big}}, UTF8); err != nil {
		t.Fatal(err)
	}
	checkBuffer(t, &zero, big, "zero Buffer after a 15 kB insert")
	if len(zero.chunks) < 2 {
		t.Errorf("a 15 kB insert into the zero Buffer gave %d chunks", len(zero.chunks))
	}
}
