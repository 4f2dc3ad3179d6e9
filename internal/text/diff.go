package text

import (
	"strings"
	"unicode/utf8"

	"github.com/aymanbagabas/go-udiff"
	"github.com/aymanbagabas/go-udiff/lcs"
)

// Bounds of the character-level refinement in Diff. Larger blocks keep
// their line-level edit: a char diff of two unrelated 1 MB blocks is slow
// and no easier to review.
const refineMaxBytes = 64 << 10

// Diff returns a minimal list of edits turning before into after, as LSP
// TextEdits: ranges refer to before, in enc, sorted and non-overlapping, so
// they can go into one TextDocumentEdit. It never splits a CRLF or a rune,
// and never panics (invalid UTF-8 only loses the character refinement).
//
// It diffs lines first (go-udiff's lcs package), then refines each
// changed block to characters when that makes the edits much smaller, so a
// one-character fix is one one-character edit rather than a replaced line.
// The common prefix and suffix are skipped up front at memcmp speed, so a
// small change in a multi-megabyte file costs little more than the
// comparison and the line index.
func Diff(before, after string, enc Encoding) []Edit {
	if before == after {
		return nil
	}
	p, s := commonLines(before, after)
	mb, ma := before[p:len(before)-s], after[p:len(after)-s]
	var raw []byteEdit
	for _, le := range lineDiff(mb, ma) {
		for _, r := range refine(mb[le.start:le.end], le.text) {
			raw = append(raw, byteEdit{start: p + le.start + r.start, end: p + le.start + r.end, text: r.text})
		}
	}
	edits := keepCRLF(before, raw)
	ix := NewIndex(before)
	out := make([]Edit, len(edits))
	for i, e := range edits {
		out[i] = Edit{Range: ix.Range(e.start, e.end, enc), NewText: e.text}
	}
	return out
}

// byteEdit replaces before[start:end] with text.
type byteEdit struct {
	start, end int
	text       string
}

// commonLines returns the lengths of the common prefix and suffix of a and
// b, cut back to line boundaries of a (and never overlapping).
func commonLines(a, b string) (prefix, suffix int) {
	const block = 4 << 10 // compare blocks with memeq first, then bytes
	n := min(len(a), len(b))
	for prefix+block <= n && a[prefix:prefix+block] == b[prefix:prefix+block] {
		prefix += block
	}
	for prefix < n && a[prefix] == b[prefix] {
		prefix++
	}
	prefix = strings.LastIndexByte(a[:prefix], '\n') + 1
	m := min(len(a), len(b)) - prefix
	for suffix+block <= m && a[len(a)-suffix-block:len(a)-suffix] == b[len(b)-suffix-block:len(b)-suffix] {
		suffix += block
	}
	for suffix < m && a[len(a)-1-suffix] == b[len(b)-1-suffix] {
		suffix++
	}
	// Move the suffix start forward to the next line start, so the middle
	// ends with a whole line. The skipped bytes are common to both.
	if pos := len(a) - suffix; pos > prefix && a[pos-1] != '\n' {
		if j := strings.IndexByte(a[pos:], '\n'); j >= 0 {
			suffix -= j + 1
		} else {
			suffix = 0
		}
	}
	return prefix, suffix
}

// lineDiff is udiff.Lines with a faster split (memchr instead of decoding
// runes) and replacement texts sliced from b instead of joined.
func lineDiff(a, b string) []byteEdit {
	al, ao := splitLines(a)
	bl, bo := splitLines(b)
	diffs := lcs.DiffLines(al, bl)
	out := make([]byteEdit, len(diffs))
	for i, d := range diffs {
		out[i] = byteEdit{start: ao[d.Start], end: ao[d.End], text: b[bo[d.ReplStart]:bo[d.ReplEnd]]}
	}
	return out
}

// splitLines splits s after each "\n" and returns the lines and their start
// offsets, plus len(s) as a final offset.
func splitLines(s string) ([]string, []int) {
	n := strings.Count(s, "\n") + 1
	lines := make([]string, 0, n)
	offs := make([]int, 1, n+1)
	for start := 0; start < len(s); {
		end := len(s)
		if i := strings.IndexByte(s[start:], '\n'); i >= 0 {
			end = start + i + 1
		}
		lines = append(lines, s[start:end])
		offs = append(offs, end)
		start = end
	}
	return lines, offs
}

// refine turns one line-level replacement into character-level edits
// (offsets relative to old) when they change at most half as many bytes.
func refine(old, new string) []byteEdit {
	coarse := []byteEdit{{start: 0, end: len(old), text: new}}
	if len(old) > refineMaxBytes || len(new) > refineMaxBytes || old == "" || new == "" ||
		!utf8.ValidString(old) || !utf8.ValidString(new) {
		// udiff.Strings counts offsets in decoded runes: invalid UTF-8
		// would shift them.
		return coarse
	}
	fine := udiff.Strings(old, new)
	cost := 0
	for _, e := range fine {
		cost += e.End - e.Start + len(e.New)
	}
	if len(fine) != 1 && cost*2 > len(old)+len(new) {
		return coarse
	}
	out := make([]byteEdit, len(fine))
	for i, e := range fine {
		out[i] = byteEdit{start: e.Start, end: e.End, text: e.New}
	}
	return out
}

// keepCRLF widens every edit boundary that falls between the "\r" and "\n"
// of a CRLF in before (a position LSP cannot express) by that one byte, and
// merges edits that then touch or overlap. A merged edit's text is rebuilt
// from the original edits and the unchanged bytes between them, so the
// result of applying the edits is exactly the same.
func keepCRLF(before string, edits []byteEdit) []byteEdit {
	split := func(i int) bool { return i > 0 && i < len(before) && before[i-1] == '\r' && before[i] == '\n' }
	var out []byteEdit
	var group []byteEdit // original edits of the edit being built
	var gs, ge int       // its widened span
	flush := func() {
		if len(group) == 0 {
			return
		}
		var b strings.Builder
		b.WriteString(before[gs:group[0].start])
		for i, e := range group {
			if i > 0 {
				b.WriteString(before[group[i-1].end:e.start])
			}
			b.WriteString(e.text)
		}
		b.WriteString(before[group[len(group)-1].end:ge])
		out = append(out, byteEdit{start: gs, end: ge, text: b.String()})
		group = group[:0]
	}
	for _, e := range edits {
		s, t := e.start, e.end
		if split(s) {
			s--
		}
		if split(t) {
			t++
		}
		if len(group) > 0 && s <= ge {
			group = append(group, e)
			ge = max(ge, t)
			continue
		}
		flush()
		group = append(group, e)
		gs, ge = s, t
	}
	flush()
	return out
}
