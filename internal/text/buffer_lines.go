package text

import (
	"slices"
	"unsafe"
)

// This file finds lines and converts positions in a chunked Buffer. Every
// chunk boundary is a rune boundary outside any CRLF, so a line terminator
// lies wholly in one chunk and each piece of a line can be decoded on its
// own; a line that straddles chunks is walked piece by piece, never copied.

// chunkOf returns the index of the chunk holding byte off: the chunk that
// starts at or before off and ends after it, or the last chunk when off is
// the end of the text. There must be at least one chunk.
func (b *Buffer) chunkOf(off int) int {
	i, _ := slices.BinarySearch(b.off[1:], off+1) // first chunk ending after off
	return min(i, len(b.chunks)-1)
}

// chunkString views data[lo:hi] of chunk i as a string, without a copy; it
// must not outlive the next mutation.
func (b *Buffer) chunkString(i, lo, hi int) string {
	d := b.chunks[i].data[lo:hi]
	return unsafe.String(unsafe.SliceData(d), len(d))
}

// lineOf returns the line containing off (clamped to the text), as
// Index.LineOf: the number of line starts at or before off.
func (b *Buffer) lineOf(off int) int {
	if off <= 0 || len(b.chunks) == 0 {
		return 0
	}
	i := b.chunkOf(off)
	k, _ := slices.BinarySearch(b.chunks[i].starts, int32(min(off-b.off[i], len(b.chunks[i].data))+1))
	return b.lines[i] + k
}

// lineBounds returns where line (0 <= line < LineCount) starts and where its
// content ends, before its terminator.
func (b *Buffer) lineBounds(line int) (start, end int) {
	if line+1 >= b.LineCount() {
		if line > 0 {
			start = b.lineStart(b.startChunk(line), line)
		}
		return start, b.Len()
	}
	// The next line starts right after this line's terminator, which lies
	// wholly in the chunk holding that start: usually the chunk holding
	// this line's start too.
	next := b.startChunk(line + 1)
	if line > 0 {
		i := next
		if b.lines[i] >= line {
			i = b.startChunk(line)
		}
		start = b.lineStart(i, line)
	}
	d := b.chunks[next].data
	e := int(b.chunks[next].starts[line-b.lines[next]])
	if e > 0 && d[e-1] == '\n' {
		e--
	}
	if e > 0 && d[e-1] == '\r' {
		e--
	}
	return start, max(start, b.off[next]+e)
}

// startChunk returns the chunk holding the start of line, for
// 1 <= line < LineCount: the first chunk whose starts reach line.
func (b *Buffer) startChunk(line int) int {
	i, _ := slices.BinarySearch(b.lines[1:], line)
	return i
}

// lineStart returns the start of line, held by chunk i.
func (b *Buffer) lineStart(i, line int) int {
	return b.off[i] + int(b.chunks[i].starts[line-b.lines[i]-1])
}

// unitsToByte is unitsToByte over the line content text[start:end], which
// may span chunks: it returns the offset from start of the rune boundary
// char units in, clamped to the content and snapped back inside a rune.
func (b *Buffer) unitsToByte(start, end, char int, enc Encoding) int {
	if char <= 0 || start == end {
		return 0
	}
	pos := start
	for i := b.chunkOf(start); ; i++ {
		lo := pos - b.off[i]
		hi := min(end-b.off[i], len(b.chunks[i].data))
		piece := b.chunkString(i, lo, hi)
		if pos+len(piece) == end {
			return pos - start + unitsToByte(piece, char, enc)
		}
		// Chunk boundaries are rune boundaries, so the units of a whole
		// piece add up exactly; a whole chunk's are cached.
		u := b.pieceUnits(i, lo, piece, enc)
		if char < u {
			return pos - start + unitsToByte(piece, char, enc)
		}
		char -= u
		pos += len(piece)
		if char == 0 {
			return pos - start
		}
	}
}

// charCount is CharCount(text[start:off], enc) over the chunks.
func (b *Buffer) charCount(start, off int, enc Encoding) int {
	if enc == UTF8 || start >= off {
		return max(0, off-start)
	}
	n := 0
	for i := b.chunkOf(start); start < off; i++ {
		lo := start - b.off[i]
		hi := min(off-b.off[i], len(b.chunks[i].data))
		n += b.pieceUnits(i, lo, b.chunkString(i, lo, hi), enc)
		start = b.off[i] + hi
	}
	return n
}

// pieceUnits is CharCount(piece, enc) for piece, which starts lo bytes
// into chunk i, using the chunk's cached count when piece is all of it.
func (b *Buffer) pieceUnits(i, lo int, piece string, enc Encoding) int {
	if lo == 0 && len(piece) == len(b.chunks[i].data) {
		return b.units(i, enc)
	}
	return CharCount(piece, enc)
}

// snapRuneStart moves off back to the start of the rune containing it, as
// snapRuneStart does on the whole text; lo is the start of off's line.
func (b *Buffer) snapRuneStart(lo, off int) int {
	if off <= lo || off >= b.Len() {
		return off
	}
	// A rune never straddles chunks, so the chunk holding off holds the
	// start of its rune.
	i := b.chunkOf(off)
	local := off - b.off[i]
	return b.off[i] + snapRuneStart(b.chunkString(i, 0, len(b.chunks[i].data)), 0, local)
}
