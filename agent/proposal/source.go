package proposal

import (
	"strings"

	"github.com/aymanbagabas/go-udiff"
)

// source is read access to a text without requiring it as one string: the
// rebase reads the old and new document through it, so that a keystroke
// can be rebased against the store's pieces and a view of them with the
// edit applied (spliced) instead of two copies of the document.
type source interface {
	// Len is the length in bytes.
	Len() int
	// At is the byte at off, 0 <= off < Len().
	At(off int) byte
	// Slice is text[start:end], in bounds.
	Slice(start, end int) string
	// HasAt reports whether text[off:off+len(s)] == s (false when out of
	// bounds).
	HasAt(off int, s string) bool
}

// strText is a source over a plain string.
type strText string

func (t strText) Len() int                    { return len(t) }
func (t strText) At(off int) byte             { return t[off] }
func (t strText) Slice(start, end int) string { return string(t[start:end]) }
func (t strText) HasAt(off int, s string) bool {
	return off >= 0 && off+len(s) <= len(t) && string(t[off:off+len(s)]) == s
}

// equalText reports whether src is exactly s, comparing lengths first.
func equalText(src source, s string) bool {
	return src.Len() == len(s) && src.HasAt(0, s)
}

// spliced is old with one edit applied, read through old without building
// the new text: the new text of a keystroke, for its rebase.
type spliced struct {
	old source
	e   udiff.Edit
}

// delta is how much the edit grows the text.
func (t spliced) delta() int { return len(t.e.New) - (t.e.End - t.e.Start) }

func (t spliced) Len() int { return t.old.Len() + t.delta() }

func (t spliced) At(off int) byte {
	switch {
	case off < t.e.Start:
		return t.old.At(off)
	case off < t.e.Start+len(t.e.New):
		return t.e.New[off-t.e.Start]
	default:
		return t.old.At(off - t.delta())
	}
}

// parts calls fn with the pieces of text[start:end], in order: spans of old
// (in old's offsets) and parts of the inserted text; fn returns false to
// stop.
func (t spliced) parts(start, end int, fn func(fromOld bool, a, b int) bool) {
	ins, insEnd := t.e.Start, t.e.Start+len(t.e.New)
	if start < ins {
		if !fn(true, start, min(end, ins)) {
			return
		}
		start = min(end, ins)
	}
	if start < end && start < insEnd {
		if !fn(false, start-ins, min(end, insEnd)-ins) {
			return
		}
		start = min(end, insEnd)
	}
	if start < end {
		fn(true, start-t.delta(), end-t.delta())
	}
}

func (t spliced) Slice(start, end int) string {
	var out string
	n := 0
	var sb strings.Builder
	t.parts(start, end, func(fromOld bool, a, b int) bool {
		var s string
		if fromOld {
			s = t.old.Slice(a, b)
		} else {
			s = t.e.New[a:b]
		}
		if n++; n == 1 {
			out = s
			return true
		}
		if n == 2 {
			sb.Grow(end - start)
			sb.WriteString(out)
		}
		sb.WriteString(s)
		return true
	})
	if n > 1 {
		return sb.String()
	}
	return out
}

func (t spliced) HasAt(off int, s string) bool {
	if off < 0 || off+len(s) > t.Len() {
		return false
	}
	ok := true
	t.parts(off, off+len(s), func(fromOld bool, a, b int) bool {
		want := s[:b-a]
		s = s[b-a:]
		if fromOld {
			ok = t.old.HasAt(a, want)
		} else {
			ok = t.e.New[a:b] == want
		}
		return ok
	})
	return ok
}
