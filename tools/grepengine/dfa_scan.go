package grepengine

import (
	"bytes"
	"regexp/syntax"
	"unicode"
	"unicode/utf8"
)

// This file holds the lazy DFA's search loop and its skip sets.

// scan calls emit(ls, le) for every matching line buf[ls:le] of the lines
// starting at from (a line start), in order, until emit returns false. It
// returns -1 when done, or the start of the line where it gave up (the
// cache kept filling): the caller searches the rest another way.
//
// '\n' is a transition like any other (to the line-start state, or to
// dfaMatch when the line matches at its end), so the hot loop does not
// stop at line ends; a line's start is looked up only when it matches.
func (d *lineDFA) scan(buf []byte, from int, emit func(ls, le int) bool) int {
	if d.failed {
		return from
	}
	cls, tab, s, i := &d.classes, d.table, d.start, from
	if d.states[s/d.stride].skip != nil {
		i = d.skipFrom(s, buf, i)
	}
	for {
		for i < len(buf) { // the hot loop: one table load per byte
			t := tab[s+int32(cls[buf[i]])]
			if t <= 0 {
				break
			}
			s = t
			i++
		}
		if i == len(buf) {
			if len(buf) > from && buf[len(buf)-1] != '\n' && d.matchesAtEnd(s) {
				emit(lineStart(buf, from, len(buf)), len(buf))
			}
			return -1
		}
		c := buf[i]
		t, size := tab[s+int32(cls[c])], 1
		if t == dfaUnknown {
			r := rune(c)
			if c >= utf8.RuneSelf {
				r, size = utf8.DecodeRune(buf[i:])
			}
			if t = d.cached(s, r); t == dfaUnknown {
				if d.failed {
					return lineStart(buf, from, i)
				}
				t = d.transition(s, r)
				tab = d.table
			}
		}
		switch {
		case t == dfaMatch:
			le := lineEnd(buf, i)
			if !emit(lineStart(buf, from, i), le) || le == len(buf) {
				return -1
			}
			s, i = d.start, le+1
			if d.states[s/d.stride].skip != nil {
				i = d.skipFrom(s, buf, i)
			}
		case t < 0:
			s = -t
			i = d.skipFrom(s, buf, i+size)
		default:
			s = t
			i += size
		}
	}
}

// skipFrom returns the offset of the first byte at or after i that is not
// in the skip set of the state at row.
func (d *lineDFA) skipFrom(row int32, buf []byte, i int) int {
	st := &d.states[row/d.stride]
	if st.escape >= 0 {
		if j := bytes.IndexByte(buf[i:], byte(st.escape)); j >= 0 {
			return i + j
		}
		return len(buf)
	}
	skip := st.skip
	for i < len(buf) && skip[buf[i]] {
		i++
	}
	return i
}

// lineStart returns the start of the line holding offset i (>= from, a
// line start).
func lineStart(buf []byte, from, i int) int {
	return from + bytes.LastIndexByte(buf[from:i], '\n') + 1
}

// cached returns the known transition of the state at row on r, or
// dfaUnknown.
func (d *lineDFA) cached(row int32, r rune) int32 {
	if r < utf8.RuneSelf {
		return d.table[row+int32(d.classes[r])]
	}
	return d.wide[wideKey{row, r}]
}

// transition computes and records the transition of the state at row on r
// (not recorded when computing it dropped the cache: row is then stale).
func (d *lineDFA) transition(row int32, r rune) int32 {
	var t int32
	resets := d.resets
	switch {
	case r == '\n':
		t = d.code(d.start)
		if d.matchesAtEnd(row) {
			t = dfaMatch
		}
	default:
		if t = d.step(row, r); t != dfaMatch {
			t = d.code(t)
		}
	}
	switch {
	case d.resets != resets:
	case r < utf8.RuneSelf:
		d.table[row+int32(d.classes[r])] = t
	default:
		if len(d.wide) >= dfaMaxWide { // text with many distinct runes
			clear(d.wide)
		}
		d.wide[wideKey{row, r}] = t
	}
	return t
}

// accelerate gives the state at row, which waits for nothing but a match
// to start, its skip set when that set holds the bytes most common in
// source code: the search then mostly skips (`[A-Z]{5}` skips all but
// capitals; after a non-match, `^x` skips to the next '\n').
func (d *lineDFA) accelerate(row int32) {
	st := &d.states[row/d.stride]
	var skip [256]bool
	for b := range rune(utf8.RuneSelf) {
		skip[b] = b != '\n' && d.stays(st, b)
	}
	skip['\n'] = row == d.start && !d.matchesAtEnd(row)
	if d.staysWide(st) {
		for b := utf8.RuneSelf; b < 256; b++ {
			skip[b] = true
		}
	}
	for _, c := range []byte(byteCommonness[:16]) {
		if c != '\n' && !skip[c] {
			return
		}
	}
	st.skip, st.escape = &skip, -1
	for b, ok := range skip {
		switch {
		case ok:
		case st.escape >= 0:
			st.escape = -1
			return
		default:
			st.escape = b
		}
	}
}

// stays reports whether the state st (waiting for nothing) stays as it is
// on the ASCII rune r.
func (d *lineDFA) stays(st *dfaState, r rune) bool {
	class := int8(prevOther)
	if syntax.IsWordChar(r) {
		class = prevWord
	}
	if d.prevClass(class) != st.prev || d.closure(st.pcs, syntax.EmptyOpContext(prevRune(st.prev), r)) {
		return false
	}
	for _, pc := range d.runes {
		if d.prog.Inst[pc].MatchRune(r) {
			return false
		}
	}
	return true
}

// staysWide reports whether the state st (waiting for nothing) stays as it
// is on every rune >= 0x80 (U+FFFD for an invalid byte included): then its
// bytes can be skipped one by one.
func (d *lineDFA) staysWide(st *dfaState) bool {
	if d.prevClass(prevOther) != st.prev || d.closure(st.pcs, syntax.EmptyOpContext(prevRune(st.prev), utf8.RuneError)) {
		return false
	}
	for _, pc := range d.runes {
		if mayMatchWide(&d.prog.Inst[pc]) {
			return false
		}
	}
	return true
}

// mayMatchWide reports whether the rune instruction in can match a rune
// >= 0x80 (conservatively).
func mayMatchWide(in *syntax.Inst) bool {
	switch in.Op {
	case syntax.InstRune1:
		return in.Rune[0] >= utf8.RuneSelf
	case syntax.InstRune:
		if len(in.Rune) == 1 {
			r0 := in.Rune[0]
			if r0 >= utf8.RuneSelf {
				return true
			}
			if syntax.Flags(in.Arg)&syntax.FoldCase != 0 {
				for f := unicode.SimpleFold(r0); f != r0; f = unicode.SimpleFold(f) {
					if f >= utf8.RuneSelf {
						return true
					}
				}
			}
			return false
		}
		return in.Rune[len(in.Rune)-1] >= utf8.RuneSelf // ranges are sorted
	}
	return true // InstRuneAny, InstRuneAnyNotNL
}
