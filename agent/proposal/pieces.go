package proposal

import (
	"slices"
	"sort"
	"strings"
)

// pieces is the store's copy of a document's current text, kept as a list
// of strings whose concatenation is the text, so that a keystroke costs a
// splice of the list instead of a copy of the document.
//
// The rebase reads only a few bytes around each hunk (alignment, the region
// an edit touched), and the full text is needed only when someone lists
// proposals or accepts; so an edit splits the piece it lands in (the parts
// are substrings: no bytes move) and String joins the pieces once, when
// asked, and keeps the result as the only piece. Each edit adds at most two
// pieces; small neighbours are merged (typing at one place grows one piece)
// and the owner joins the list when it grows past maxPieces (long), so an
// edit costs O(pieces) ≤ maxPieces header moves plus, every few hundred
// edits, one copy of the text.
//
// Why: with the text as one string, every keystroke copied the document
// (twice, with the hook's own copy): 415 µs and 1.1 MB allocated per edit on
// the 10,000-line, 560 kB document of BenchmarkDidChangeWithProposal. A
// text.Buffer alone would do for positions but cannot hand out a few bytes
// without materialising the whole text; pieces can, and share their bytes
// with the Buffer's initial string.
type pieces struct {
	ps   []string
	ends []int // ends[i] is the offset just past ps[i]
}

const (
	// maxPieces bounds the list: past it the owner joins the pieces. 512 keeps
	// a splice under a microsecond and the join (one memmove of the text)
	// rare enough to vanish in the average.
	maxPieces = 512
	// mergeLimit is the size up to which an inserted string is merged with
	// a neighbouring piece (copying both) instead of becoming a piece.
	mergeLimit = 128
)

// set replaces the whole text.
func (p *pieces) set(s string) {
	clear(p.ps)
	p.ps, p.ends = p.ps[:0], p.ends[:0]
	if s != "" {
		p.ps, p.ends = append(p.ps, s), append(p.ends, len(s))
	}
}

// Len returns the length of the text in bytes.
func (p *pieces) Len() int {
	if len(p.ends) == 0 {
		return 0
	}
	return p.ends[len(p.ends)-1]
}

// begin is the offset where piece i starts.
func (p *pieces) begin(i int) int {
	if i == 0 {
		return 0
	}
	return p.ends[i-1]
}

// find returns the index of the piece holding byte off, or len(p.ps) when
// off is the end of the text.
func (p *pieces) find(off int) int {
	return sort.SearchInts(p.ends, off+1)
}

// At returns the byte at off (0 <= off < Len()).
func (p *pieces) At(off int) byte {
	i := p.find(off)
	return p.ps[i][off-p.begin(i)]
}

// Slice returns text[start:end]; it copies only when the span crosses
// pieces.
func (p *pieces) Slice(start, end int) string {
	if start >= end {
		return ""
	}
	i := p.find(start)
	if end <= p.ends[i] {
		b := p.begin(i)
		return p.ps[i][start-b : end-b]
	}
	var sb strings.Builder
	sb.Grow(end - start)
	for ; start < end; i++ {
		b := p.begin(i)
		sb.WriteString(p.ps[i][start-b : min(end, p.ends[i])-b])
		start = p.ends[i]
	}
	return sb.String()
}

// HasAt reports whether s occurs at off: text[off:off+len(s)] == s.
func (p *pieces) HasAt(off int, s string) bool {
	if off < 0 || off+len(s) > p.Len() {
		return false
	}
	for i := p.find(off); s != ""; i++ {
		b := p.begin(i)
		n := min(len(s), p.ends[i]-off)
		if p.ps[i][off-b:off-b+n] != s[:n] {
			return false
		}
		s, off = s[n:], off+n
	}
	return true
}

// String returns the text, joining the pieces into one (kept as the only
// piece, so a second call does not copy).
func (p *pieces) String() string {
	switch len(p.ps) {
	case 0:
		return ""
	case 1:
		return p.ps[0]
	}
	s := strings.Join(p.ps, "")
	p.set(s)
	return s
}

// long reports whether the list has grown past maxPieces: time to join.
func (p *pieces) long() bool { return len(p.ps) > maxPieces }

// replace puts ins in place of text[start:end] (0 <= start <= end <= Len).
// It never joins the list; see long.
func (p *pieces) replace(start, end int, ins string) {
	a, z := p.find(start), p.find(end)
	var left, right string
	if a < len(p.ps) {
		left = p.ps[a][:start-p.begin(a)]
	}
	if z < len(p.ps) {
		right = p.ps[z][end-p.begin(z):]
	} else {
		z = len(p.ps) - 1 // end of text: nothing to keep on the right
	}
	// Merge small neighbours so that typing at one place grows one piece.
	if a > 0 && left == "" && len(p.ps[a-1])+len(ins) <= mergeLimit {
		a--
		left = p.ps[a]
	}
	if len(left)+len(ins) <= mergeLimit {
		left, ins = left+ins, ""
	}
	if len(left)+len(ins)+len(right) <= mergeLimit {
		left, ins, right = left+ins+right, "", ""
	}
	mid := make([]string, 0, 3)
	for _, s := range []string{left, ins, right} {
		if s != "" {
			mid = append(mid, s)
		}
	}
	p.ps = slices.Replace(p.ps, a, max(a, z+1), mid...)
	p.ends = slices.Grow(p.ends[:min(a, len(p.ends))], len(p.ps)-a)[:len(p.ps)]
	off := p.begin(a)
	for i := a; i < len(p.ps); i++ {
		off += len(p.ps[i])
		p.ends[i] = off
	}
}
