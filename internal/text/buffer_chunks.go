package text

import (
	"slices"
	"strings"
	"unicode/utf8"
	"unsafe"
)

// This file holds the chunk representation of a Buffer and the edit that
// keeps it consistent.
//
// Invariants, checked by the tests after every edit (checkChunks):
//   - chunks are non-empty; when there are several, each holds between
//     target/4 and 2*target bytes;
//   - no boundary between two chunks falls inside a rune (as
//     utf8.DecodeRune sees runes, invalid bytes being runes of their own) or
//     between the "\r" and "\n" of a CRLF;
//   - a chunk's starts are exactly the line starts its bytes give when
//     scanned on their own, which the previous invariant makes equal to
//     those of the whole text;
//   - off and lines are the prefix sums of the chunk lengths and start
//     counts.

// defaultChunk is the chunk size a Buffer aims at; see Buffer for the
// measurements behind it. minChunk is the smallest target allowed (tests
// use it to put boundaries everywhere): its chunks hold at least
// minChunk/4 = 4 bytes, and since a boundary's safety depends on the 3
// bytes either side of it, checking a boundary never needs a third chunk.
const (
	defaultChunk = 4 << 10
	minChunk     = 16
)

// chunkSlack is the spare capacity a new chunk gets, so that the first
// keystrokes typed into it do not reallocate.
const chunkSlack = 64

// chunk is a piece of the text and the line starts inside it.
type chunk struct {
	data []byte
	// starts holds, relative to the chunk, the start of every line whose
	// preceding terminator ends in this chunk: values in (0, len(data)].
	starts []int32
	// u16 and u32 are the length of data in UTF-16 and UTF-32 units, or -1
	// until first needed: on a long line, conversions skip whole chunks.
	u16, u32 int32
}

// units returns the length of chunk i in enc, counting it on first use
// after a change.
func (b *Buffer) units(i int, enc Encoding) int {
	c := &b.chunks[i]
	if enc == UTF8 {
		return len(c.data)
	}
	if c.u16 < 0 {
		u16, u32 := countUnits(unsafe.String(unsafe.SliceData(c.data), len(c.data)))
		c.u16, c.u32 = int32(u16), int32(u32)
	}
	if enc == UTF32 {
		return int(c.u32)
	}
	return int(c.u16)
}

// newChunk returns a chunk holding its own copy of p.
func newChunk(p string) chunk {
	data := make([]byte, len(p), len(p)+chunkSlack)
	copy(data, p)
	c := chunk{data: data, starts: make([]int32, 0, strings.Count(p, "\n")+1), u16: -1, u32: -1}
	forEachLineStart(p, func(off int) { c.starts = append(c.starts, int32(off)) })
	return c
}

// sizes returns the chunk size aimed at and the bounds chunks keep to.
func (b *Buffer) sizes() (target, lo, hi int) {
	target = b.target
	if target == 0 {
		target = defaultChunk
	}
	target = max(target, minChunk)
	return target, target / 4, 2 * target
}

// replace puts insert in place of text[start:end] (rune boundaries, never
// inside a CRLF, as Offset guarantees) and repairs chunks and line starts.
func (b *Buffer) replace(start, end int, insert string) {
	if start == end && insert == "" {
		return
	}
	b.strOK = false
	if len(b.chunks) == 0 {
		b.rebuild(0, 0, insert)
		b.recount(0)
		return
	}
	_, _, maxSize := b.sizes()
	a, z := b.chunkSpan(start, end)
	ca, cz := b.chunks[a].data, b.chunks[z].data
	ls, le := start-b.off[a], end-b.off[z]
	if newLen := len(ca) + len(insert) - (le - ls); a == z && newLen > 0 && newLen <= maxSize {
		// The common case, a keystroke: edit the chunk in place.
		starts := len(b.chunks[a].starts)
		b.editChunk(&b.chunks[a], ls, le, insert)
		if lo, rebuilt := b.settle(a, a+1); rebuilt {
			b.recount(lo)
		} else {
			b.shift(a+1, newLen-len(ca), len(b.chunks[a].starts)-starts)
		}
	} else {
		var sb strings.Builder
		sb.Grow(ls + len(insert) + len(cz) - le)
		sb.Write(ca[:ls])
		sb.WriteString(insert)
		sb.Write(cz[le:])
		lo, _ := b.settle(a, b.rebuild(a, z+1, sb.String()))
		b.recount(lo)
	}
	if cap(b.scratch) > 4<<10 {
		b.scratch = nil // after a paste of many lines: do not keep the space
	}
}

// chunkSpan returns the first and last chunk an edit of text[start:end]
// touches. An insertion at a chunk boundary goes to the end of the chunk
// before it, so typing at a boundary stays in one chunk.
func (b *Buffer) chunkSpan(start, end int) (a, z int) {
	z, _ = slices.BinarySearch(b.off[1:], end) // first chunk ending at or after end
	z = min(z, len(b.chunks)-1)
	if start == end {
		return z, z
	}
	return b.chunkOf(start), z
}

// editChunk replaces c.data[ls:le] with insert and updates c.starts by
// rescanning only the lines the edit touches; the starts after it shift.
func (b *Buffer) editChunk(c *chunk, ls, le int, insert string) {
	s := c.starts
	i, _ := slices.BinarySearch(s, int32(ls+1)) // s[:i] <= ls
	j, _ := slices.BinarySearch(s, int32(le+1)) // s[j:] > le
	delta := len(insert) - (le - ls)
	c.data = spliceBytes(c.data, ls, le, insert)
	c.u16, c.u32 = -1, -1

	// Starts before ls stay. So does one at ls, unless it follows a lone
	// "\r" that the insertion may turn into a CRLF. Starts after le only
	// shift: the terminator in front of each lies wholly after the edit.
	keep, scanFrom := i, ls
	if ls > 0 && c.data[ls-1] == '\r' && i > 0 && int(s[i-1]) == ls {
		keep, scanFrom = i-1, ls-1
	}
	regionEnd := len(c.data)
	if j < len(s) {
		regionEnd = int(s[j]) + delta
	}
	region := unsafe.String(unsafe.SliceData(c.data[scanFrom:]), regionEnd-scanFrom)
	b.scratch = b.scratch[:0]
	forEachLineStart(region, func(off int) {
		if off < len(region) || j == len(s) {
			b.scratch = append(b.scratch, int32(scanFrom+off))
		}
	})

	// s = s[:keep] + scratch + (s[j:] shifted by delta).
	n := keep + len(b.scratch) + len(s) - j
	tail := len(s) - j
	if n > len(s) {
		s = slices.Grow(s, n-len(s))
	}
	s = s[:max(n, len(s))]
	copy(s[keep+len(b.scratch):], s[j:j+tail])
	copy(s[keep:], b.scratch)
	s = s[:n]
	if delta != 0 {
		d := int32(delta)
		for k := keep + len(b.scratch); k < n; k++ {
			s[k] += d
		}
	}
	c.starts = s
}

// rebuild replaces chunks[lo:hi] with new chunks holding content, cut at
// safe boundaries, and returns the index after the last new chunk.
func (b *Buffer) rebuild(lo, hi int, content string) int {
	target, _, maxSize := b.sizes()
	fresh := make([]chunk, 0, len(content)/target+1)
	for len(content) > maxSize {
		cut := cutNear(content, target)
		fresh = append(fresh, newChunk(content[:cut]))
		content = content[cut:]
	}
	if len(content) > 0 {
		fresh = append(fresh, newChunk(content))
	}
	b.chunks = slices.Replace(b.chunks, lo, hi, fresh...)
	return lo + len(fresh)
}

// cutNear returns where to end a chunk of about target bytes at the start
// of s (len(s) > 2*target): just after a "\n" in the second half of the
// target if there is one, so lines rarely straddle chunks, else at the
// last safe boundary at or before target.
func cutNear(s string, target int) int {
	if i := strings.LastIndexByte(s[target/2:target], '\n'); i >= 0 {
		return target/2 + i + 1
	}
	cut := target
	for !safeBoundary(s, cut) {
		cut--
	}
	return cut
}

// safeBoundary reports whether s may be cut at i (0 < i < len(s)): not
// inside a rune, not between "\r" and "\n".
func safeBoundary(s string, i int) bool {
	if s[i-1] == '\r' && s[i] == '\n' {
		return false
	}
	return snapRuneStart(s, 0, i) == i
}

// safeJoin reports whether the boundary between chunks left and right is
// safe, looking at the 3 bytes on either side (all that decides it).
func safeJoin(left, right []byte) bool {
	var w [2 * (utf8.UTFMax - 1)]byte
	l := copy(w[:], left[max(0, len(left)-(utf8.UTFMax-1)):])
	r := copy(w[l:], right)
	return safeBoundary(string(w[:l+r]), l)
}

// settle restores the invariants after chunks[lo:hi] changed: while a
// boundary at either end of that span is unsafe or has a chunk below the
// minimum size beside it, the neighbour joins the span and the span is
// rebuilt. It returns the first chunk that changed, and whether settle
// rebuilt any.
func (b *Buffer) settle(lo, hi int) (first int, rebuilt bool) {
	_, minSize, _ := b.sizes()
	// needsJoin reports whether the boundary before chunk k must go.
	needsJoin := func(k int) bool {
		l, r := b.chunks[k-1].data, b.chunks[k].data
		return len(l) < minSize || len(r) < minSize || !safeJoin(l, r)
	}
	for {
		l, h := lo, hi
		if lo > 0 && lo < len(b.chunks) && needsJoin(lo) {
			l = lo - 1
		}
		if hi > 0 && hi < len(b.chunks) && needsJoin(hi) {
			h = hi + 1
		}
		if l == lo && h == hi {
			return lo, rebuilt
		}
		rebuilt = true
		var sb strings.Builder
		for _, c := range b.chunks[l:h] {
			sb.Write(c.data)
		}
		lo, hi = l, b.rebuild(l, h, sb.String())
	}
}

// shift adds the changes in bytes and line count of one chunk to the
// prefix sums of the chunks after it, from index from on.
func (b *Buffer) shift(from, bytes, lines int) {
	if bytes != 0 {
		for i := from; i < len(b.off); i++ {
			b.off[i] += bytes
		}
	}
	if lines != 0 {
		for i := from; i < len(b.lines); i++ {
			b.lines[i] += lines
		}
	}
}

// recount recomputes off and lines from chunk lo on, and gives back the
// memory of arrays left oversized by a large deletion.
func (b *Buffer) recount(lo int) {
	n := len(b.chunks)
	if len(b.off) == 0 {
		b.off, b.lines = []int{0}, []int{0}
	}
	b.off = slices.Grow(b.off[:lo+1], n-lo)[:n+1]
	b.lines = slices.Grow(b.lines[:lo+1], n-lo)[:n+1]
	for i := lo; i < n; i++ {
		b.off[i+1] = b.off[i] + len(b.chunks[i].data)
		b.lines[i+1] = b.lines[i] + len(b.chunks[i].starts)
	}
	if cap(b.chunks) > 4*n+64 {
		b.chunks = slices.Clip(slices.Clone(b.chunks))
		b.off = slices.Clip(slices.Clone(b.off))
		b.lines = slices.Clip(slices.Clone(b.lines))
	}
}
