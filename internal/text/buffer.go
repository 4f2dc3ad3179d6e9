package text

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Buffer is a mutable document with a line index kept up to date edit by
// edit, for the one place that applies every keystroke: an open editor
// buffer fed by textDocument/didChange. ApplyChanges has to copy the whole
// text for every change; a Buffer only touches the few kilobytes around an
// edit, so a keystroke costs about the same in a 10 kB file and a 10 MB one.
//
// The text is kept in chunks of about 4 kB (1–8 kB), each holding its line
// starts relative to itself, plus two prefix arrays (byte offset and line
// count before each chunk) searched by binary search. An edit inside one
// chunk moves at most that chunk's bytes, rescans the lines it touches and
// adds its byte and line deltas to the prefix entries of the chunks after
// it (70 adds on average in a 560 kB file, 1,250 in a 10 MB one). Edits
// that span chunks or grow one past its maximum rebuild only the chunks
// involved. Chunk boundaries never fall inside a rune or between the "\r"
// and "\n" of a CRLF, so every chunk can be scanned and decoded on its own,
// and each chunk caches its length in UTF-16 and UTF-32 units so that a
// conversion deep into a megabyte-long line skips whole chunks.
//
// Why chunks, measured on a 2-core Xeon with one-character insertions into
// the 10,000-line, 560 kB document of BenchmarkApplyChangesSingleChar: the
// previous single []byte cost 8.3 µs per edit at random positions and 7.6 µs
// typing at one place (a memmove of half the document plus shifting half
// the line starts); chunks cost 0.6 µs and 0.25 µs. A gap buffer was
// measured first and rejected: it makes local typing O(1), but a jump to a
// random position still moves a third of the text on average (5.8 µs vs
// 6.3 µs for the plain splice), and random jumps are what multi-cursor
// edits, formatters and the agent's own edits look like. Chunk targets of
// 1, 2, 4, 8 and 16 kB gave 0.71, 0.63, 0.56, 0.57, 0.64 µs random and
// 0.34, 0.27, 0.25, 0.31, 0.46 µs typing (BenchmarkBufferChunkSize): small
// chunks lengthen the prefix arrays, large ones the in-chunk memmove. On a
// 10 MB document a random edit costs 1.3 µs (0.93 ms before), typing at the
// end of a 1 MB line 2.5 µs (6.3 ms before).
//
// String materialises the text (one copy, cached until the next edit), so
// callers that only need the text now and then (an agent reading the file)
// should ask for it lazily rather than after every change.
//
// The zero Buffer is an empty document ready to use. A Buffer is not safe
// for concurrent use (even String updates a cache); its owner serialises
// access. After String, the text is held twice (chunks and string) until
// the next edit.
type Buffer struct {
	chunks []chunk
	// off[i] is the byte offset where chunks[i] starts and lines[i] the
	// number of line starts (besides offset 0) in the chunks before it.
	// Both have len(chunks)+1 entries, the last holding the totals; both
	// are empty in the zero Buffer.
	off, lines []int
	target     int     // chunk size aimed at; 0 means defaultChunk (tests use tiny ones)
	scratch    []int32 // line starts found by the last in-chunk rescan
	str        string
	strOK      bool // str is the current text
}

// NewBuffer returns a Buffer holding a copy of text.
func NewBuffer(text string) *Buffer {
	b := &Buffer{}
	b.reset(text)
	return b
}

// reset replaces the whole content. text itself is not kept as the
// String cache: it is usually a freshly decoded didOpen string that
// aliases the whole JSON frame it came from, and keeping it held the
// document three times over for as long as it was open (chunks, string,
// frame: 177 MB for 1,000 open 50 KB documents; 61 MB without it).
func (b *Buffer) reset(text string) {
	clear(b.chunks)
	b.chunks = b.chunks[:0]
	b.rebuild(0, 0, text)
	b.recount(0)
	b.str, b.strOK = "", false
}

// String returns the current text. The first call after an edit copies the
// chunks into one string; later calls return the cached string.
func (b *Buffer) String() string {
	if !b.strOK {
		var sb strings.Builder
		sb.Grow(b.Len())
		for _, c := range b.chunks {
			sb.Write(c.data)
		}
		b.str, b.strOK = sb.String(), true
	}
	return b.str
}

// Len returns the length of the text in bytes.
func (b *Buffer) Len() int {
	if len(b.off) == 0 {
		return 0
	}
	return b.off[len(b.chunks)]
}

// LineCount returns the number of lines, as Index.LineCount.
func (b *Buffer) LineCount() int {
	if len(b.lines) == 0 {
		return 1
	}
	return b.lines[len(b.chunks)] + 1
}

// Offset converts p to a byte offset, clamping as Index.Offset does.
func (b *Buffer) Offset(p Position, enc Encoding) int {
	if uint64(p.Line) >= uint64(b.LineCount()) {
		return b.Len()
	}
	start, end := b.lineBounds(int(p.Line))
	return start + b.unitsToByte(start, end, clampInt(p.Character), enc)
}

// Position converts a byte offset to a position, as Index.Position does.
func (b *Buffer) Position(off int, enc Encoding) Position {
	off = max(0, min(off, b.Len()))
	line := b.lineOf(off)
	start, end := b.lineBounds(line)
	off = min(b.snapRuneStart(start, off), end)
	return Position{Line: uint32(line), Character: clampUint32(b.charCount(start, off, enc))}
}

// Index returns an immutable Index of the current text, for conversions
// that must stay valid after the Buffer changes again.
func (b *Buffer) Index() *Index {
	return &Index{text: b.String(), starts: b.lineStarts()}
}

// lineStarts returns the absolute start offset of every line.
func (b *Buffer) lineStarts() []int {
	starts := make([]int, 1, b.LineCount())
	for i, c := range b.chunks {
		for _, s := range c.starts {
			starts = append(starts, b.off[i]+int(s))
		}
	}
	return starts
}

// Apply applies the changes of one didChange with the semantics of
// ApplyChanges. It is all or nothing: if any change text is not valid
// UTF-8, it returns an error and the buffer is unchanged.
func (b *Buffer) Apply(changes []Change, enc Encoding) error {
	for i, c := range changes {
		if !utf8.ValidString(c.Text) {
			return fmt.Errorf("apply change %d of %d: new text is not valid UTF-8", i+1, len(changes))
		}
	}
	for _, c := range changes {
		if c.Range == nil {
			b.reset(c.Text)
			continue
		}
		start := b.Offset(c.Range.Start, enc)
		end := start // an insertion, the commonest change: convert once
		if c.Range.End != c.Range.Start {
			end = b.Offset(c.Range.End, enc)
		}
		if start > end {
			start, end = end, start
		}
		b.replace(start, end, c.Text)
	}
	return nil
}
