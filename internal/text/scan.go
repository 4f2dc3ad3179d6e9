package text

import "strings"

// This file converts positions by scanning the text, without building an
// Index. A one-off conversion (one didChange, one ConvertPosition) only needs
// the lines up to the position, and counting newlines with the vectorised
// strings.Count is several times cheaper than recording every line start.

// scanChunk is how many bytes advanceLines counts at once before deciding
// whether the wanted line lies inside.
const scanChunk = 4096

// advanceLines returns the start of the line n lines after the line starting
// at pos. ok is false, and the offset len(text), when the text ends first.
func advanceLines(text string, pos, n int) (int, bool) {
	for n > 0 {
		if pos >= len(text) {
			return len(text), false
		}
		end := min(pos+scanChunk, len(text))
		chunk := text[pos:end]
		if strings.IndexByte(chunk, '\r') < 0 {
			// Only "\n" ends lines here: count them all at once.
			if k := strings.Count(chunk, "\n"); k < n {
				n -= k
				pos = end
				continue
			}
			for ; n > 0; n-- {
				pos += strings.IndexByte(text[pos:end], '\n') + 1
			}
			return pos, true
		}
		if k := countBreaksIn(text, pos, end); k < n {
			n -= k
			pos = end
			continue
		}
		pos, n = stepLines(text, pos, end, n)
	}
	return pos, true
}

// countBreaksIn counts the line terminators that end in text[from:to]: every
// "\n", and every "\r" not followed by "\n" (a CRLF counts once, by its
// "\n", even when the pair straddles to). "\n" are counted vectorised; each
// "\r" costs one memchr.
func countBreaksIn(text string, from, to int) int {
	n := strings.Count(text[from:to], "\n")
	for i := from; ; {
		j := indexIn(text, i, to, '\r')
		if j < 0 {
			return n
		}
		if j+1 >= len(text) || text[j+1] != '\n' {
			n++ // a lone "\r"; a CRLF is counted by its "\n"
		}
		i = j + 1
	}
}

// stepLines advances over up to n line terminators that begin in
// text[pos:end], one at a time, and returns the new position and how many
// lines are still to go. A "\r" at end-1 followed by "\n" is consumed whole,
// so the returned position may be end+1.
func stepLines(text string, pos, end, n int) (int, int) {
	nextLF := indexIn(text, pos, end, '\n')
	nextCR := indexIn(text, pos, end, '\r')
	for n > 0 && (nextLF >= 0 || nextCR >= 0) {
		if nextCR >= 0 && (nextLF < 0 || nextCR < nextLF) {
			pos = nextCR + 1
			if pos < len(text) && text[pos] == '\n' {
				pos++
			}
		} else {
			pos = nextLF + 1
		}
		n--
		if nextLF >= 0 && nextLF < pos {
			nextLF = indexIn(text, min(pos, end), end, '\n')
		}
		if nextCR >= 0 && nextCR < pos {
			nextCR = indexIn(text, min(pos, end), end, '\r')
		}
	}
	if n > 0 {
		pos = max(pos, end)
	}
	return pos, n
}

// indexIn is strings.IndexByte over text[from:to], returning an offset in
// text, or -1.
func indexIn(text string, from, to int, c byte) int {
	if i := strings.IndexByte(text[from:to], c); i >= 0 {
		return from + i
	}
	return -1
}

// contentEnd returns the end of the content of the line starting at start:
// the offset of its terminator, or len(text) on the last line.
func contentEnd(text string, start int) int {
	end := len(text)
	if i := strings.IndexByte(text[start:], '\n'); i >= 0 {
		end = start + i
	}
	if i := strings.IndexByte(text[start:end], '\r'); i >= 0 {
		end = start + i
	}
	return end
}

// OffsetOf converts p, counted in enc, to a byte offset in text, clamping as
// Index.Offset does. It scans only the lines up to p, so it suits a single
// conversion; build an Index for many.
func OffsetOf(text string, p Position, enc Encoding) int {
	start, ok := advanceLines(text, 0, clampInt(p.Line))
	if !ok {
		return len(text)
	}
	return start + unitsToByte(text[start:contentEnd(text, start)], clampInt(p.Character), enc)
}

// rangeOffsetsOf is Index.RangeOffsets by scanning: the end is found by
// continuing from the start's line rather than from the top of the text.
func rangeOffsetsOf(text string, r Range, enc Encoding) (start, end int) {
	ls, ok := advanceLines(text, 0, clampInt(r.Start.Line))
	if !ok {
		start = len(text)
	} else {
		start = ls + unitsToByte(text[ls:contentEnd(text, ls)], clampInt(r.Start.Character), enc)
	}
	if r.End.Line < r.Start.Line || !ok {
		end = OffsetOf(text, r.End, enc)
	} else if le, ok := advanceLines(text, ls, clampInt(r.End.Line-r.Start.Line)); !ok {
		end = len(text)
	} else {
		end = le + unitsToByte(text[le:contentEnd(text, le)], clampInt(r.End.Character), enc)
	}
	if start > end {
		start, end = end, start
	}
	return start, end
}

// PositionOf converts a byte offset in text to a position in enc, clamping
// and snapping as Index.Position does, by scanning text[:off].
func PositionOf(text string, off int, enc Encoding) Position {
	off = max(0, min(off, len(text)))
	if off > 0 && off < len(text) && text[off-1] == '\r' && text[off] == '\n' {
		off-- // inside a CRLF: end of the line it terminates
	}
	start := max(strings.LastIndexByte(text[:off], '\n'), strings.LastIndexByte(text[:off], '\r')) + 1
	off = snapRuneStart(text, start, off)
	return Position{Line: clampUint32(countBreaks(text[:start])), Character: clampUint32(CharCount(text[start:off], enc))}
}

// countBreaks counts the line terminators in s ("\r\n" counts once).
func countBreaks(s string) int {
	if strings.IndexByte(s, '\r') < 0 {
		return strings.Count(s, "\n")
	}
	n := 0
	forEachLineStart(s, func(int) { n++ })
	return n
}

// ConvertPosition re-expresses p, counted in from, in the encoding to. It
// equals PositionOf(text, OffsetOf(text, p, from), to): clamped to the text
// and snapped to a rune start, so the result always names a real place.
func ConvertPosition(text string, p Position, from, to Encoding) Position {
	start, ok := advanceLines(text, 0, clampInt(p.Line))
	if !ok {
		return PositionOf(text, len(text), to)
	}
	line := text[start:contentEnd(text, start)]
	off := unitsToByte(line, clampInt(p.Character), from)
	return Position{Line: p.Line, Character: clampUint32(CharCount(line[:off], to))}
}

// ConvertRange converts both ends of r as ConvertPosition does. The range is
// not reordered.
func ConvertRange(text string, r Range, from, to Encoding) Range {
	return Range{Start: ConvertPosition(text, r.Start, from, to), End: ConvertPosition(text, r.End, from, to)}
}
