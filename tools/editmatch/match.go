package editmatch

import (
	"fmt"
	"slices"
	"strings"
)

// Equivalence names the rung of the matching ladder an edit's old_string
// matched on. Rungs are cumulative: each also ignores what the ones before
// it ignore.
type Equivalence int

// The ladder, in the order it is tried. Nothing fuzzier is ever accepted:
// an edit that lands in the wrong place is worse than one that fails.
const (
	// MatchExact is a byte-for-byte match.
	MatchExact Equivalence = iota
	// MatchLineEndings ignores CRLF versus LF.
	MatchLineEndings
	// MatchTrailingSpace also ignores spaces and tabs at the end of lines.
	MatchTrailingSpace
	// MatchIndentShift also accepts old_string indented by a different but
	// uniform amount: one literal whitespace string D added to (or removed
	// from) the start of every non-blank line. The same D is then applied to
	// new_string. Tabs are never converted to spaces or back: that needs a
	// tab width, which is a guess, and a wrong guess mis-indents new_string.
	MatchIndentShift
	// MatchIndentMap accepts indentation written with other characters or
	// another step (4 spaces where the file has 1 tab, 2 spaces where it
	// has 4), with the mapping inferred from the matched lines themselves
	// (remap.go); new_string is re-indented with it. Lines that mix both
	// characters (some of a line's tabs written as 4 spaces) are read
	// through one mapping per indentation unit (inferMixed).
	MatchIndentMap
	// MatchTypography accepts typographic characters (curly quotes,
	// dashes, non-breaking spaces) and inner whitespace written
	// differently; indentation must be exact (normalize.go). The file's
	// own characters are kept wherever the model did not change the text.
	MatchTypography
)

// String is the phrase used in tool results ("matched after ignoring ...").
func (e Equivalence) String() string {
	switch e {
	case MatchExact:
		return "exact"
	case MatchLineEndings:
		return "line endings (CRLF/LF)"
	case MatchTrailingSpace:
		return "trailing whitespace"
	case MatchIndentShift:
		return "uniform indentation shift"
	case MatchIndentMap:
		return "indentation characters"
	case MatchTypography:
		return "typographic characters and inner whitespace"
	}
	return fmt.Sprintf("Equivalence(%d)", int(e))
}

// Edit is one old_string → new_string replacement.
type Edit struct {
	Old, New   string
	ReplaceAll bool
}

// Outcome describes a successful replacement.
type Outcome struct {
	Text  string      // the whole new text
	Count int         // replacements made
	Eq    Equivalence // rung that matched
	Line  int         // 1-based line of the first replacement in the old text
	Shift string      // MatchIndentShift, MatchIndentMap: the shift or mapping used
}

// Note explains a match that was not exact, for the tool result ("" when
// there is nothing to say), so the model learns what the file really
// looks like.
func (o Outcome) Note() string {
	switch o.Eq {
	case MatchExact:
		return ""
	case MatchIndentShift:
		return fmt.Sprintf("old_string matched at line %d with a uniform indentation shift (%s); new_string was shifted the same way", o.Line, o.Shift)
	case MatchIndentMap:
		return fmt.Sprintf("old_string matched at line %d with its indentation written differently (%s); new_string was re-indented the same way", o.Line, o.Shift)
	case MatchTypography:
		return fmt.Sprintf("old_string matched at line %d only after ignoring %s; the file's own characters were kept where new_string does not change the text", o.Line, o.Eq)
	}
	return fmt.Sprintf("old_string matched at line %d only after ignoring %s", o.Line, o.Eq)
}

// Refusal is a refusal the model can act on (not found, ambiguous...).
type Refusal struct{ msg string }

func (e *Refusal) Error() string { return e.msg }

func refusef(format string, args ...any) error {
	return &Refusal{msg: fmt.Sprintf(format, args...)}
}

// maxListedLines bounds the candidate line numbers listed in a refusal;
// past it the count is still exact up to maxCounted.
const maxListedLines = 50

// Apply performs one edit on text with the matching ladder. It returns a
// *Refusal for anything the model should fix; text is never touched on
// failure.
func Apply(text string, e Edit) (Outcome, error) {
	if e.Old == e.New {
		return Outcome{}, refusef("old_string and new_string are identical; nothing to change")
	}
	if e.Old == "" {
		return Outcome{}, refusef("old_string is empty; copy the exact text to replace (an empty old_string only creates a file that does not exist yet)")
	}
	if out, ok, err := exactEdit(text, e); ok || err != nil {
		return out, err
	}
	lines := splitFileLines(text)
	oldLines := splitOldLines(e.Old)
	for eq := MatchLineEndings; eq <= MatchTypography; eq++ {
		if eq == MatchLineEndings && len(oldLines) == 1 {
			continue // no line ending in old_string: this rung adds nothing
		}
		limit := maxListedLines
		if e.ReplaceAll {
			limit = -1
		}
		var cands []window
		var err error
		switch eq {
		case MatchIndentMap:
			if e.ReplaceAll {
				continue
			}
			var ms []indentMap
			cands, ms, err = findMapped(lines, oldLines, limit)
			cands, err = convertible(cands, ms, e, err, lines)
		case MatchTypography:
			if e.ReplaceAll {
				continue
			}
			cands, err = findNormalized(lines, oldLines, limit)
		default:
			cands, err = findWindows(lines, oldLines, eq, limit)
		}
		if err != nil {
			return Outcome{}, err
		}
		if len(cands) == 0 {
			continue
		}
		if e.ReplaceAll && eq > MatchLineEndings {
			return Outcome{}, refusef("old_string was found only after ignoring %s, and replace_all needs an exact match (or one differing only in line endings); copy the text exactly", eq)
		}
		if eq == MatchIndentShift && !e.ReplaceAll {
			// The indentation-mapping rung is another reading of the same
			// drift: a window it finds elsewhere makes the shift ambiguous
			// ("    }" is "}" shifted, or "\t}" written with spaces).
			mw, ms, merr := findMapped(lines, oldLines, limit)
			if mw, merr = convertible(mw, ms, e, merr, lines); merr == nil {
				if all := mergeWindows(cands, mw); len(all) > 1 {
					return Outcome{}, ambiguous(all, MatchIndentShift)
				}
			}
		}
		if len(cands) > 1 && !e.ReplaceAll {
			return Outcome{}, ambiguous(cands, eq)
		}
		if eq == MatchIndentShift && !e.ReplaceAll {
			if m, ok := rescaleShift(lines, oldLines, e.New, cands[0]); ok {
				cands[0].imap = m
				return replaceWindows(text, lines, cands, e, MatchIndentMap)
			}
		}
		return replaceWindows(text, lines, cands, e, eq)
	}
	return Outcome{}, notFound(lines, oldLines)
}

// exactEdit is rung 0. ok is false when old_string does not occur at all.
func exactEdit(text string, e Edit) (Outcome, bool, error) {
	var starts []int
	for from := 0; from <= len(text); {
		i := strings.Index(text[from:], e.Old)
		if i < 0 {
			break
		}
		if s := from + i; splitsCRLF(text, s) || splitsCRLF(text, s+len(e.Old)) {
			// "\nfoo" inside "\r\nfoo" is no match: replacing it would
			// leave a lone "\r". The line-ending rung handles it.
			from = s + 1
			continue
		}
		starts = append(starts, from+i)
		if e.ReplaceAll {
			from += i + len(e.Old) // non-overlapping
		} else {
			from += i + 1 // overlapping occurrences are ambiguous too
		}
		if !e.ReplaceAll && len(starts) > maxListedLines {
			break
		}
	}
	if len(starts) == 0 {
		return Outcome{}, false, nil
	}
	if len(starts) > 1 && !e.ReplaceAll {
		lines := make([]int, 0, len(starts))
		for _, s := range starts {
			lines = append(lines, 1+strings.Count(text[:s], "\n"))
		}
		n := fmt.Sprint(len(starts))
		if len(starts) > maxListedLines {
			n = fmt.Sprintf("more than %d", maxListedLines)
		}
		return Outcome{}, true, refusef("old_string matches %s places (lines %s); include more surrounding lines to make it unique, or set replace_all to change every one", n, joinInts(lines, maxListedLines))
	}
	var b strings.Builder
	prev := 0
	for _, s := range starts {
		b.WriteString(text[prev:s])
		repl := e.New
		if onlyFirstLine(e.Old) {
			repl = indentAdded(repl, leadingIndent(text, s))
		}
		b.WriteString(AdaptEOL(repl, eolOf(text, s, s+len(e.Old))))
		prev = s + len(e.Old)
	}
	b.WriteString(text[prev:])
	return Outcome{Text: b.String(), Count: len(starts), Eq: MatchExact, Line: 1 + strings.Count(text[:starts[0]], "\n")}, true, nil
}

func ambiguous(cands []window, eq Equivalence) error {
	n := fmt.Sprint(len(cands))
	if len(cands) > maxListedLines {
		n = fmt.Sprintf("more than %d", maxListedLines)
	}
	what := eq.String()
	if eq == MatchIndentShift {
		what = "how indentation is written"
	}
	return refusef("old_string matches %s places after ignoring %s (lines %s); include more surrounding lines to make it unique", n, what, joinInts(candidateLines(cands), maxListedLines))
}

// mergeWindows is a and b in line order, without repeating a line.
func mergeWindows(a, b []window) []window {
	seen := map[int]bool{}
	var out []window
	for _, w := range append(append([]window(nil), a...), b...) {
		if !seen[w.line] {
			seen[w.line] = true
			out = append(out, w)
		}
	}
	slices.SortFunc(out, func(x, y window) int { return x.line - y.line })
	return out
}

// onlyFirstLine reports whether old_string has one line of text: no line
// break, or only blank lines after the first ("return x\n"). Its other
// lines then give no indentation for new_string's added lines.
func onlyFirstLine(old string) bool {
	_, rest, ok := strings.Cut(old, "\n")
	return !ok || strings.TrimSpace(rest) == ""
}

// leadingIndent returns the whitespace between the start of the line
// holding offset s and s, or "" when anything else precedes s there.
func leadingIndent(text string, s int) string {
	ls := strings.LastIndexByte(text[:s], '\n') + 1
	if pre := text[ls:s]; strings.TrimLeft(pre, " \t") == "" {
		return pre
	}
	return ""
}

// indentAdded indents the lines a one-line old_string's new_string adds
// when the match starts after a line's indentation: the model wrote them
// relative to old_string, which starts at column 0 for it, so they get the
// line's indentation (in Python, leaving them at column 0 changes the
// program). When every added line already carries that indentation the
// model wrote them in file terms and they are left alone.
func indentAdded(s, base string) string {
	if base == "" || !strings.Contains(s, "\n") {
		return s
	}
	parts := strings.Split(s, "\n")
	absolute := true
	for _, p := range parts[1:] {
		if !isBlank(p) && !strings.HasPrefix(p, base) {
			absolute = false
		}
	}
	if absolute {
		return s
	}
	for i := 1; i < len(parts); i++ {
		if !isBlank(parts[i]) {
			parts[i] = base + parts[i]
		}
	}
	return strings.Join(parts, "\n")
}

func joinInts(xs []int, max int) string {
	var b strings.Builder
	for i, x := range xs {
		if i == max {
			b.WriteString(", …")
			break
		}
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprint(&b, x)
	}
	return b.String()
}

// splitsCRLF reports whether offset i falls between the "\r" and "\n" of
// a CRLF line ending.
func splitsCRLF(text string, i int) bool {
	return i > 0 && i < len(text) && text[i-1] == '\r' && text[i] == '\n'
}

// eolOf returns the line ending used in text[start:end], else the file's
// dominant one; "" when the text has no line break at all.
func eolOf(text string, start, end int) string {
	region := text[start:end]
	if strings.Contains(region, "\r\n") {
		return "\r\n"
	}
	if strings.Contains(region, "\n") {
		return "\n"
	}
	return DominantEOL(text)
}

// DominantEOL is "\r\n" when most line breaks of text are CRLF, "\n" when
// most are LF, and "" when there are none.
func DominantEOL(text string) string {
	lf := strings.Count(text, "\n")
	if lf == 0 {
		return ""
	}
	if crlf := strings.Count(text, "\r\n"); crlf*2 > lf {
		return "\r\n"
	}
	return "\n"
}

// AdaptEOL rewrites the line breaks of s to eol (no change when eol is "").
func AdaptEOL(s, eol string) string {
	switch eol {
	case "\r\n":
		return strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\n", "\r\n")
	case "\n":
		return strings.ReplaceAll(s, "\r\n", "\n")
	}
	return s
}

// convertible keeps the indentation-mapped windows under whose mapping
// new_string converts exactly: a mapping that cannot express new_string is
// not what the model meant (4 spaces read as 2 tabs when new_string adds a
// line 2 spaces deeper). When none is left, the first one's conversion
// error is the refusal.
func convertible(ws []window, ms []indentMap, e Edit, err error, lines []fileLine) ([]window, error) {
	if err != nil || len(ws) == 0 {
		return nil, err
	}
	nw := strings.ReplaceAll(e.New, "\r\n", "\n")
	old := splitOldLines(e.Old)
	var out []window
	for i := range ws {
		ws[i].imap = ms[i]
	}
	for _, w := range ws {
		if _, cerr := remapLines(nw, w.imap, firstWhole(old, w, lines), ""); cerr == nil {
			out = append(out, w)
		}
	}
	if len(out) == 0 {
		where := "at line " + joinInts(candidateLines(ws), maxListedLines)
		if len(ws) > 1 {
			where = "at lines " + joinInts(candidateLines(ws), maxListedLines)
		}
		_, err := remapLines(nw, ws[0].imap, firstWhole(old, ws[0], lines), where)
		return nil, err
	}
	return out, nil
}
