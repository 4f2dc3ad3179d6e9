package editmatch

import (
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"
)

// This file builds the "not found" message: where in the file the text
// old_string was probably copied from lies, shown with line numbers, and
// what kind of difference keeps it from matching, so the model can fix the
// call in one turn.
//
// Similarity is per line over every line of old_string: a file line scores
// 1 when it equals old's line once all whitespace and typographic
// characters are ignored, else the Dice coefficient of their character
// bigrams (scaled below 1). A region's score is the mean over old's
// non-blank lines. Regions scoring close to the best are named too, so
// that a decoy more similar than the intended place never hides it.

// hintShownLines bounds the file lines quoted in a not-found message.
const hintShownLines = 12

// hintOthers bounds the further similar regions named.
const hintOthers = 4

// hintBudget bounds the line comparisons of the bigram similarity; past
// it only whitespace-insensitive equality is scored.
const hintBudget = 1_000_000

// looseKey is a line with all whitespace dropped and typographic runes in
// ASCII: lines with the same key differ only in what the ladder's rungs
// forgive or in whitespace.
func looseKey(s string) string {
	var b strings.Builder
	for _, r := range s {
		if isSpaceRune(r) || r == '\r' {
			continue
		}
		if a, ok := typoASCII(r); ok {
			b.WriteString(a)
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// bigrams returns the sorted byte bigrams of s.
func bigrams(s string) []uint16 {
	if len(s) < 2 {
		if s == "" {
			return nil
		}
		return []uint16{uint16(s[0])}
	}
	out := make([]uint16, 0, len(s)-1)
	for i := 0; i+1 < len(s); i++ {
		out = append(out, uint16(s[i])<<8|uint16(s[i+1]))
	}
	slices.Sort(out)
	return out
}

// dice is the Dice coefficient of two sorted bigram multisets.
func dice(a, b []uint16) float64 {
	if len(a)+len(b) == 0 {
		return 0
	}
	common := 0
	for i, j := 0, 0; i < len(a) && j < len(b); {
		switch {
		case a[i] == b[j]:
			common++
			i++
			j++
		case a[i] < b[j]:
			i++
		default:
			j++
		}
	}
	return 2 * float64(common) / float64(len(a)+len(b))
}

type region struct {
	line  int // 0-based first file line
	score float64
}

// similarRegions scores every window of len(old) file lines and returns
// the best first, then other windows scoring at least 60% of the best
// (not overlapping a region already taken), at most 1+hintOthers.
func similarRegions(lines []fileLine, old []string) []region {
	n := len(old)
	if n > len(lines) {
		n = len(lines)
		old = old[:n]
	}
	type oline struct {
		key string
		bg  []uint16
	}
	var olds []int // indices of non-blank old lines
	ok := make([]oline, n)
	for j, ol := range old {
		if k := looseKey(ol); k != "" {
			ok[j] = oline{key: k, bg: bigrams(k)}
			olds = append(olds, j)
		}
	}
	if len(olds) == 0 {
		return nil
	}
	fkeys := make([]string, len(lines))
	for i, l := range lines {
		fkeys[i] = looseKey(l.content)
	}
	useBigrams := len(lines)*len(olds) <= hintBudget
	var fbg [][]uint16
	if useBigrams {
		fbg = make([][]uint16, len(lines))
		for i := range lines {
			fbg[i] = bigrams(fkeys[i])
		}
	}
	sim := func(i, j int) float64 {
		if fkeys[i] == ok[j].key {
			return 1
		}
		if !useBigrams {
			return 0
		}
		return 0.95 * dice(fbg[i], ok[j].bg)
	}
	scores := make([]region, 0, len(lines)-n+1)
	for i := 0; i+n <= len(lines); i++ {
		s := 0.0
		for _, j := range olds {
			s += sim(i+j, j)
		}
		scores = append(scores, region{line: i, score: s / float64(len(olds))})
	}
	slices.SortStableFunc(scores, func(a, b region) int {
		switch {
		case a.score > b.score:
			return -1
		case a.score < b.score:
			return 1
		}
		return 0
	})
	if len(scores) == 0 || scores[0].score < 0.3 {
		return nil
	}
	out := []region{scores[0]}
	for _, r := range scores[1:] {
		if len(out) > hintOthers || r.score < 0.6*scores[0].score {
			break
		}
		if slices.ContainsFunc(out, func(o region) bool { return r.line < o.line+n && o.line < r.line+n }) {
			continue
		}
		out = append(out, r)
	}
	return out
}

// lineRange spells lines a..a+n-1 (1-based a).
func lineRange(a, n int) string {
	if n <= 1 {
		return fmt.Sprintf("line %d", a)
	}
	return fmt.Sprintf("lines %d-%d", a, a+n-1)
}

// notFound explains a miss: the most similar region with its lines
// numbered, the kinds of difference found there, and other similar
// regions.
func notFound(lines []fileLine, oldLines []string) error {
	msg := "old_string not found, even ignoring line endings, trailing and inner whitespace, how indentation is written, and typographic quotes/dashes"
	regs := similarRegions(lines, oldLines)
	if len(regs) == 0 {
		return refusef("%s, and no similar text either. Re-read the file and copy the text exactly.", msg)
	}
	n := min(len(oldLines), len(lines))
	best := regs[0]
	var b strings.Builder
	b.WriteString(msg)
	fmt.Fprintf(&b, ". The most similar text is at %s", lineRange(best.line+1, n))
	if d := describeDiff(lines[best.line:best.line+n], oldLines[:n]); d != "" {
		b.WriteString("; it differs in " + d)
	}
	b.WriteString(":\n")
	shown := n
	if shown > hintShownLines {
		shown = hintShownLines
	}
	for k := range shown {
		fmt.Fprintf(&b, "%d\t%s\n", best.line+k+1, lines[best.line+k].content)
	}
	if shown < n {
		fmt.Fprintf(&b, "[%d more lines]\n", n-shown)
	}
	if len(regs) > 1 {
		var rs []string
		for _, r := range regs[1:] {
			rs = append(rs, lineRange(r.line+1, n))
		}
		fmt.Fprintf(&b, "Also similar: %s.\n", strings.Join(rs, ", "))
	}
	b.WriteString("Copy old_string from the file exactly (read it again if unsure).")
	return refusef("%s", b.String())
}

// describeDiff names the kinds of difference between file lines and
// old_string's lines: indentation (tabs versus spaces, or width), inner
// whitespace, typographic characters, text; each with the lines (file
// numbering) where it occurs.
func describeDiff(fl []fileLine, old []string) string {
	var order []string
	details := map[string][]string{}
	add := func(kind, detail string) {
		if _, ok := details[kind]; !ok {
			order = append(order, kind)
		}
		details[kind] = append(details[kind], detail)
	}
	for j, ol := range old {
		f := fl[j].content
		if f == ol || trimRight(f) == trimRight(ol) {
			continue
		}
		no := fl[j].num()
		fi, fr := splitIndent(trimRight(f))
		oi, or := splitIndent(trimRight(ol))
		last := j == len(old)-1
		first := j == 0
		if first && oi == "" {
			// old's first line may start mid-line: compare its end only.
			if strings.HasSuffix(fr, or) {
				continue
			}
			fr = lastN(fr, len(or))
		}
		if last && strings.HasPrefix(fr, or) && fi == oi {
			continue
		}
		if fi != oi && !(first && oi == "") {
			kind := "indentation width"
			if strings.Contains(fi, "\t") != strings.Contains(oi, "\t") {
				kind = "tabs versus spaces in indentation"
			}
			add(kind, fmt.Sprintf("line %d: the file has %s, old_string %s", no, describeIndentOrNone(fi), describeIndentOrNone(oi)))
		}
		if fr == or || (last && strings.HasPrefix(fr, or)) {
			continue
		}
		nf, nol := normalize(fr).s, normalize(or).s
		if nf == nol || (last && strings.HasPrefix(nf, nol)) {
			if collapseSpaces(fr) != collapseSpaces(or) {
				add("typographic characters", fmt.Sprintf("line %d: the file has %s", no, typoChars(fr, or)))
			}
			if stripTypo(fr) != stripTypo(or) {
				add("whitespace inside lines", fmt.Sprintf("line %d", no))
			}
			continue
		}
		add("text", fmt.Sprintf("line %d", no))
	}
	var parts []string
	for _, k := range order {
		d := details[k]
		more := ""
		if len(d) > 3 {
			d, more = d[:3], "; …"
		}
		if k == "text" {
			parts = append(parts, "the text of "+strings.Join(d, ", ")+more)
			continue
		}
		parts = append(parts, k+" ("+strings.Join(d, "; ")+more+")")
	}
	return strings.Join(parts, "; ")
}

func (l fileLine) num() int { return l.no }

func lastN(s string, n int) string {
	if n >= len(s) {
		return s
	}
	i := len(s) - n
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return s[i:]
}

// collapseSpaces is s with whitespace runs as one space (typography kept).
func collapseSpaces(s string) string {
	return strings.Join(strings.FieldsFunc(s, isSpaceRune), " ")
}

// stripTypo is s with typographic runes in ASCII (whitespace kept).
func stripTypo(s string) string {
	var b strings.Builder
	for _, r := range s {
		if a, ok := typoASCII(r); ok && !isSpaceRune(r) {
			b.WriteString(a)
		} else {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// typoChars lists the typographic runes of the file line that old's line
// spells in ASCII: `“ ” (U+201C U+201D) where old_string has "`.
func typoChars(fr, or string) string {
	var runes []string
	var ascii []string
	for _, r := range fr {
		if a, ok := typoASCII(r); ok && !strings.ContainsRune(or, r) {
			s := fmt.Sprintf("%c (U+%04X)", r, r)
			if !slices.Contains(runes, s) {
				runes = append(runes, s)
			}
			if !slices.Contains(ascii, a) {
				ascii = append(ascii, a)
			}
		}
	}
	for _, r := range fr {
		if r == '\u00a0' || r == '\u202f' || (r >= '\u2000' && r <= '\u200a') {
			s := fmt.Sprintf("a non-breaking or Unicode space (U+%04X)", r)
			if !slices.Contains(runes, s) {
				runes = append(runes, s)
				ascii = append(ascii, "a plain space")
			}
		}
	}
	if len(runes) == 0 {
		return "other typographic characters"
	}
	return strings.Join(runes, ", ") + " where old_string has " + strings.Join(ascii, " ")
}
