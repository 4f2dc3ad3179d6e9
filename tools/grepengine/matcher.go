package grepengine

import (
	"bytes"
	"regexp"
	"regexp/syntax"
	"slices"
)

// Matcher finds the lines of a buffer that match an RE2 pattern, the way
// grep and ripgrep define it: a line matches when the pattern matches
// somewhere inside it (line terminators excluded).
//
// Go's regexp runs at tens of MB/s, so the matcher avoids running it over
// text that cannot match. Most patterns contain literals one of which every
// match must include ("Reader" in `\w+Reader\(`, "errors.New" or
// "fmt.Errorf" in `errors\.New|fmt\.Errorf`): the buffer is scanned for
// them with SIMD byte searches and only the lines containing one are
// checked; a pattern that is nothing but literals needs no more. A
// case-insensitive literal is found by scanning for both cases of its
// rarest byte and comparing the rest, when every letter's case folding
// stays within ASCII (so not "k", which folds to the Kelvin sign).
// Lines are checked, and buffers without a known literal searched, by a
// lazy DFA built from the regexp's program (lineDFA); the regexp itself
// is the fallback when the DFA gives up.
type Matcher struct {
	re      *regexp.Regexp
	multi   *regexp.Regexp // re in (?m) mode, for chunks of lines; nil: per line only
	needles []needle       // every match contains one of these; nil: none known
	pure    bool           // the pattern is just the literal(s): no regexp needed
	chunk   int            // no needles: bytes of lines pre-checked per re.Match
	prog    *syntax.Prog   // re's program, for the lazy DFA; nil: none
}

// maxPrefilterLits bounds the alternatives the prefilter scans for: past
// it, the scans cost more than the regexp they would save.
const maxPrefilterLits = 8

// Compile prepares pattern (RE2 syntax) for line matching; ignoreCase
// adds (?i). The error is regexp.Compile's.
func Compile(pattern string, ignoreCase bool) (*Matcher, error) {
	if ignoreCase {
		pattern = "(?i)" + pattern
	}
	re, err := regexp.Compile(pattern)
	if err != nil {
		return nil, err
	}
	m := &Matcher{re: re, chunk: 4 << 10}
	// A chunk of lines may contain a match only if the (?m) form of the
	// pattern matches the chunk: ^ and $ then match at every line break.
	// \A and \z keep their meaning in (?m), so they rule chunks out.
	if mp, err := syntax.Parse("(?m)"+pattern, syntax.Perl); err == nil && !hasTextAnchor(mp) {
		m.multi, _ = regexp.Compile("(?m)" + pattern)
	}
	parsed, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		return m, nil // compiled fine, so this cannot happen; no prefilter
	}
	parsed = parsed.Simplify()
	if prog, err := syntax.Compile(parsed); err == nil && len(prog.Inst) > 0 {
		m.prog = prog
		// Keep chunks within the size Go's fast backtracker accepts
		// (256 Ki bits of visited state), not its slow NFA.
		m.chunk = max(256, min(32<<10, 256*1024/len(prog.Inst)/2))
	}
	lits, fold := requiredLiterals(parsed)
	if len(lits) == 0 || len(lits) > maxPrefilterLits {
		return m, nil
	}
	for _, l := range lits {
		n, ok := newNeedle(l, fold)
		if !ok {
			return m, nil
		}
		m.needles = append(m.needles, n)
	}
	// A literal holding '\n' is found across a line break, where the
	// pattern cannot match: such lines are checked like any other.
	m.pure = !fold && isPlainLiterals(parsed) && !slices.ContainsFunc(lits, func(l []rune) bool { return slices.Contains(l, '\n') })
	if len(m.needles) == 1 && !m.pure {
		m.needles[0].before, m.needles[0].after = literalContext(parsed, lits[0])
	}
	return m, nil
}

// Scratch holds buffers reused from one EachMatch call to the next. A
// Scratch must not be used by two goroutines at once; a zero Scratch is
// ready to use.
type Scratch struct {
	next    []int    // next occurrence of each needle
	cursors []cursor // each needle's scan state
	dfa     *lineDFA // the matcher's DFA, built lazily
}

// lineDFA returns sc's DFA for m's program, or nil when there is none.
func (m *Matcher) lineDFA(sc *Scratch) *lineDFA {
	if m.prog == nil {
		return nil
	}
	if sc.dfa == nil || sc.dfa.prog != m.prog {
		sc.dfa = newLineDFA(m.prog)
	}
	return sc.dfa
}

// EachMatch calls fn for every matching line of buf, in order, with its
// 1-based number and content (without "\n"). fn returns false to stop.
func (m *Matcher) EachMatch(buf []byte, sc *Scratch, fn func(n int, line []byte) bool) {
	lineNo, counted := 1, 0 // lineNo is the number of the line starting at counted
	emit := func(ls int, line []byte) bool {
		lineNo += bytes.Count(buf[counted:ls], newline)
		counted = ls
		return fn(lineNo, line)
	}
	if m.needles == nil {
		from := 0
		if d := m.lineDFA(sc); d != nil {
			if from = d.scan(buf, 0, func(ls, le int) bool { return emit(ls, buf[ls:le]) }); from < 0 {
				return
			}
		}
		m.scanChunks(buf, from, emit)
		return
	}
	sc.next, sc.cursors = sc.next[:0], sc.cursors[:0]
	for range m.needles {
		sc.next = append(sc.next, -2) // not searched yet
		sc.cursors = append(sc.cursors, cursor{-2, -2})
	}
	next := sc.next
	for pos := 0; pos < len(buf); { // pos is always a line start
		start := -1 // earliest needle occurrence at or after pos
		for i := range m.needles {
			if next[i] != -1 && next[i] < pos {
				next[i] = m.needles[i].find(buf, pos, &sc.cursors[i])
			}
			if next[i] >= 0 && (start < 0 || next[i] < start) {
				start = next[i]
			}
		}
		if start < 0 {
			return
		}
		ls := pos + bytes.LastIndexByte(buf[pos:start], '\n') + 1
		le := lineEnd(buf, start)
		if (m.pure || m.matchLine(buf[ls:le], sc)) && !emit(ls, buf[ls:le]) {
			return
		}
		pos = le + 1
	}
}

// matchLine reports whether the pattern matches line (no '\n' in it):
// with the DFA unless it has given up, which costs less than a call of
// the regexp even on short lines.
func (m *Matcher) matchLine(line []byte, sc *Scratch) bool {
	if d := m.lineDFA(sc); d != nil {
		found := false
		if d.scan(line, 0, func(int, int) bool { found = true; return false }) < 0 {
			return found
		}
	}
	return m.re.Match(line)
}

var newline = []byte{'\n'}

// lineEnd returns the offset of the "\n" ending the line that contains i,
// or len(buf).
func lineEnd(buf []byte, i int) int {
	if j := bytes.IndexByte(buf[i:], '\n'); j >= 0 {
		return i + j
	}
	return len(buf)
}

// scanChunks is the search without a literal once the DFA has given up
// (its cache kept filling), from the line start from: whole lines are
// grouped into chunks small enough for Go's backtracking matcher, a chunk
// in which the (?m) form of the pattern does not match is skipped with
// one Match, and only the lines of a matching chunk are matched one by
// one. (One FindIndex over a whole file would run Go's much slower NFA.)
func (m *Matcher) scanChunks(buf []byte, from int, emit func(ls int, line []byte) bool) {
	for pos := from; pos < len(buf); {
		end := lineEnd(buf, min(len(buf)-1, pos+m.chunk))
		if m.multi == nil || m.multi.Match(buf[pos:end]) {
			for ls := pos; ls <= end; {
				le := lineEnd(buf, ls)
				if ls == len(buf) {
					break
				}
				if m.re.Match(buf[ls:le]) && !emit(ls, buf[ls:le]) {
					return
				}
				ls = le + 1
			}
		}
		pos = end + 1
	}
}
