package editmatch

import (
	"strings"
	"unicode/utf8"
)

// This file holds the MatchTypography rung: old_string differs from the
// file only in typographic characters (curly quotes, dashes, non-breaking
// and other Unicode spaces, "…") and in the width of whitespace inside
// lines ("x  =  1" against "x = 1"). Indentation must still be exact here.
//
// A unique match is applied precisely: lines of new_string that the model
// left as they were in old_string are written with the file's own
// characters, and a changed line keeps the file's characters before and
// after the part the model changed. So a model that writes straight quotes
// for curly ones, or one space for an aligned run, does not rewrite text
// it did not mean to touch.

// typoASCII is the ASCII spelling of a typographic rune.
func typoASCII(r rune) (string, bool) {
	switch r {
	case '‘', '’', '‚', '‛', '′':
		return "'", true
	case '“', '”', '„', '‟', '″':
		return `"`, true
	case '‐', '‑', '‒', '–', '—', '―', '−':
		return "-", true
	case '…':
		return "...", true
	}
	return "", false
}

// isSpaceRune reports spaces that inner whitespace runs are made of.
func isSpaceRune(r rune) bool {
	switch r {
	case ' ', '\t', '\u00a0', '\u202f', '\u205f', '\u3000':
		return true
	}
	return r >= '\u2000' && r <= '\u200a'
}

// normLine is a line in normal form with, for every byte of s, the byte
// offset in the source it came from (offs has len(s)+1 entries; the last
// is the end of the source's content, before trailing whitespace).
type normLine struct {
	s    string
	offs []int
}

// normalize puts src in normal form: typographic runes in ASCII, every
// whitespace run as one space, trailing whitespace dropped.
func normalize(src string) normLine {
	var b strings.Builder
	offs := make([]int, 0, len(src)+1)
	end := 0
	for i := 0; i < len(src); {
		r, size := utf8.DecodeRuneInString(src[i:])
		if isSpaceRune(r) {
			j := i
			for j < len(src) {
				r2, s2 := utf8.DecodeRuneInString(src[j:])
				if !isSpaceRune(r2) {
					break
				}
				j += s2
			}
			if j < len(src) {
				b.WriteByte(' ')
				offs = append(offs, i)
			}
			i = j
			continue
		}
		if a, ok := typoASCII(r); ok {
			b.WriteString(a)
			for range len(a) {
				offs = append(offs, i)
			}
		} else {
			b.WriteString(src[i : i+size])
			for k := range size {
				offs = append(offs, i+k)
			}
		}
		i += size
		end = i
	}
	return normLine{s: b.String(), offs: append(offs, end)}
}

// normWindow matches old against lines in normal form. Indentation of
// whole lines must be equal; the first line may start mid-line (a suffix
// of the file line) and the last may stop mid-line (a prefix).
func normWindow(lines []fileLine, old []string, budget *int) (window, bool) {
	n := len(old)
	var w window
	*budget -= n
	oi0, or0 := splitIndent(old[0])
	if n == 1 {
		return w, false // single lines go through normSingle
	}
	fl0 := lines[0]
	fi0, fr0 := splitIndent(fl0.content)
	if oi0 != "" && !isBlank(old[0]) {
		if fi0 != oi0 || normalize(fr0).s != normalize(or0).s {
			return w, false
		}
		w.start, w.firstWhole = fl0.start, true
	} else {
		nf, no := normalize(fr0), normalize(or0).s
		if no == "" || !strings.HasSuffix(nf.s, no) || !boundary(nf.offs, len(nf.s)-len(no)) {
			return w, false
		}
		w.start = fl0.start + len(fi0) + nf.offs[len(nf.s)-len(no)]
	}
	for j := 1; j < n; j++ {
		fl, ol := lines[j], old[j]
		if j == n-1 {
			end, ok := normLast(fl, ol)
			if !ok {
				return w, false
			}
			w.end = end
			break
		}
		if isBlank(fl.content) || isBlank(ol) {
			if !(isBlank(fl.content) && isBlank(ol)) {
				return w, false
			}
			continue
		}
		fi, fr := splitIndent(fl.content)
		oi, or := splitIndent(ol)
		if fi != oi || normalize(fr).s != normalize(or).s {
			return w, false
		}
	}
	return w, true
}

// normLast matches old's last line against the start of a file line.
func normLast(l fileLine, ol string) (int, bool) {
	if ol == "" {
		return l.start, true
	}
	if isBlank(ol) {
		return l.start + len(ol), strings.HasPrefix(l.content, ol)
	}
	fi, fr := splitIndent(l.content)
	oi, or := splitIndent(ol)
	if fi != oi {
		return 0, false
	}
	nf, no := normalize(fr), normalize(or).s
	if !strings.HasPrefix(nf.s, no) || !boundary(nf.offs, len(no)) {
		return 0, false
	}
	if len(no) == len(nf.s) {
		return l.end, true
	}
	return l.start + len(fi) + nf.offs[len(no)], true
}

// normSingle finds a one-line old_string in one file line: from the line
// start when old is indented, else anywhere in the line. Every occurrence
// is a window, so two in one line are ambiguous.
func normSingle(l fileLine, ol string) []window {
	oi, or := splitIndent(ol)
	fi, fr := splitIndent(l.content)
	no := normalize(or).s
	if no == "" {
		return nil
	}
	nf := normalize(fr)
	base := l.start + len(fi)
	if oi != "" {
		if fi != oi || !strings.HasPrefix(nf.s, no) || !boundary(nf.offs, len(no)) {
			return nil
		}
		end := base + nf.offs[len(no)]
		if len(no) == len(nf.s) {
			end = l.end
		}
		return []window{{start: l.start, end: end, firstWhole: true}}
	}
	var out []window
	for from := 0; ; {
		i := strings.Index(nf.s[from:], no)
		if i < 0 {
			return out
		}
		s := from + i
		e := s + len(no)
		if !boundary(nf.offs, s) || !boundary(nf.offs, e) {
			from = s + 1
			continue
		}
		end := base + nf.offs[e]
		if e == len(nf.s) {
			end = l.end
		}
		out = append(out, window{start: base + nf.offs[s], end: end})
		from = s + 1
	}
}

// findNormalized returns the windows matching old in normal form
// (stopping after limit+1).
func findNormalized(lines []fileLine, old []string, limit int) ([]window, error) {
	n := len(old)
	var out []window
	budget := matchBudget
	for i := 0; i+n <= len(lines); i++ {
		if n == 1 {
			budget--
			for _, w := range normSingle(lines[i], old[0]) {
				w.line = i
				out = append(out, w)
			}
		} else if w, ok := normWindow(lines[i:i+n], old, &budget); ok {
			w.line = i
			out = append(out, w)
		}
		if budget < 0 {
			return nil, refusef("old_string (%d lines) is too repetitive to match safely in this file; use a shorter, distinctive old_string copied exactly", n)
		}
		if len(out) > limit {
			break
		}
	}
	return out, nil
}

// keepFileChars rewrites new_string so that what the model did not change
// keeps the file's characters. span is the matched file text, old and nw
// are old_string and new_string (all with LF line breaks; span has as many
// lines as old). Lines are paired by a line diff of old and nw: an
// unchanged line is the file's line; a changed line keeps the file's text
// before and after the changed part.
func keepFileChars(span, old, nw string) string {
	f := strings.Split(span, "\n")
	o := strings.Split(old, "\n")
	n := strings.Split(nw, "\n")
	if len(f) != len(o) || len(o)*len(n) > 1_000_000 {
		return nw
	}
	// LCS table over lines, from the end.
	lcs := make([][]int32, len(o)+1)
	for i := range lcs {
		lcs[i] = make([]int32, len(n)+1)
	}
	for i := len(o) - 1; i >= 0; i-- {
		for j := len(n) - 1; j >= 0; j-- {
			if o[i] == n[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	out := make([]string, 0, len(n))
	i, j := 0, 0
	var delO []int // old lines removed in the current hunk
	for j < len(n) {
		switch {
		case i < len(o) && o[i] == n[j]:
			out = append(out, f[i])
			delO = delO[:0]
			i, j = i+1, j+1
		case i < len(o) && lcs[i+1][j] >= lcs[i][j+1]:
			delO = append(delO, i)
			i++
		default:
			// Pair the inserted line with the first removed line it shares
			// most of its text with (an edited line); else it is new. The
			// indentation does not count: an added line at the same depth
			// shares it with every removed line.
			paired := false
			for x, k := range delO {
				if oc := strings.TrimLeft(o[k], " \t"); shared(oc, strings.TrimLeft(n[j], " \t"))*2 >= len(oc) && oc != "" {
					out = append(out, mergeLine(f[k], o[k], n[j]))
					delO = delO[x+1:]
					paired = true
					break
				}
			}
			if !paired {
				out = append(out, n[j])
			}
			j++
		}
	}
	return strings.Join(out, "\n")
}

// shared is the length of the common prefix plus common suffix of a and
// b (not overlapping).
func shared(a, b string) int {
	p := 0
	for p < len(a) && p < len(b) && a[p] == b[p] {
		p++
	}
	s := 0
	for s < len(a)-p && s < len(b)-p && a[len(a)-1-s] == b[len(b)-1-s] {
		s++
	}
	return p + s
}

// mergeLine is the model's changed line nw (from old line o) with the
// file's characters (line f, equal to o in normal form) kept before and
// after the change.
func mergeLine(f, o, nw string) string {
	nf, no := normalize(f), normalize(o)
	if nf.s != no.s {
		return nw
	}
	p := 0
	for p < len(o) && p < len(nw) && o[p] == nw[p] {
		p++
	}
	s := 0
	for s < len(o)-p && s < len(nw)-p && o[len(o)-1-s] == nw[len(nw)-1-s] {
		s++
	}
	// Round the prefix end down and the suffix start up to positions both
	// lines agree on.
	qp := 0
	for q := range no.offs {
		if no.offs[q] <= p && boundary(no.offs, q) && boundary(nf.offs, q) {
			qp = q
		}
	}
	qs := len(no.offs) - 1
	for q := len(no.offs) - 1; q >= qp; q-- {
		if no.offs[q] >= len(o)-s && boundary(no.offs, q) && boundary(nf.offs, q) {
			qs = q
		}
	}
	op, os := no.offs[qp], no.offs[qs]
	if qs == len(no.offs)-1 {
		os, qs = len(o), -1
	}
	fp := nf.offs[qp]
	fs := len(f)
	if qs >= 0 {
		fs = nf.offs[qs]
	}
	if op > len(nw)-(len(o)-os) || fp > fs {
		return nw
	}
	return f[:fp] + nw[op:len(nw)-(len(o)-os)] + f[fs:]
}

// boundary reports whether normal-form index q starts a new source rune
// (or is the end), so that a match starting or ending there does not cut
// a rune that normalised to several bytes ("…" to "...").
func boundary(offs []int, q int) bool {
	return q == 0 || q == len(offs)-1 || offs[q] != offs[q-1]
}
