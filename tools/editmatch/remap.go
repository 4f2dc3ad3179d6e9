package editmatch

import "strings"

// This file holds the MatchIndentMap rung: old_string indented with one
// character (or step) and the file with another, typically spaces in
// old_string and tabs in a Go file, or 2-space steps against 4-space ones.
//
// There is no global tab width. The mapping is inferred from the matched
// lines themselves: each non-blank line whose indentation is known gives a
// pair (old width, file width), counted in the indentation character of
// each side, and the pairs must all fit one linear map
//
//	file width = old width × num/den + off
//
// with whole-number results. Two different depths fix the map; a window at
// a single depth w ↔ f is taken as the plain ratio f/w (no offset). The
// same map re-indents new_string, and a line it cannot convert exactly is
// refused, never rounded.

// indentMap is an inferred mapping between old_string's indentation and
// the file's.
type indentMap struct {
	oc, fc   byte // indentation character of old_string and of the file
	num, den int  // ratio of widths, reduced, both > 0
	off      int  // file units added after scaling (may be negative)
	unit     int  // old_string's indentation step, for the description

	// mix > 0 is the mixed mapping (inferMixed): old_string writes each
	// indentation unit either as the file does or as the other character,
	// line by line and even within a line. With file tabs, an old tab is
	// one tab and mix old spaces are one tab; with file spaces, an old
	// space is one space and an old tab is mix spaces. oc, num, den and off
	// are unused then.
	mix int
}

// indentPair is one matched line's indentation on each side.
type indentPair struct{ old, file string }

// pureIndent reports the single character s is made of (0 for "") and
// whether s is made of one character only.
func pureIndent(s string) (byte, bool) {
	if s == "" {
		return 0, true
	}
	c := s[0]
	for i := 1; i < len(s); i++ {
		if s[i] != c {
			return 0, false
		}
	}
	return c, true
}

// inferIndentMap finds the mapping the pairs imply, or ok=false when there
// is none, or when an earlier rung (same character, same step) covers it.
// When old_string mixes tabs and spaces (within a line, or from line to
// line) the mapping is learned per indentation unit instead (inferMixed).
func inferIndentMap(pairs []indentPair) (indentMap, bool) {
	if oldMixes(pairs) {
		return inferMixed(pairs)
	}
	var m indentMap
	type wp struct{ o, f int }
	var ws []wp
	for _, p := range pairs {
		oc, ok1 := pureIndent(p.old)
		fc, ok2 := pureIndent(p.file)
		if !ok1 || !ok2 {
			return m, false // mixed tabs and spaces on one line
		}
		if oc != 0 {
			if m.oc != 0 && m.oc != oc {
				return m, false
			}
			m.oc = oc
		}
		if fc != 0 {
			if m.fc != 0 && m.fc != fc {
				return m, false
			}
			m.fc = fc
		}
		ws = append(ws, wp{len(p.old), len(p.file)})
	}
	if m.oc == 0 || m.fc == 0 || (m.oc == '\t' && m.fc == '\t') {
		return m, false
	}
	a := ws[0]
	var b *wp
	for i := range ws {
		if ws[i].o != a.o {
			b = &ws[i]
			break
		}
	}
	if b != nil {
		dn, dd := b.f-a.f, b.o-a.o
		if dn*dd <= 0 {
			return m, false // not increasing
		}
		if dd < 0 {
			dn, dd = -dn, -dd
		}
		g := gcd(dn, dd)
		m.num, m.den = dn/g, dd/g
		if (a.f*m.den-a.o*m.num)%m.den != 0 {
			return m, false
		}
		m.off = (a.f*m.den - a.o*m.num) / m.den
	} else {
		if a.o == 0 || a.f == 0 {
			return m, false
		}
		g := gcd(a.f, a.o)
		m.num, m.den = a.f/g, a.o/g
	}
	if m.num == m.den && m.oc == m.fc {
		return m, false // same step: the uniform shift rung's case
	}
	for _, w := range ws {
		if f, ok := m.apply(w.o); !ok || f != w.f {
			return m, false
		}
	}
	for _, w := range ws {
		if w.o > 0 {
			m.unit = gcd(m.unit, w.o)
		}
	}
	return m, true
}

func gcd(a, b int) int {
	for b != 0 {
		a, b = b, a%b
	}
	if a < 0 {
		return -a
	}
	return a
}

// oldMixes reports whether the old side of pairs uses both tabs and
// spaces, on one line or across lines.
func oldMixes(pairs []indentPair) bool {
	tabs, spaces := false, false
	for _, p := range pairs {
		tabs = tabs || strings.Contains(p.old, "\t")
		spaces = spaces || strings.Contains(p.old, " ")
	}
	return tabs && spaces
}

// plausibleUnits are the widths a model writes one indentation unit with
// in the other character (a tab as 4 spaces, 4 spaces as a tab).
var plausibleUnits = map[int]bool{2: true, 3: true, 4: true, 8: true}

// inferMixed learns the mixed mapping: the file indents with one
// character, old_string with both (a model that wrote some of a line's
// tabs as 4 spaces). Each line gives its count of old tabs t and spaces s
// and the file's width F; with file tabs, F = t + s/N, with file spaces,
// F = s + t·N, and every line must give the same whole N, a plausible unit
// width (2, 3, 4 or 8). With file tabs, each run of spaces must be whole
// units. Lines with no indentation in the other character must match as
// they are. No offset: a block moved as well as re-written is two drifts,
// and is refused.
func inferMixed(pairs []indentPair) (indentMap, bool) {
	m := indentMap{}
	for _, p := range pairs {
		fc, ok := pureIndent(p.file)
		if !ok {
			return m, false
		}
		if fc != 0 {
			if m.fc != 0 && m.fc != fc {
				return m, false
			}
			m.fc = fc
		}
	}
	if m.fc == 0 {
		return m, false
	}
	for _, p := range pairs {
		t, sp, f := strings.Count(p.old, "\t"), strings.Count(p.old, " "), len(p.file)
		var other, same int // old units in the other character, and in the file's
		if m.fc == '\t' {
			other, same = sp, t
		} else {
			other, same = t, sp
		}
		if other == 0 {
			if same != f {
				return m, false
			}
			continue
		}
		var n int
		if m.fc == '\t' {
			if f <= same || other%(f-same) != 0 {
				return m, false
			}
			n = other / (f - same)
		} else {
			if f <= same || (f-same)%other != 0 {
				return m, false
			}
			n = (f - same) / other
		}
		if !plausibleUnits[n] || (m.mix != 0 && m.mix != n) {
			return m, false
		}
		m.mix = n
	}
	if m.mix == 0 {
		return m, false
	}
	for _, p := range pairs {
		if c, ok := m.convert(p.old); !ok || c != p.file {
			return m, false
		}
	}
	return m, true
}

// unitWidth is N when m maps N old characters to 1 file tab, or 1 old tab
// to N file spaces, with no offset: the mappings the mixed one extends. 0
// otherwise.
func (m indentMap) unitWidth() int {
	switch {
	case m.off != 0:
		return 0
	case m.oc == ' ' && m.fc == '\t' && m.num == 1 && plausibleUnits[m.den]:
		return m.den
	case m.oc == '\t' && m.fc == ' ' && m.den == 1 && plausibleUnits[m.num]:
		return m.num
	}
	return 0
}

// convertMixed re-indents one line under the mixed mapping.
func (m indentMap) convertMixed(ind string) (string, bool) {
	t, sp := strings.Count(ind, "\t"), strings.Count(ind, " ")
	if t+sp != len(ind) {
		return "", false
	}
	if m.fc == ' ' {
		return strings.Repeat(" ", sp+t*m.mix), true
	}
	// File tabs: every run of spaces must be whole units.
	for _, run := range strings.Split(ind, "\t") {
		if len(run)%m.mix != 0 {
			return "", false
		}
	}
	return strings.Repeat("\t", t+sp/m.mix), true
}

// apply maps an old width to a file width.
func (m indentMap) apply(o int) (int, bool) {
	if (o*m.num)%m.den != 0 {
		return 0, false
	}
	f := o*m.num/m.den + m.off
	return f, f >= 0
}

// convert re-indents one line of new_string.
func (m indentMap) convert(ind string) (string, bool) {
	if m.mix > 0 {
		return m.convertMixed(ind)
	}
	c, ok := pureIndent(ind)
	if !ok || (c != 0 && c != m.oc) {
		// A line written with the file's own character, or mixing both,
		// under a plain "N of one ↔ 1 of the other" mapping: the mixed
		// mapping is that mapping extended to such lines (old_string
		// written all in spaces, new_string with some tabs).
		if n := m.unitWidth(); n > 0 {
			mm := m
			mm.mix = n
			return mm.convertMixed(ind)
		}
		return "", false
	}
	f, ok := m.apply(len(ind))
	if !ok {
		return "", false
	}
	return strings.Repeat(string(m.fc), f), true
}

// String names the equivalence for the model: "4 spaces in old_string ↔
// 1 tab in the file", with the offset when there is one.
func (m indentMap) String() string {
	if m.mix > 0 {
		units := describeIndent(strings.Repeat(" ", m.mix))
		if m.fc == '\t' {
			return "tabs written as tabs or as " + units + " in old_string ↔ 1 tab each in the file"
		}
		return units + " written as spaces or as 1 tab in old_string ↔ " + units + " each in the file"
	}
	o, f := m.den, m.num
	if m.den == 1 && m.unit > 1 {
		o, f = m.unit, m.unit*m.num
	}
	s := describeIndent(strings.Repeat(string(m.oc), o)) + " in old_string ↔ " + describeIndent(strings.Repeat(string(m.fc), f)) + " in the file"
	switch {
	case m.off > 0:
		s += ", plus " + describeIndent(strings.Repeat(string(m.fc), m.off))
	case m.off < 0:
		s += ", minus " + describeIndent(strings.Repeat(string(m.fc), -m.off))
	}
	return s
}

// mapWindow matches old against lines ignoring how indentation is
// written, and infers the mapping. Middle lines compare whole (content
// after indentation, trailing whitespace ignored); the first line may start
// mid-line when old's first line is not indented; the last may stop
// mid-line.
func mapWindow(lines []fileLine, old []string, budget *int) (window, indentMap, bool) {
	w, pairs, ok := windowPairs(lines, old, budget)
	if !ok || len(pairs) == 0 {
		return w, indentMap{}, false
	}
	m, ok := inferIndentMap(pairs)
	return w, m, ok
}

// windowPairs matches old against lines ignoring how indentation is
// written and returns the indentation pairs of the lines whose
// indentation is known.
func windowPairs(lines []fileLine, old []string, budget *int) (window, []indentPair, bool) {
	n := len(old)
	var pairs []indentPair
	var w window
	*budget -= n
	// First line.
	ol0 := old[0]
	oi0, or0 := splitIndent(trimRight(ol0))
	switch {
	case n == 1:
		if oi0 == "" || or0 == "" {
			return w, nil, false
		}
		fi, fr := splitIndent(lines[0].content)
		k, ok := prefixLen(fr, strings.TrimLeft(ol0, " \t"))
		if !ok {
			return w, nil, false
		}
		pairs = append(pairs, indentPair{oi0, fi})
		w.start, w.end, w.firstWhole = lines[0].start, lines[0].start+len(fi)+k, true
	case oi0 != "" && or0 != "":
		fi, fr := splitIndent(trimRight(lines[0].content))
		if fr != or0 {
			return w, nil, false
		}
		pairs = append(pairs, indentPair{oi0, fi})
		w.start, w.firstWhole = lines[0].start, true
	default:
		tf, to := trimRight(lines[0].content), trimRight(ol0)
		if !strings.HasSuffix(tf, to) {
			return w, nil, false
		}
		w.start = lines[0].start + len(tf) - len(to)
	}
	for j := 1; j < n; j++ {
		fl, ol := lines[j].content, old[j]
		if j == n-1 {
			if ol == "" {
				w.end = lines[j].start
				break
			}
			if isBlank(ol) {
				if !strings.HasPrefix(fl, ol) {
					return w, nil, false
				}
				w.end = lines[j].start + len(ol)
				break
			}
			fi, fr := splitIndent(fl)
			oi, or := splitIndent(ol)
			k, ok := prefixLen(fr, or)
			if !ok {
				return w, nil, false
			}
			pairs = append(pairs, indentPair{oi, fi})
			w.end = lines[j].start + len(fi) + k
			break
		}
		if isBlank(fl) || isBlank(ol) {
			if !(isBlank(fl) && isBlank(ol)) {
				return w, nil, false
			}
			continue
		}
		fi, fr := splitIndent(trimRight(fl))
		oi, or := splitIndent(trimRight(ol))
		if fr != or {
			return w, nil, false
		}
		pairs = append(pairs, indentPair{oi, fi})
	}
	return w, pairs, true
}

// remapLines re-indents new_string (LF line breaks) with m. The first line
// is left alone unless old_string's first line was matched from its line
// start; blank lines are left alone.
func remapLines(s string, m indentMap, firstWhole bool, where string) (string, error) {
	parts := strings.Split(s, "\n")
	for i, p := range parts {
		if (i == 0 && !firstWhole) || isBlank(p) {
			continue
		}
		ind, rest := splitIndent(p)
		conv, ok := m.convert(ind)
		if !ok {
			return "", refusef("old_string matched %s with its indentation written differently (%s), but line %d of new_string is indented by %s, which does not convert to a whole indentation under that mapping; indent new_string as the file does", where, m, i+1, describeIndentOrNone(ind))
		}
		parts[i] = conv + rest
	}
	return strings.Join(parts, "\n"), nil
}

func describeIndentOrNone(s string) string {
	if s == "" {
		return "nothing"
	}
	return describeIndent(s)
}

// findMapped scans every window with mapWindow and returns those that
// match, each with its own mapping (stopping after limit+1).
func findMapped(lines []fileLine, old []string, limit int) ([]window, []indentMap, error) {
	n := len(old)
	var ws []window
	var ms []indentMap
	budget := matchBudget
	for i := 0; i+n <= len(lines); i++ {
		w, m, ok := mapWindow(lines[i:i+n], old, &budget)
		if budget < 0 {
			return nil, nil, refusef("old_string (%d lines) is too repetitive to match safely in this file; use a shorter, distinctive old_string copied exactly", n)
		}
		if ok {
			w.line = i
			ws, ms = append(ws, w), append(ms, m)
			if len(ws) > limit {
				break
			}
		}
	}
	return ws, ms, nil
}

// The uniform shift rung cannot tell "2 spaces more" from "2-space steps
// written for 4-space ones" when old_string sits at one depth: both fit.
// They differ on the lines new_string adds at other depths. When
// new_string shows the model's step (the differences between its
// indentation widths) and the file's own step differs, the lines are
// rescaled instead of shifted, so an added nested line lands one file
// step deeper, not one model step.

// plausibleSteps are the indentation steps rescaling considers.
var plausibleSteps = map[int]bool{2: true, 3: true, 4: true, 8: true}

// fileStep is the file's indentation step in spaces: the most common
// increase of indentation between consecutive non-blank space-indented
// lines; 0 when there is none.
func fileStep(lines []fileLine) int {
	counts := map[int]int{}
	prev := -1
	for _, l := range lines {
		if isBlank(l.content) {
			continue
		}
		ind, _ := splitIndent(l.content)
		if strings.Trim(ind, " ") != "" {
			prev = -1
			continue
		}
		if prev >= 0 && len(ind) > prev {
			counts[len(ind)-prev]++
		}
		prev = len(ind)
	}
	best, n := 0, 0
	for d, c := range counts {
		if c > n || (c == n && d < best) {
			best, n = d, c
		}
	}
	return best
}

// modelStep is the indentation step old_string and new_string show: the
// gcd of their space indentation widths (the model's indentation is
// counted from column 0); 0 when they show fewer than two different
// widths (one width is no evidence of a step) or use anything but spaces.
func modelStep(old []string, nw string, firstWhole bool) int {
	g := 0
	widths := map[int]bool{}
	for _, ls := range [][]string{old, strings.Split(strings.ReplaceAll(nw, "\r\n", "\n"), "\n")} {
		for i, l := range ls {
			if (i == 0 && !firstWhole) || isBlank(l) {
				continue
			}
			ind, _ := splitIndent(l)
			if strings.Trim(ind, " ") != "" {
				return 0
			}
			g = gcd(g, len(ind))
			widths[len(ind)] = true
		}
	}
	if len(widths) < 2 {
		return 0
	}
	return g
}

// rescaleShift returns the indentation map to use instead of a uniform
// shift, when the model's and the file's steps or characters differ (see
// above); ok is false to keep the shift. The two cases:
//   - a shift of spaces, and old_string/new_string show a space step
//     other than the file's: widths are scaled (2-space steps written for
//     4-space ones);
//   - a shift of tabs (or of spaces) while new_string indents its own
//     lines with spaces (or tabs), as a model does when it writes a nested
//     block from column 0: "\t" + "    y()" would mix the two, so the
//     model's step becomes one file level.
func rescaleShift(lines []fileLine, old []string, nw string, w window) (indentMap, bool) {
	d := w.shift.delta
	if d == "" {
		return indentMap{}, false
	}
	nw = strings.ReplaceAll(nw, "\r\n", "\n")
	whole := firstWhole(old, w, lines)
	var m indentMap
	switch {
	case strings.Trim(d, "\t") == "" && w.shift.add:
		ms := modelStep(old, nw, whole)
		if !plausibleSteps[ms] {
			return indentMap{}, false
		}
		m = indentMap{oc: ' ', fc: '\t', num: 1, den: ms, off: len(d), unit: ms}
	case strings.Trim(d, " ") == "" && w.shift.add && tabIndented(old, nw, whole):
		fs := fileStep(lines)
		if !plausibleSteps[fs] {
			return indentMap{}, false
		}
		m = indentMap{oc: '\t', fc: ' ', num: fs, den: 1, off: len(d)}
	case strings.Trim(d, " ") == "":
		ms, fs := modelStep(old, nw, whole), fileStep(lines)
		if ms == fs || !plausibleSteps[ms] || !plausibleSteps[fs] {
			return gridScale(lines, old, nw, w, whole, fs)
		}
		g := gcd(fs, ms)
		// Pure scaling only: the model counts its indentation from column 0.
		m = indentMap{oc: ' ', fc: ' ', num: fs / g, den: ms / g, unit: ms}
	default:
		return indentMap{}, false
	}
	budget := len(old) + 1
	_, pairs, ok := windowPairs(lines[w.line:w.line+len(old)], old, &budget)
	if !ok {
		return indentMap{}, false
	}
	for _, p := range pairs {
		if c, ok := m.convert(p.old); !ok || c != p.file {
			return indentMap{}, false
		}
	}
	shifted, err1 := shiftLines(nw, w.shift, whole)
	scaled, err2 := remapLines(nw, m, whole, "")
	if err1 != nil || err2 != nil || shifted == scaled {
		return indentMap{}, false // keep the shift (and its refusal)
	}
	return m, true
}

// gridScale settles a shift of spaces that the model's step does not
// decide (its widths, 6 and 12, fit a 6-space step as well as a 2-space
// one): when every matched line's file width is the same whole multiple k
// of its old width, and scaling new_string by k puts all its lines on the
// file's indentation grid (multiples of its step fs) while shifting it
// puts one off the grid, the scaling is what the model meant. Otherwise
// the shift stands.
func gridScale(lines []fileLine, old []string, nw string, w window, whole bool, fs int) (indentMap, bool) {
	if !plausibleSteps[fs] {
		return indentMap{}, false
	}
	budget := len(old) + 1
	_, pairs, ok := windowPairs(lines[w.line:w.line+len(old)], old, &budget)
	if !ok {
		return indentMap{}, false
	}
	k := 0
	for _, p := range pairs {
		if strings.Trim(p.old, " ") != "" || strings.Trim(p.file, " ") != "" || p.old == "" || len(p.file)%len(p.old) != 0 {
			return indentMap{}, false
		}
		if r := len(p.file) / len(p.old); k == 0 || k == r {
			k = r
		} else {
			return indentMap{}, false
		}
	}
	if k < 2 {
		return indentMap{}, false
	}
	m := indentMap{oc: ' ', fc: ' ', num: k, den: 1, unit: fs / gcd(fs, k)}
	onGrid := func(s string, first bool) bool {
		for i, l := range strings.Split(s, "\n") {
			if (i == 0 && !first) || isBlank(l) {
				continue
			}
			if ind, _ := splitIndent(l); len(ind)%fs != 0 {
				return false
			}
		}
		return true
	}
	// As replaceWindows would apply each: the shift re-indents the first
	// line only when old_string's first line was matched whole.
	shifted, err1 := shiftLines(nw, w.shift, w.firstWhole)
	scaled, err2 := remapLines(nw, m, whole, "")
	if err2 != nil || !onGrid(scaled, whole) || (err1 == nil && onGrid(shifted, w.firstWhole)) {
		return indentMap{}, false
	}
	return m, true
}

// tabIndented reports whether the indented lines of old and new (the
// first excepted unless whole) are indented with tabs only, and some are.
func tabIndented(old []string, nw string, whole bool) bool {
	some := false
	for _, ls := range [][]string{old, strings.Split(nw, "\n")} {
		for i, l := range ls {
			if (i == 0 && !whole) || isBlank(l) {
				continue
			}
			ind, _ := splitIndent(l)
			if strings.Trim(ind, "\t") != "" {
				return false
			}
			some = some || ind != ""
		}
	}
	return some
}

// firstWhole reports whether new_string's first line is re-indented: when
// old_string's first line was matched from its line start, or is blank and
// the match starts at a line start (new_string's first line then starts
// there too).
func firstWhole(old []string, w window, lines []fileLine) bool {
	return w.firstWhole || (isBlank(old[0]) && w.start == lines[w.line].start)
}
