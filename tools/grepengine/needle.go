package grepengine

import (
	"bytes"
	"regexp/syntax"
	"strings"
	"unicode"
	"unicode/utf8"
)

// This file holds grep's prefilter: which literals a pattern's matches must
// contain (from the parsed regexp), and how to find them fast.

// hasTextAnchor reports whether re uses \A or \z.
func hasTextAnchor(re *syntax.Regexp) bool {
	if re.Op == syntax.OpBeginText || re.Op == syntax.OpEndText {
		return true
	}
	for _, sub := range re.Sub {
		if hasTextAnchor(sub) {
			return true
		}
	}
	return false
}

// isPlainLiterals reports whether re is a literal or an alternation of
// literals, case-sensitive: then every occurrence of one is a match.
func isPlainLiterals(re *syntax.Regexp) bool {
	for re.Op == syntax.OpCapture {
		re = re.Sub[0]
	}
	switch re.Op {
	case syntax.OpLiteral:
		return re.Flags&syntax.FoldCase == 0
	case syntax.OpAlternate:
		for _, sub := range re.Sub {
			if !isPlainLiterals(sub) {
				return false
			}
		}
		return true
	}
	return false
}

// requiredLiterals returns literals one of which every match of re
// contains (the most selective set it can prove), and whether any of them
// is case-folded. nil means no such set.
func requiredLiterals(re *syntax.Regexp) ([][]rune, bool) {
	switch re.Op {
	case syntax.OpLiteral:
		return [][]rune{re.Rune}, re.Flags&syntax.FoldCase != 0
	case syntax.OpCapture, syntax.OpPlus:
		return requiredLiterals(re.Sub[0])
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return requiredLiterals(re.Sub[0])
		}
	case syntax.OpAlternate:
		var all [][]rune
		fold := false
		for _, sub := range re.Sub {
			ls, f := requiredLiterals(sub)
			if ls == nil {
				return nil, false
			}
			all, fold = append(all, ls...), fold || f
		}
		return all, fold
	case syntax.OpConcat:
		var best [][]rune
		bestFold := false
		for _, sub := range re.Sub {
			ls, f := requiredLiterals(sub)
			if ls != nil && (best == nil || betterLits(ls, f, best, bestFold)) {
				best, bestFold = ls, f
			}
		}
		return best, bestFold
	}
	return nil, false
}

// betterLits prefers exact over folded, then fewer alternatives, then a
// longer shortest literal.
func betterLits(a [][]rune, af bool, b [][]rune, bf bool) bool {
	if af != bf {
		return !af
	}
	if len(a) != len(b) {
		return len(a) < len(b)
	}
	return shortest(a) > shortest(b)
}

func shortest(ls [][]rune) int {
	n := -1
	for _, l := range ls {
		if n < 0 || len(l) < n {
			n = len(l)
		}
	}
	return n
}

// needle is one literal the prefilter looks for. It is found by scanning
// for its rarest byte with IndexByte (SIMD memchr, tens of GB/s) and
// comparing the rest: many times faster than bytes.Index when the literal
// starts with a common byte ("errors.New": scan for 'N').
type needle struct {
	lit    []byte // lower-case ASCII when fold
	fold   bool
	k      int  // offset in lit of the byte scanned for
	lo, up byte // that byte in both cases (equal unless fold and a letter)
	// The bytes a match must have right before and after the literal, when
	// the pattern says (`[0-9]{4}-[0-9]{2}`: digits around "-"); nil if
	// unknown. They reject most occurrences of a short literal before the
	// (slow) regexp runs.
	before, after *byteSet
}

// newNeedle prepares runes for scanning; ok is false when a folded literal
// cannot be searched byte-wise (non-ASCII case folding).
func newNeedle(runes []rune, fold bool) (needle, bool) {
	if len(runes) == 0 {
		return needle{}, false
	}
	n := needle{lit: []byte(string(runes)), fold: fold}
	if fold {
		lit := make([]byte, 0, len(runes))
		for _, r := range runes {
			if r >= utf8.RuneSelf {
				return needle{}, false
			}
			for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
				if f >= utf8.RuneSelf {
					return needle{}, false
				}
			}
			lit = append(lit, byte(unicode.ToLower(r)))
		}
		n.lit = lit
	}
	cases := func(c byte) (byte, byte) {
		if fold {
			return c, byte(unicode.ToUpper(rune(c)))
		}
		return c, c
	}
	best := -1
	for i, c := range n.lit {
		lo, up := cases(c)
		if r := min(rarity(lo), rarity(up)); r > best {
			best, n.k, n.lo, n.up = r, i, lo, up
		}
	}
	return n, true
}

// byteCommonness lists bytes from most to least frequent in source code
// (measured over GOROOT/src); a byte not listed is rarer than all of them.
const byteCommonness = " et\tr0n\naiso,xlcfdu1.p/()m2:g\"h=b4S3_6TAEy{}Rv8OCI\\5PD9M7kXLwVFNB-[]U*GH;!W+Y&|<'zK%>Qqj$Z`#J^?@~"

func rarity(c byte) int {
	if i := strings.IndexByte(byteCommonness, c); i >= 0 {
		return i
	}
	return len(byteCommonness)
}

// find returns the start of the first occurrence of the needle at or after
// from, or -1. c caches where each scanned byte occurs next, so repeated
// calls on one buffer scan it once.
func (n *needle) find(buf []byte, from int, c *cursor) int {
	for {
		x := from + n.k
		c.lo = nextByte(buf, x, n.lo, c.lo)
		h := c.lo
		if n.up != n.lo {
			c.up = nextByte(buf, x, n.up, c.up)
			if c.up >= 0 && (h < 0 || c.up < h) {
				h = c.up
			}
		}
		if h < 0 {
			return -1
		}
		s := h - n.k
		if e := s + len(n.lit); e <= len(buf) && s >= 0 {
			w := buf[s:e]
			if ((!n.fold && bytes.Equal(w, n.lit)) || (n.fold && equalFoldASCII(w, n.lit))) &&
				(n.before == nil || (s > 0 && n.before.has(buf[s-1]))) &&
				(n.after == nil || (e < len(buf) && n.after.has(buf[e]))) {
				return s
			}
		}
		from = s + 1
	}
}

// byteSet is a set of bytes; '\n' is never in one (matches are per line).
type byteSet [4]uint64

func (b *byteSet) has(c byte) bool { return b[c>>6]&(1<<(c&63)) != 0 }

func (b *byteSet) add(c byte) {
	if c != '\n' {
		b[c>>6] |= 1 << (c & 63)
	}
}

// addRune adds the bytes that can start or end r's UTF-8 encoding, with
// its case variants when fold: the rune itself if ASCII, else every byte
// >= 0x80 (lead and continuation bytes).
func (b *byteSet) addRune(r rune, fold bool) {
	add := func(r rune) {
		if r < utf8.RuneSelf {
			b.add(byte(r))
			return
		}
		for c := 0x80; c <= 0xFF; c++ {
			b.add(byte(c))
		}
	}
	add(r)
	if fold {
		for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
			add(f)
		}
	}
}

// literalContext finds lit among the parts of a top-level concatenation and
// returns the byte sets its neighbours must start/end with.
func literalContext(re *syntax.Regexp, lit []rune) (before, after *byteSet) {
	for re.Op == syntax.OpCapture {
		re = re.Sub[0]
	}
	if re.Op != syntax.OpConcat {
		return nil, nil
	}
	for i, sub := range re.Sub {
		if sub.Op != syntax.OpLiteral || string(sub.Rune) != string(lit) {
			continue
		}
		if i > 0 {
			before = edgeBytes(re.Sub[i-1], true)
		}
		if i+1 < len(re.Sub) {
			after = edgeBytes(re.Sub[i+1], false)
		}
		return before, after
	}
	return nil, nil
}

// edgeBytes returns the bytes a non-empty match of re must end with (last)
// or start with, or nil when that is unknown or re can match empty.
func edgeBytes(re *syntax.Regexp, last bool) *byteSet {
	var b byteSet
	fold := re.Flags&syntax.FoldCase != 0
	switch re.Op {
	case syntax.OpLiteral:
		r := re.Rune[0]
		if last {
			r = re.Rune[len(re.Rune)-1]
		}
		b.addRune(r, fold)
	case syntax.OpCharClass:
		for i := 0; i+1 < len(re.Rune); i += 2 {
			lo, hi := re.Rune[i], re.Rune[i+1]
			for r := lo; r <= min(hi, utf8.RuneSelf-1); r++ {
				b.add(byte(r))
			}
			if hi >= utf8.RuneSelf {
				b.addRune(utf8.RuneSelf, false)
			}
		}
	case syntax.OpAnyCharNotNL, syntax.OpAnyChar:
		for c := range 256 {
			b.add(byte(c))
		}
	case syntax.OpCapture, syntax.OpPlus:
		return edgeBytes(re.Sub[0], last)
	case syntax.OpRepeat:
		if re.Min < 1 {
			return nil
		}
		return edgeBytes(re.Sub[0], last)
	case syntax.OpConcat:
		if len(re.Sub) == 0 {
			return nil
		}
		if last {
			return edgeBytes(re.Sub[len(re.Sub)-1], last)
		}
		return edgeBytes(re.Sub[0], last)
	case syntax.OpAlternate:
		for _, sub := range re.Sub {
			sb := edgeBytes(sub, last)
			if sb == nil {
				return nil
			}
			for i := range b {
				b[i] |= sb[i]
			}
		}
	default:
		return nil
	}
	return &b
}

// cursor is a needle's per-buffer state: the next offsets of its two scan
// bytes (-2 not searched yet, -1 none left).
type cursor struct{ lo, up int }

// nextByte returns the first offset >= x holding b, reusing cached when it
// is still ahead of x.
func nextByte(buf []byte, x int, b byte, cached int) int {
	switch {
	case cached == -1 || cached >= x:
		return cached
	case x >= len(buf):
		return -1
	}
	if j := bytes.IndexByte(buf[x:], b); j >= 0 {
		return x + j
	}
	return -1
}

// equalFoldASCII compares a with the lower-case lit, ignoring ASCII case.
func equalFoldASCII(a, lit []byte) bool {
	for i, c := range a {
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != lit[i] {
			return false
		}
	}
	return true
}
