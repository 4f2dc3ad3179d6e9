package editmatch

import (
	"fmt"
	"strconv"
	"strings"
)

// This file holds rungs 1–3 of the matching ladder (see Equivalence). They
// compare old_string with the file line by line. The first line of
// old_string may start in the middle of a file line (it must match that
// line's end); the last may stop in the middle of one (it must match that
// line's start); every other line is compared whole.

// fileLine is one line of the file: text[start:end] is its content, eol its
// terminator ("\n", "\r\n" or "" for the last line).
type fileLine struct {
	start, end int
	content    string
	eol        string
	no         int // 1-based line number
}

// splitFileLines splits text at "\n" (a preceding "\r" belongs to the line
// ending). A text ending in a line break has a final empty line, so a
// window can end right after that break.
func splitFileLines(text string) []fileLine {
	var out []fileLine
	start := 0
	for {
		i := strings.IndexByte(text[start:], '\n')
		if i < 0 {
			out = append(out, fileLine{start: start, end: len(text), content: text[start:], no: len(out) + 1})
			return out
		}
		end, eol := start+i, "\n"
		if end > start && text[end-1] == '\r' {
			end, eol = end-1, "\r\n"
		}
		out = append(out, fileLine{start: start, end: end, content: text[start:end], eol: eol, no: len(out) + 1})
		start += i + 1
	}
}

// splitOldLines splits old_string at "\n", dropping a "\r" before it, so
// the comparison is independent of old_string's own line endings.
func splitOldLines(s string) []string {
	parts := strings.Split(s, "\n")
	for i := range len(parts) - 1 {
		parts[i] = strings.TrimSuffix(parts[i], "\r")
	}
	return parts
}

// window is one candidate match: text[start:end] is replaced. shift is the
// indentation delta (MatchIndentShift), firstWhole whether the first line
// matched from its line start (so new_string's first line is shifted too).
type window struct {
	line       int // index of the first file line
	start, end int
	shift      indentShift
	imap       indentMap // MatchIndentMap: the inferred mapping
	firstWhole bool
}

// indentShift is a uniform indentation delta: the file has delta added to
// (add) or removed from (!add) every non-blank line of old_string.
type indentShift struct {
	set   bool
	delta string
	add   bool
}

// unify records the shift implied by one line (old indentation oi, file
// indentation fi) and reports whether it agrees with the lines before.
func (s *indentShift) unify(oi, fi string) bool {
	var d indentShift
	switch {
	case oi == fi:
		d = indentShift{set: true}
	case strings.HasSuffix(fi, oi):
		d = indentShift{set: true, delta: fi[:len(fi)-len(oi)], add: true}
	case strings.HasSuffix(oi, fi):
		d = indentShift{set: true, delta: oi[:len(oi)-len(fi)]}
	default:
		return false // e.g. tabs versus spaces
	}
	if !s.set {
		*s = d
		return true
	}
	return *s == d || (s.delta == "" && d.delta == "")
}

func trimRight(s string) string { return strings.TrimRight(s, " \t") }

// splitIndent returns the leading spaces/tabs of s and the rest.
func splitIndent(s string) (string, string) {
	rest := strings.TrimLeft(s, " \t")
	return s[:len(s)-len(rest)], rest
}

func isBlank(s string) bool { return trimRight(s) == "" }

// matchBudget bounds the line comparisons one rung may spend. Real edits
// need a tiny fraction of it; only a pathological file (thousands of
// identical lines) and a long old_string come near, and they get a refusal
// instead of a stalled run.
const matchBudget = 20_000_000

// findWindows returns the windows of lines matching old under eq, stopping
// after limit+1 of them (limit < 0: all).
func findWindows(lines []fileLine, old []string, eq Equivalence, limit int) ([]window, error) {
	n := len(old)
	var out []window
	budget := matchBudget
	for i := 0; i+n <= len(lines); i++ {
		w, ok := matchWindow(lines[i:i+n], old, eq, &budget)
		if budget < 0 {
			return nil, refusef("old_string (%d lines) is too repetitive to match safely in this file; use a shorter, distinctive old_string copied exactly", n)
		}
		if ok {
			w.line = i
			out = append(out, w)
			if limit >= 0 && len(out) > limit {
				break
			}
		}
	}
	return out, nil
}

// matchWindow checks one window; lines and old have the same length. Each
// line compared is charged to budget.
func matchWindow(lines []fileLine, old []string, eq Equivalence, budget *int) (window, bool) {
	n := len(old)
	*budget--
	if n == 1 {
		return singleLine(lines[0], old[0], eq)
	}
	var w window
	start, whole, ok := firstLine(lines[0], old[0], eq, &w.shift)
	if !ok {
		return w, false
	}
	*budget--
	end, ok := lastLine(lines[n-1], old[n-1], eq, &w.shift)
	if !ok {
		return w, false
	}
	for j := 1; j < n-1; j++ {
		*budget--
		if !wholeLine(lines[j].content, old[j], eq, &w.shift) {
			return w, false
		}
	}
	if eq == MatchIndentShift && w.shift.delta == "" {
		return w, false // no shift: the rung before would have matched
	}
	w.start, w.end, w.firstWhole = start, end, whole
	return w, true
}

// wholeLine compares a middle line.
func wholeLine(fl, ol string, eq Equivalence, sh *indentShift) bool {
	switch eq {
	case MatchLineEndings:
		return fl == ol
	case MatchTrailingSpace:
		return trimRight(fl) == trimRight(ol)
	}
	if isBlank(fl) || isBlank(ol) {
		return isBlank(fl) && isBlank(ol)
	}
	fi, fr := splitIndent(trimRight(fl))
	oi, or := splitIndent(trimRight(ol))
	return fr == or && sh.unify(oi, fi)
}

// firstLine matches old's first line against the end of a file line and
// returns where the replaced text starts.
func firstLine(l fileLine, ol string, eq Equivalence, sh *indentShift) (start int, whole, ok bool) {
	if eq == MatchIndentShift && ol != strings.TrimLeft(ol, " \t") && !isBlank(ol) {
		// An indented first line is meant from the line start, so its
		// indentation must follow the same shift as the other lines.
		return l.start, true, wholeLine(l.content, ol, eq, sh)
	}
	fl := l.content
	if eq == MatchLineEndings {
		if strings.HasSuffix(fl, ol) {
			return l.end - len(ol), false, true
		}
		return 0, false, false
	}
	tf, to := trimRight(fl), trimRight(ol)
	if !strings.HasSuffix(tf, to) {
		return 0, false, false
	}
	// A blank first line is not "whole" either: its indentation is unknown,
	// so new_string's first line is left as written.
	return l.start + len(tf) - len(to), false, true
}

// lastLine matches old's last line against the start of a file line and
// returns where the replaced text ends.
func lastLine(l fileLine, ol string, eq Equivalence, sh *indentShift) (end int, ok bool) {
	if ol == "" {
		return l.start, true // old_string ended with a line break
	}
	fl := l.content
	if eq == MatchIndentShift {
		if isBlank(ol) {
			return l.start + len(ol), strings.HasPrefix(fl, ol)
		}
		fi, fr := splitIndent(fl)
		oi, or := splitIndent(ol)
		n, ok := prefixLen(fr, or)
		if !ok || !sh.unify(oi, fi) {
			return 0, false
		}
		return l.start + len(fi) + n, true
	}
	if eq == MatchLineEndings {
		return l.start + len(ol), strings.HasPrefix(fl, ol)
	}
	n, ok := prefixLen(fl, ol)
	return l.start + n, ok
}

// prefixLen reports how much of fl old's last line ol covers: ol itself when
// it is a prefix, or the whole line when they differ only in trailing
// whitespace.
func prefixLen(fl, ol string) (int, bool) {
	if strings.HasPrefix(fl, ol) {
		return len(ol), true
	}
	if trimRight(fl) == trimRight(ol) {
		return len(fl), true
	}
	return 0, false
}

// singleLine handles an old_string without line breaks on the rungs after
// exact: trailing whitespace at the end of a line, or a line start with a
// different indentation.
func singleLine(l fileLine, ol string, eq Equivalence) (window, bool) {
	switch eq {
	case MatchTrailingSpace:
		tf, to := trimRight(l.content), trimRight(ol)
		if to == "" || !strings.HasSuffix(tf, to) || to == ol {
			// to == ol: nothing trailing to ignore; the exact rung decided.
			return window{}, false
		}
		return window{start: l.start + len(tf) - len(to), end: l.end}, true
	case MatchIndentShift:
		// Only an indented old_string can differ in indentation; it runs
		// from the line start and may stop mid-line.
		if isBlank(ol) || ol == strings.TrimLeft(ol, " \t") {
			return window{}, false
		}
		var sh indentShift
		end, ok := lastLine(l, ol, eq, &sh)
		if !ok || sh.delta == "" {
			return window{}, false
		}
		return window{start: l.start, end: end, shift: sh, firstWhole: true}, true
	}
	return window{}, false
}

// candidateLines returns the 1-based first line of each window.
func candidateLines(ws []window) []int {
	out := make([]int, len(ws))
	for i, w := range ws {
		out[i] = w.line + 1
	}
	return out
}

// replaceWindows replaces every window (non-overlapping ones only: a later
// window overlapping an earlier one is skipped) with new_string, adapted
// to the file's line endings and to the rung: shifted (MatchIndentShift),
// re-indented (MatchIndentMap), merged with the file's characters
// (MatchTypography), and with added lines indented like the line a
// one-line old_string starts in.
func replaceWindows(text string, lines []fileLine, ws []window, e Edit, eq Equivalence) (Outcome, error) {
	var b strings.Builder
	prev, count := 0, 0
	oneLine := onlyFirstLine(e.Old)
	for _, w := range ws {
		if w.start < prev {
			continue
		}
		repl := strings.ReplaceAll(e.New, "\r\n", "\n")
		var err error
		switch eq {
		case MatchIndentShift:
			repl, err = shiftLines(repl, w.shift, w.firstWhole)
		case MatchIndentMap:
			whole := firstWhole(splitOldLines(e.Old), w, lines)
			repl, err = remapLines(repl, w.imap, whole, fmt.Sprintf("at line %d", w.line+1))
		case MatchTypography:
			span := strings.ReplaceAll(text[w.start:w.end], "\r\n", "\n")
			repl = keepFileChars(span, strings.ReplaceAll(e.Old, "\r\n", "\n"), repl)
		}
		if err != nil {
			return Outcome{}, err
		}
		if oneLine && !w.firstWhole {
			repl = indentAdded(repl, leadingIndent(text, w.start))
		}
		b.WriteString(text[prev:w.start])
		b.WriteString(AdaptEOL(repl, eolOfWindow(text, lines, w)))
		prev = w.end
		count++
	}
	b.WriteString(text[prev:])
	out := Outcome{Text: b.String(), Count: count, Eq: eq, Line: ws[0].line + 1}
	switch eq {
	case MatchIndentShift:
		verb := "removed"
		if ws[0].shift.add {
			verb = "added"
		}
		out.Shift = verb + " " + describeIndent(ws[0].shift.delta)
	case MatchIndentMap:
		out.Shift = ws[0].imap.String()
	}
	return out, nil
}

// eolOfWindow is the line ending of the window's first line, falling back
// to the file's dominant one.
func eolOfWindow(text string, lines []fileLine, w window) string {
	if e := lines[w.line].eol; e != "" {
		return e
	}
	return DominantEOL(text)
}

// shiftLines applies an indentation shift to new_string (LF line breaks).
// Blank lines are left alone; the first line only when old_string's first
// line was matched from its line start.
func shiftLines(s string, sh indentShift, firstWhole bool) (string, error) {
	parts := strings.Split(s, "\n")
	for i, p := range parts {
		if (i == 0 && !firstWhole) || isBlank(p) {
			continue
		}
		if sh.add {
			parts[i] = sh.delta + p
			continue
		}
		if !strings.HasPrefix(p, sh.delta) {
			return "", refusef("old_string matched with its indentation reduced by %s, but line %d of new_string is not indented by that much, so it cannot be shifted consistently; copy the file's indentation exactly", describeIndent(sh.delta), i+1)
		}
		parts[i] = p[len(sh.delta):]
	}
	return strings.Join(parts, "\n"), nil
}

// describeIndent spells a whitespace string for the model: "4 spaces",
// "1 tab", "1 tab + 2 spaces".
func describeIndent(d string) string {
	tabs := strings.Count(d, "\t")
	spaces := len(d) - tabs
	plural := func(n int, w string) string {
		if n == 1 {
			return "1 " + w
		}
		return strconv.Itoa(n) + " " + w + "s"
	}
	switch {
	case tabs == 0:
		return plural(spaces, "space")
	case spaces == 0:
		return plural(tabs, "tab")
	}
	return plural(tabs, "tab") + " + " + plural(spaces, "space")
}
