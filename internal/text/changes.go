package text

import (
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"
	"unsafe"
)

// ApplyChanges applies the content changes of one textDocument/didChange to
// text and returns the new text. Changes apply in order, each against the
// text the previous one left, as LSP specifies; a change with a nil Range
// replaces the whole text.
//
// Ranges are lenient in the way editors' own implementations are
// (vscode-languageserver-textdocument): positions clamp as Index.Offset
// does (past the end of a line → end of line, past the last line → end of
// text, inside a rune → its start) and an inverted range is reordered. A
// change text that is not valid UTF-8 is refused with an error naming the
// change, and text is returned unchanged, so a buffer never becomes
// invalid UTF-8 through us.
//
// No line index is built: a change costs one vectorised newline count up to
// its start line plus a memmove, and the text is copied once per call (a
// single change) or twice (several). A server applying every keystroke of a
// large file should keep a Buffer instead, which never copies the text.
func ApplyChanges(text string, changes []Change, enc Encoding) (string, error) {
	for i, c := range changes {
		if !utf8.ValidString(c.Text) {
			return text, fmt.Errorf("apply change %d of %d: new text is not valid UTF-8", i+1, len(changes))
		}
	}
	if len(changes) == 1 && changes[0].Range != nil {
		start, end := rangeOffsetsOf(text, *changes[0].Range, enc)
		return splice(text, start, end, changes[0].Text), nil
	}
	// Several changes (multi-cursor edits, a formatter's batch): edit one
	// byte slice in place and copy it out once, instead of one new string
	// per change.
	work := []byte(text)
	for _, c := range changes {
		if c.Range == nil {
			work = append(work[:0], c.Text...)
			continue
		}
		view := unsafe.String(unsafe.SliceData(work), len(work))
		start, end := rangeOffsetsOf(view, *c.Range, enc)
		work = spliceBytes(work, start, end, c.Text)
	}
	return string(work), nil
}

// spliceBytes replaces b[start:end] with insert in place, growing b if
// needed, and returns the result.
func spliceBytes(b []byte, start, end int, insert string) []byte {
	old := len(b)
	delta := len(insert) - (end - start)
	if delta > 0 {
		b = slices.Grow(b, delta)[:old+delta]
	}
	copy(b[start+len(insert):], b[end:old])
	copy(b[start:], insert)
	return b[:old+delta]
}

// splice returns text with text[start:end] replaced by insert, in a single
// allocation.
func splice(text string, start, end int, insert string) string {
	if start == end && insert == "" {
		return text
	}
	var b strings.Builder
	b.Grow(len(text) - (end - start) + len(insert))
	b.WriteString(text[:start])
	b.WriteString(insert)
	b.WriteString(text[end:])
	return b.String()
}
