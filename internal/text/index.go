package text

import (
	"math"
	"sort"
	"strings"
)

// Index maps between byte offsets and LSP positions in one immutable text.
// It records where each line starts, so a conversion costs a binary search
// plus a scan of one line. An Index never changes after NewIndex and is safe
// for concurrent use.
//
// Lines end at "\n", "\r\n" or a lone "\r", as LSP specifies. A text ending
// in a line terminator has an empty last line after it; the empty text has
// one empty line.
type Index struct {
	text   string
	starts []int                // byte offset where each line starts; starts[0] == 0
	long   map[int][]checkpoint // unit counts along lines longer than longLine
}

// NewIndex builds the line index of text in one pass.
func NewIndex(text string) *Index {
	n := strings.Count(text, "\n") + 1 // exact for LF and CRLF text
	starts := make([]int, 1, n)
	forEachLineStart(text, func(off int) { starts = append(starts, off) })
	ix := &Index{text: text, starts: starts}
	for line, start := range starts {
		next := len(text)
		if line+1 < len(starts) {
			next = starts[line+1]
		}
		if next-start > longLine {
			if ix.long == nil {
				ix.long = make(map[int][]checkpoint)
			}
			ix.long[line] = buildCheckpoints(text, start, ix.LineEnd(line))
		}
	}
	return ix
}

// forEachLineStart calls fn with the start offset of every line but the
// first, in order. It follows "\n" and "\r" with two memchr-style searches,
// so the cost is linear whatever mix of terminators the text uses.
func forEachLineStart(text string, fn func(off int)) {
	nextLF := strings.IndexByte(text, '\n')
	nextCR := strings.IndexByte(text, '\r')
	for nextLF >= 0 || nextCR >= 0 {
		var start int
		if nextCR >= 0 && (nextLF < 0 || nextCR < nextLF) {
			start = nextCR + 1
			if start < len(text) && text[start] == '\n' {
				start++
			}
		} else {
			start = nextLF + 1
		}
		fn(start)
		if nextLF >= 0 && nextLF < start {
			nextLF = indexFrom(text, start, '\n')
		}
		if nextCR >= 0 && nextCR < start {
			nextCR = indexFrom(text, start, '\r')
		}
	}
}

// indexFrom is strings.IndexByte over text[from:], returning an offset in
// text, or -1.
func indexFrom(text string, from int, c byte) int {
	if i := strings.IndexByte(text[from:], c); i >= 0 {
		return from + i
	}
	return -1
}

// Text returns the text the index was built over.
func (ix *Index) Text() string { return ix.text }

// LineCount returns the number of lines; it is at least 1.
func (ix *Index) LineCount() int { return len(ix.starts) }

// LineStart returns the byte offset where line starts. A negative line
// gives 0 and a line past the last gives len(text), so callers can clamp
// without checking first.
func (ix *Index) LineStart(line int) int {
	switch {
	case line < 0:
		return 0
	case line >= len(ix.starts):
		return len(ix.text)
	}
	return ix.starts[line]
}

// LineEnd returns the byte offset at the end of line's content, before its
// terminator. Out-of-range lines clamp as in LineStart.
func (ix *Index) LineEnd(line int) int {
	switch {
	case line < 0:
		line = 0
	case line >= len(ix.starts):
		return len(ix.text)
	}
	if line+1 == len(ix.starts) {
		return len(ix.text)
	}
	return trimTerminator(ix.text, ix.starts[line], ix.starts[line+1])
}

// trimTerminator returns the end of the content of the line occupying
// text[start:next], where next is the start of the following line.
func trimTerminator(text string, start, next int) int {
	end := next
	if end > start && text[end-1] == '\n' {
		end--
	}
	if end > start && text[end-1] == '\r' {
		end--
	}
	return end
}

// LineOf returns the line containing the byte offset off (clamped to the
// text). An offset inside a line terminator belongs to the line it ends.
func (ix *Index) LineOf(off int) int {
	if off <= 0 {
		return 0
	}
	// The last line whose start is <= off.
	return sort.SearchInts(ix.starts, off+1) - 1
}

// Offset converts p, counted in enc, to a byte offset. It never fails: a
// line past the last gives the end of the text; a character past the end of
// its line gives the end of the line, before the terminator (so a CRLF is
// never split); a character inside a rune (half a surrogate pair, the middle
// of a UTF-8 sequence) snaps to the start of that rune.
func (ix *Index) Offset(p Position, enc Encoding) int {
	if uint64(p.Line) >= uint64(len(ix.starts)) {
		return len(ix.text)
	}
	line := int(p.Line)
	start, end := ix.starts[line], ix.LineEnd(line)
	if cps := ix.checkpoints(line, start, end, enc); cps != nil {
		return longOffset(ix.text, cps, end, clampInt(p.Character), enc)
	}
	return start + unitsToByte(ix.text[start:end], clampInt(p.Character), enc)
}

// Position converts a byte offset to a position counted in enc. The offset
// is clamped to [0, len(text)]; an offset inside a rune snaps to the rune's
// start, and one inside a line terminator (between "\r" and "\n") maps to the
// end of that line.
func (ix *Index) Position(off int, enc Encoding) Position {
	if len(ix.starts) == 0 {
		return Position{} // zero Index: treat as the empty text
	}
	off = max(0, min(off, len(ix.text)))
	line := ix.LineOf(off)
	start := ix.starts[line]
	end := ix.LineEnd(line)
	off = min(snapRuneStart(ix.text, start, off), end)
	if cps := ix.checkpoints(line, start, end, enc); cps != nil {
		return Position{Line: uint32(line), Character: clampUint32(longUnits(ix.text, cps, off, enc))}
	}
	return Position{Line: uint32(line), Character: clampUint32(CharCount(ix.text[start:off], enc))}
}

// checkpoints returns the checkpoints of a long line when they help: not in
// UTF-8, where bytes are the units.
func (ix *Index) checkpoints(line, start, end int, enc Encoding) []checkpoint {
	if enc == UTF8 || end-start <= longLine {
		return nil
	}
	return ix.long[line]
}

// RangeOffsets converts r to byte offsets as Offset does, swapping them if
// the range is inverted so that start <= end always holds.
func (ix *Index) RangeOffsets(r Range, enc Encoding) (start, end int) {
	start, end = ix.Offset(r.Start, enc), ix.Offset(r.End, enc)
	if start > end {
		start, end = end, start
	}
	return start, end
}

// Range converts the byte span [start, end) to a Range in enc, as Position
// does for each end.
func (ix *Index) Range(start, end int, enc Encoding) Range {
	return Range{Start: ix.Position(start, enc), End: ix.Position(end, enc)}
}

// clampInt converts a wire value to int without wrapping on 32-bit systems.
func clampInt(u uint32) int {
	if uint64(u) > math.MaxInt {
		return math.MaxInt
	}
	return int(u)
}

// clampUint32 converts a count to a wire value, saturating instead of
// wrapping for lines longer than 4 GiB units.
func clampUint32(n int) uint32 {
	if uint64(n) > math.MaxUint32 {
		return math.MaxUint32
	}
	return uint32(n)
}
