package grepengine

import (
	"encoding/binary"
	"regexp/syntax"
	"slices"
	"unicode"
	"unicode/utf8"
)

// lineDFA finds the lines of a buffer on which a compiled RE2 program
// matches, with a DFA built lazily from the program: one table load per
// byte, where Go's regexp (which has no DFA) costs a call per line and tens
// of nanoseconds per byte. It is what makes patterns without a literal
// (`[A-Z]{5}[0-9]+`) run at ripgrep's speed.
//
// It gives exactly regexp.Match's answer for each line on its own:
//   - a state is the set of program counters waiting for the next rune
//     plus what the previous rune was (line start, word or other), which
//     is all ^ $ \A \z \b \B need: assertions are resolved when the next
//     rune (or the line end) is known, as in RE2's DFA;
//   - the start instruction joins every state, so a match may begin at any
//     rune (an unanchored search), and one reaching Match anywhere in the
//     line makes the line match;
//   - the state is reset at every '\n', which is never fed to the program:
//     a match cannot span lines, and ^/$ hold at line ends whatever the
//     flags ((?s), (?m), [^a] classes that include '\n');
//   - bytes are decoded as Go's regexp decodes them (utf8.DecodeRune, an
//     invalid byte is U+FFFD of width 1).
//
// States are created on demand and the cache is bounded: when it fills it
// is dropped and rebuilt; a pattern that keeps filling it (an exponential
// DFA) gives up and the caller falls back to the regexp. A lineDFA is not
// safe for concurrent use; each grep worker has its own.
type lineDFA struct {
	prog      *syntax.Prog
	needWord  bool // the program has \b or \B
	needBegin bool // the program has ^ or \A

	// classes groups the bytes no instruction tells apart (`.` sees two
	// ASCII classes, '\n' and the rest), so that rows are short and the
	// table of a pattern with many states (`^.{120}`) stays in L1 cache.
	// Bytes >= 0x80 are one class, always looked up in wide.
	classes [256]uint8
	stride  int32 // classes, the length of a row

	// table holds a row per state, indexed by state id*stride + class:
	// the next state's row (id*stride, > 0; negated when the state has a
	// skip set), dfaUnknown (not computed yet, or bytes >= 0x80) or
	// dfaMatch (the line matches).
	table  []int32
	states []dfaState        // by id; id 0 is unused so that rows are > 0
	index  map[string]int32  // row of each state, by key (prev, pcs)
	wide   map[wideKey]int32 // transitions on runes >= 0x80, same values
	start  int32             // row of the state at a line start
	pcs    int               // program counters held by states
	resets int               // times the cache was dropped
	failed bool              // resets reached dfaMaxResets: use the regexp
	limit  int               // states the cache holds (dfaMaxStates; tests lower it)

	// Reused while computing a transition.
	mark  []uint32 // per pc: gen when visited
	gen   uint32
	stack []uint32
	runes []uint32 // rune instructions reached by the closure
	next  []uint32
	key   []byte
}

type dfaState struct {
	pcs  []uint32 // sorted; the instructions waiting for the next rune
	prev int8     // prevStart, prevWord or prevOther
	end  int8     // match at the line end: 0 unknown, 1 yes, 2 no
	// skip, when not nil, holds the bytes on which the state stays as it
	// is; most common bytes are among them, so the search runs through
	// them with a loop of independent loads instead of the DFA's chain of
	// dependent ones. escape is the one byte not in skip, or -1.
	skip   *[256]bool
	escape int
}

type wideKey struct {
	row int32
	r   rune
}

const (
	dfaUnknown = 0
	dfaMatch   = -1

	prevStart = 0
	prevWord  = 1
	prevOther = 2

	// Bounds of the state cache (a row is at most 129 int32s).
	dfaMaxStates = 2048
	dfaMaxPCs    = 1 << 20
	dfaMaxResets = 8
	dfaMaxWide   = 1 << 16 // cached transitions on runes >= 0x80
)

func newLineDFA(prog *syntax.Prog) *lineDFA {
	d := &lineDFA{prog: prog, mark: make([]uint32, len(prog.Inst)), limit: dfaMaxStates}
	for _, in := range prog.Inst {
		if in.Op != syntax.InstEmptyWidth {
			continue
		}
		op := syntax.EmptyOp(in.Arg)
		d.needWord = d.needWord || op&(syntax.EmptyWordBoundary|syntax.EmptyNoWordBoundary) != 0
		d.needBegin = d.needBegin || op&(syntax.EmptyBeginLine|syntax.EmptyBeginText) != 0
	}
	d.classes, d.stride = byteClasses(prog, d.needWord)
	d.reset()
	return d
}

// byteClasses splits the bytes into classes that every rune instruction of
// prog accepts or rejects as a whole and, when word, that are all word
// characters or none; '\n' is a class of its own, bytes >= 0x80 another.
func byteClasses(prog *syntax.Prog, word bool) (classes [256]uint8, n int32) {
	var cut [utf8.RuneSelf + 1]bool // a class starts at this byte
	split := func(lo, hi rune) {
		cut[min(lo, utf8.RuneSelf)] = true
		cut[min(hi+1, utf8.RuneSelf)] = true
	}
	split('\n', '\n')
	if word {
		split('0', '9')
		split('A', 'Z')
		split('_', '_')
		split('a', 'z')
	}
	for i := range prog.Inst {
		in := &prog.Inst[i]
		switch {
		case in.Op != syntax.InstRune && in.Op != syntax.InstRune1:
		case len(in.Rune) == 1:
			split(in.Rune[0], in.Rune[0])
			if syntax.Flags(in.Arg)&syntax.FoldCase != 0 {
				for f := unicode.SimpleFold(in.Rune[0]); f != in.Rune[0]; f = unicode.SimpleFold(f) {
					split(f, f)
				}
			}
		default:
			for j := 0; j+1 < len(in.Rune); j += 2 {
				split(in.Rune[j], in.Rune[j+1])
			}
		}
	}
	c := -1
	for b := range utf8.RuneSelf {
		if b == 0 || cut[b] {
			c++
		}
		classes[b] = uint8(c)
	}
	for b := utf8.RuneSelf; b < 256; b++ {
		classes[b] = uint8(c + 1)
	}
	return classes, int32(c + 2)
}

// reset empties the cache.
func (d *lineDFA) reset() {
	d.table = append(d.table[:0], make([]int32, d.stride)...)
	d.states = append(d.states[:0], dfaState{})
	d.index = map[string]int32{}
	d.wide = map[wideKey]int32{}
	d.pcs = 0
	d.start = 0
	d.start = d.intern(nil, d.prevClass(prevStart))
	d.accelerate(d.start)
}

// prevClass merges previous-rune classes the program cannot tell apart,
// so that such states are one.
func (d *lineDFA) prevClass(c int8) int8 {
	switch {
	case d.needWord:
		return c
	case d.needBegin && c == prevStart:
		return prevStart
	}
	return prevOther
}

// lookup returns the row of the state (pcs, prev) if it exists.
func (d *lineDFA) lookup(pcs []uint32, prev int8) (int32, bool) {
	d.key = append(d.key[:0], byte(prev))
	for _, pc := range pcs {
		d.key = binary.LittleEndian.AppendUint32(d.key, pc)
	}
	row, ok := d.index[string(d.key)]
	return row, ok
}

// intern returns the row of the state (pcs, prev), creating it.
func (d *lineDFA) intern(pcs []uint32, prev int8) int32 {
	if row, ok := d.lookup(pcs, prev); ok {
		return row
	}
	id := int32(len(d.states))
	d.states = append(d.states, dfaState{pcs: slices.Clone(pcs), prev: prev})
	d.table = append(d.table, make([]int32, d.stride)...)
	d.index[string(d.key)] = id * d.stride
	d.pcs += len(pcs)
	if len(pcs) == 0 && d.start != 0 {
		d.accelerate(id * d.stride)
	}
	return id * d.stride
}

// code is what the table holds for a transition to the state at row.
func (d *lineDFA) code(row int32) int32 {
	if d.states[row/d.stride].skip != nil {
		return -row
	}
	return row
}

// full reports whether the cache must be dropped before adding a state.
func (d *lineDFA) full() bool {
	return len(d.states) >= d.limit || d.pcs >= dfaMaxPCs
}

// prevRune is a rune of the class, for syntax.EmptyOpContext.
func prevRune(c int8) rune {
	switch c {
	case prevStart:
		return -1
	case prevWord:
		return 'a'
	}
	return ' '
}

// closure follows the empty transitions from pcs and the start instruction
// under the assertions flags allows, collecting rune instructions in
// d.runes; it reports whether Match is reached.
func (d *lineDFA) closure(pcs []uint32, flags syntax.EmptyOp) bool {
	d.gen++
	if d.gen == 0 { // wrapped: clear the marks
		clear(d.mark)
		d.gen = 1
	}
	d.runes = d.runes[:0]
	d.stack = append(append(d.stack[:0], pcs...), uint32(d.prog.Start))
	for len(d.stack) > 0 {
		pc := d.stack[len(d.stack)-1]
		d.stack = d.stack[:len(d.stack)-1]
		if d.mark[pc] == d.gen {
			continue
		}
		d.mark[pc] = d.gen
		in := &d.prog.Inst[pc]
		switch in.Op {
		case syntax.InstAlt, syntax.InstAltMatch:
			d.stack = append(d.stack, in.Arg, in.Out)
		case syntax.InstCapture, syntax.InstNop:
			d.stack = append(d.stack, in.Out)
		case syntax.InstEmptyWidth:
			if syntax.EmptyOp(in.Arg)&^flags == 0 {
				d.stack = append(d.stack, in.Out)
			}
		case syntax.InstMatch:
			return true
		case syntax.InstRune, syntax.InstRune1, syntax.InstRuneAny, syntax.InstRuneAnyNotNL:
			d.runes = append(d.runes, pc)
		}
	}
	return false
}

// step computes the transition of the state at row on rune r: dfaMatch or
// the next state's row. It may drop the cache; rows the caller holds other
// than the result and d.start are then stale.
func (d *lineDFA) step(row int32, r rune) int32 {
	st := &d.states[row/d.stride]
	if d.closure(st.pcs, syntax.EmptyOpContext(prevRune(st.prev), r)) {
		return dfaMatch
	}
	d.next = d.next[:0]
	for _, pc := range d.runes {
		in := &d.prog.Inst[pc]
		ok := false
		switch in.Op {
		case syntax.InstRune1:
			ok = r == in.Rune[0]
		case syntax.InstRune:
			ok = in.MatchRune(r)
		case syntax.InstRuneAny:
			ok = true
		case syntax.InstRuneAnyNotNL:
			ok = r != '\n'
		}
		if ok {
			d.next = append(d.next, in.Out)
		}
	}
	slices.Sort(d.next)
	d.next = slices.Compact(d.next)
	prev := int8(prevOther)
	if syntax.IsWordChar(r) {
		prev = prevWord
	}
	prev = d.prevClass(prev)
	if row, ok := d.lookup(d.next, prev); ok {
		return row
	}
	if d.full() {
		d.resets++
		if d.resets >= dfaMaxResets {
			d.failed = true
		}
		next := slices.Clone(d.next)
		d.reset()
		return d.intern(next, prev)
	}
	return d.intern(d.next, prev)
}

// matchesAtEnd reports whether the line matches at its end in the state at
// row (for $, \z, \b and patterns that match the empty string).
func (d *lineDFA) matchesAtEnd(row int32) bool {
	st := &d.states[row/d.stride]
	if st.end == 0 {
		st.end = 2
		if d.closure(st.pcs, syntax.EmptyOpContext(prevRune(st.prev), -1)) {
			st.end = 1
		}
	}
	return st.end == 1
}
