package text

import (
	"fmt"
	"slices"
	"unicode/utf8"
	"unsafe"
)

// Buffer is a mutable document with a line index kept up to date edit by
// edit, for the one place that applies every keystroke: an open editor
// buffer fed by textDocument/didChange. ApplyChanges has to copy the whole
// text for every change; a Buffer edits its bytes in place, finds lines by
// binary search and only rescans the lines an edit touches, so typing into
// a large file costs a memmove instead of an allocation.
//
// String materialises the text (one copy, cached until the next edit), so
// callers that only need the text now and then (an agent reading the file)
// should ask for it lazily rather than after every change.
//
// The zero Buffer is an empty document ready to use. A Buffer is not safe
// for concurrent use (even String updates a cache); its owner serialises
// access. After String, the text is held twice (bytes and string) until the
// next edit.
type Buffer struct {
	buf     []byte
	starts  []int // line starts, as in Index
	scratch []int // line starts found by the last rescan
	str     string
	strOK   bool // str == string(buf)
}

// NewBuffer returns a Buffer holding a copy of text.
func NewBuffer(text string) *Buffer {
	b := &Buffer{}
	b.reset(text)
	return b
}

// reset replaces the whole content.
func (b *Buffer) reset(text string) {
	b.buf = append(b.buf[:0], text...)
	b.shrink()
	b.starts = append(b.starts[:0], 0)
	forEachLineStart(text, func(off int) { b.starts = append(b.starts, off) })
	b.str, b.strOK = text, true
}

// shrink gives memory back after a large deletion, so a buffer that once
// held a huge paste does not keep its capacity forever.
func (b *Buffer) shrink() {
	if cap(b.buf) > 4*len(b.buf)+64<<10 {
		b.buf = slices.Clip(slices.Clone(b.buf))
	}
}

// view is an Index over the buffer's current bytes, borrowed without a
// copy. It must not be used after the next mutation, so it never leaves a
// Buffer method.
func (b *Buffer) view() Index {
	if len(b.starts) == 0 {
		b.starts = append(b.starts, 0) // the zero Buffer: empty text, one line
	}
	return Index{text: unsafe.String(unsafe.SliceData(b.buf), len(b.buf)), starts: b.starts}
}

// String returns the current text. The first call after an edit copies the
// buffer; later calls return the cached string.
func (b *Buffer) String() string {
	if !b.strOK {
		b.str, b.strOK = string(b.buf), true
	}
	return b.str
}

// Len returns the length of the text in bytes.
func (b *Buffer) Len() int { return len(b.buf) }

// LineCount returns the number of lines, as Index.LineCount.
func (b *Buffer) LineCount() int { return max(len(b.starts), 1) }

// Offset converts p to a byte offset, clamping as Index.Offset does.
func (b *Buffer) Offset(p Position, enc Encoding) int {
	ix := b.view()
	return ix.Offset(p, enc)
}

// Position converts a byte offset to a position, as Index.Position does.
func (b *Buffer) Position(off int, enc Encoding) Position {
	ix := b.view()
	return ix.Position(off, enc)
}

// Index returns an immutable Index of the current text, for conversions
// that must stay valid after the Buffer changes again.
func (b *Buffer) Index() *Index {
	return &Index{text: b.String(), starts: slices.Clone(b.starts)}
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
		ix := b.view()
		start, end := ix.RangeOffsets(*c.Range, enc)
		b.replace(start, end, c.Text)
	}
	return nil
}

// replace puts insert in place of buf[start:end] (rune boundaries, never
// inside a CRLF) and repairs the line index.
func (b *Buffer) replace(start, end int, insert string) {
	if start == end && insert == "" {
		return
	}
	first := b.lineOf(start)
	last := b.lineOf(end)

	delta := len(insert) - (end - start)
	b.buf = spliceBytes(b.buf, start, end, insert)
	b.strOK = false
	b.shrink()

	// Lines first..last are the only ones whose starts can change, plus the
	// start of line first itself when it follows a lone "\r" that the
	// insertion may turn into a CRLF. Later starts just shift by delta: the
	// terminator in front of each lies wholly after the edit.
	keep, scanFrom := first+1, b.starts[first]
	if start > 0 && b.buf[start-1] == '\r' {
		keep, scanFrom = first, start-1
	}
	suffix := b.starts[last+1:]
	regionEnd := len(b.buf)
	if len(suffix) > 0 {
		regionEnd = suffix[0] + delta
	}
	b.scratch = b.scratch[:0]
	region := unsafe.String(unsafe.SliceData(b.buf[scanFrom:]), regionEnd-scanFrom)
	forEachLineStart(region, func(off int) {
		if off < len(region) || len(suffix) == 0 {
			b.scratch = append(b.scratch, scanFrom+off)
		}
	})

	// starts = starts[:keep] + scratch + (suffix shifted by delta).
	n := keep + len(b.scratch) + len(suffix)
	tail := last + 1
	if n > len(b.starts) {
		b.starts = slices.Grow(b.starts, n-len(b.starts))
	}
	b.starts = b.starts[:max(n, len(b.starts))]
	copy(b.starts[keep+len(b.scratch):], b.starts[tail:tail+len(suffix)])
	copy(b.starts[keep:], b.scratch)
	b.starts = b.starts[:n]
	if delta != 0 {
		for i := keep + len(b.scratch); i < n; i++ {
			b.starts[i] += delta
		}
	}
	if cap(b.scratch) > 4<<10 {
		b.scratch = nil // after a paste of many lines: do not keep the space
	}
}

// lineOf is Index.LineOf on the current content.
func (b *Buffer) lineOf(off int) int {
	ix := b.view()
	return ix.LineOf(off)
}
