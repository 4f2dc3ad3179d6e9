package text

import (
	"fmt"
	"slices"
	"testing"
	"unsafe"
)

// This file holds the test helpers that look inside a Buffer: the chunk
// invariant check, conversion checks against a fresh Index, and buffers
// with tiny chunks so that a few dozen bytes already span many boundaries.

// newChunkedBuffer is NewBuffer with chunks of about target bytes (at least
// minChunk).
func newChunkedBuffer(text string, target int) *Buffer {
	b := &Buffer{target: target}
	b.reset(text)
	return b
}

// checkChunks verifies the invariants listed in buffer_chunks.go.
func (b *Buffer) checkChunks() error {
	n := len(b.chunks)
	if len(b.off) == 0 && n == 0 {
		return nil // the zero Buffer
	}
	if len(b.off) != n+1 || len(b.lines) != n+1 || b.off[0] != 0 || b.lines[0] != 0 {
		return fmt.Errorf("prefix arrays of %d and %d entries for %d chunks", len(b.off), len(b.lines), n)
	}
	_, minSize, maxSize := b.sizes()
	var text []byte
	for i, c := range b.chunks {
		if len(c.data) == 0 {
			return fmt.Errorf("chunk %d of %d is empty", i, n)
		}
		if n > 1 && (len(c.data) < minSize || len(c.data) > maxSize) {
			return fmt.Errorf("chunk %d of %d holds %d bytes, outside [%d, %d]", i, n, len(c.data), minSize, maxSize)
		}
		var fresh []int32
		forEachLineStart(string(c.data), func(off int) { fresh = append(fresh, int32(off)) })
		if !slices.Equal(c.starts, fresh) {
			return fmt.Errorf("chunk %d %q: starts %v, scan %v", i, c.data, c.starts, fresh)
		}
		if u16, u32 := countUnits(string(c.data)); c.u16 >= 0 && (int(c.u16) != u16 || int(c.u32) != u32) {
			return fmt.Errorf("chunk %d %q: cached units (%d, %d), counted (%d, %d)", i, c.data, c.u16, c.u32, u16, u32)
		}
		if b.off[i+1] != b.off[i]+len(c.data) || b.lines[i+1] != b.lines[i]+len(c.starts) {
			return fmt.Errorf("chunk %d: prefix sums (%d, %d) → (%d, %d) for %d bytes, %d starts",
				i, b.off[i], b.lines[i], b.off[i+1], b.lines[i+1], len(c.data), len(c.starts))
		}
		text = append(text, c.data...)
	}
	s := unsafe.String(unsafe.SliceData(text), len(text))
	for i := 1; i < n; i++ {
		if at := b.off[i]; !safeBoundary(s, at) {
			return fmt.Errorf("unsafe boundary at %d between %q and %q", at, b.chunks[i-1].data, b.chunks[i].data)
		}
	}
	return nil
}

// footprint is the memory the buffer holds on to, in bytes: chunk
// capacities and the index arrays.
func (b *Buffer) footprint() int {
	n := 8*(cap(b.off)+cap(b.lines)+cap(b.scratch)/2) + int(unsafe.Sizeof(chunk{}))*cap(b.chunks)
	for _, c := range b.chunks {
		n += cap(c.data) + 4*cap(c.starts)
	}
	return n
}

// checkBufferConversions compares Offset and Position of buf, which holds
// want, with those of a fresh Index, in every encoding: on every line (or
// a sample of them on long texts) for a set of characters, and on every
// offset (or a sample, always including the bytes around chunk
// boundaries).
func checkBufferConversions(t *testing.T, buf *Buffer, want string, context string) {
	t.Helper()
	ix := NewIndex(want)
	if buf.LineCount() != ix.LineCount() || buf.Len() != len(want) {
		t.Fatalf("%s: %d lines %d bytes, fresh index %d lines %d bytes", context, buf.LineCount(), buf.Len(), ix.LineCount(), len(want))
	}
	lineStep := max(1, ix.LineCount()/200)
	offs := []int{-1, len(want) + 1}
	if len(want) <= 600 {
		for off := 0; off <= len(want); off++ {
			offs = append(offs, off)
		}
	} else {
		for off := 0; off <= len(want); off += len(want)/300 + 1 {
			offs = append(offs, off)
		}
		for _, at := range buf.off {
			for d := -4; d <= 4; d++ {
				offs = append(offs, at+d)
			}
		}
	}
	for _, enc := range allEncodings {
		for line := 0; line <= ix.LineCount()+1; line += lineStep {
			for _, char := range []uint32{0, 1, 2, 3, 5, 8, 13, 40, 100, 1 << 31} {
				p := Position{Line: uint32(line), Character: char}
				if got, want := buf.Offset(p, enc), ix.Offset(p, enc); got != want {
					t.Fatalf("%s: %v Offset(%v) = %d, fresh index %d", context, enc, p, got, want)
				}
			}
		}
		for _, off := range offs {
			if got, want := buf.Position(off, enc), ix.Position(off, enc); got != want {
				t.Fatalf("%s: %v Position(%d) = %v, fresh index %v", context, enc, off, got, want)
			}
		}
	}
}
