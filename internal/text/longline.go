package text

import (
	"sort"
	"unicode/utf8"
)

// Converting a position on a line costs a scan from the start of the line,
// which is nothing for source code and a lot for a minified bundle whose one
// line is megabytes long. For lines longer than longLine, NewIndex records a
// checkpoint every checkpointGap bytes holding the UTF-16 and UTF-32 counts
// from the start of the line, so a conversion scans at most checkpointGap
// bytes after a binary search.
const (
	longLine      = 8 << 10
	checkpointGap = 1 << 10
)

// checkpoint is a rune boundary inside a long line and the number of units
// in each encoding between the line start and it.
type checkpoint struct {
	off      int // byte offset in the text
	u16, u32 int
}

// buildCheckpoints returns the checkpoints of the line content
// text[start:end], the first at start itself.
func buildCheckpoints(text string, start, end int) []checkpoint {
	cps := make([]checkpoint, 0, (end-start)/checkpointGap+1)
	cp := checkpoint{off: start}
	for {
		cps = append(cps, cp)
		next := cp.off + checkpointGap
		if next >= end {
			return cps
		}
		next = snapRuneStart(text, start, next)
		u16, u32 := countUnits(text[cp.off:next])
		cp = checkpoint{off: next, u16: cp.u16 + u16, u32: cp.u32 + u32}
	}
}

// countUnits returns the UTF-16 and UTF-32 lengths of s in one pass.
func countUnits(s string) (u16, u32 int) {
	i := 0
	for i < len(s) {
		if i+8 <= len(s) && load64(s, i)&asciiMask == 0 {
			u16 += 8
			u32 += 8
			i += 8
			continue
		}
		if s[i] < utf8.RuneSelf {
			u16++
			u32++
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		u16 += runeUnits16(r)
		u32++
		i += size
	}
	return u16, u32
}

// units returns the count of cp in enc.
func (cp checkpoint) units(start int, enc Encoding) int {
	switch enc {
	case UTF8:
		return cp.off - start
	case UTF32:
		return cp.u32
	}
	return cp.u16
}

// longOffset is Offset on a line with checkpoints: the last checkpoint at or
// before char, then a scan of at most checkpointGap bytes.
func longOffset(text string, cps []checkpoint, end, char int, enc Encoding) int {
	start := cps[0].off
	i := sort.Search(len(cps), func(i int) bool { return cps[i].units(start, enc) > char }) - 1
	cp := cps[i]
	return cp.off + unitsToByte(text[cp.off:end], char-cp.units(start, enc), enc)
}

// longUnits is CharCount(text[start:off], enc) on a line with checkpoints;
// off must be a rune boundary.
func longUnits(text string, cps []checkpoint, off int, enc Encoding) int {
	start := cps[0].off
	i := sort.Search(len(cps), func(i int) bool { return cps[i].off > off }) - 1
	cp := cps[i]
	return cp.units(start, enc) + CharCount(text[cp.off:off], enc)
}
