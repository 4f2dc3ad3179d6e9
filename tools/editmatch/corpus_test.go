package editmatch

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"
)

// The ladder is tested on a generated corpus: code-like files (tabs, spaces,
// CRLF, trailing whitespace, repeated "}" lines, near-duplicate lines), a
// region picked in each, and an old_string copied from it with the kinds of
// drift models produce. The generator knows the one right answer, so every
// accepted edit is checked to land exactly there (tabs written as spaces
// included), and the ambiguous cases are checked to be refused. The
// real-file corpus is in realcorpus_test.go.

// drift kinds applied to old_string and new_string.
const (
	driftNone = iota
	driftEOL
	driftTrailing
	driftIndentAdd
	driftIndentRemove
	driftTabsToSpaces
	driftAmbiguous     // a whitespace-variant copy of the region exists
	driftNearDuplicate // a copy differing in one character exists
	driftKinds
)

var driftNames = [...]string{"none", "eol", "trailing", "indent+", "indent-", "tabs→spaces", "ambiguous", "near-duplicate"}

// scenario is one generated edit with its oracle.
type scenario struct {
	text, old, new string
	want           string // expected text when the edit must be accepted
	mustAccept     bool
	mustRefuse     bool
	eol            string // the file's uniform EOL, or "" when mixed
	kind           int
}

type genLine struct {
	indent, content, trail, eol string
}

func (l genLine) String() string { return l.indent + l.content + l.trail + l.eol }

// genFile makes a file of n code-like lines.
func genFile(r *rand.Rand, n int) ([]genLine, string) {
	eolStyle := r.IntN(3) // 0 LF, 1 CRLF, 2 mixed
	unit := []string{"\t", "  ", "    "}[r.IntN(3)]
	mixedIndent := r.IntN(4) == 0
	var lines []genLine
	level := 0
	for i := range n {
		var l genLine
		switch k := r.IntN(10); {
		case k == 0 && level > 0:
			level--
			l.content = "}"
		case k == 1:
			l.content = fmt.Sprintf("if v%d > %d {", i, r.IntN(100))
		case k == 2:
			l.content = ""
		case k == 3:
			l.content = fmt.Sprintf("// note %d: 世界 😀 %d", i, r.IntN(9))
		default:
			l.content = fmt.Sprintf("v%d := call(%d, %q)", i, i, []string{"a", "b", "héllo"}[r.IntN(3)])
		}
		u := unit
		if mixedIndent && r.IntN(3) == 0 {
			u = []string{"\t", "  ", "    "}[r.IntN(3)]
		}
		if l.content != "" {
			l.indent = strings.Repeat(u, level)
		}
		if strings.HasSuffix(l.content, "{") {
			level++
		}
		if r.IntN(6) == 0 {
			l.trail = []string{" ", "  ", "\t"}[r.IntN(3)]
		}
		switch eolStyle {
		case 0:
			l.eol = "\n"
		case 1:
			l.eol = "\r\n"
		default:
			l.eol = []string{"\n", "\r\n"}[r.IntN(2)]
		}
		lines = append(lines, l)
	}
	if r.IntN(4) == 0 {
		lines[len(lines)-1].eol = "" // no final newline
	}
	return lines, []string{"\n", "\r\n", ""}[eolStyle]
}

func joinGen(lines []genLine) string {
	var b strings.Builder
	for _, l := range lines {
		b.WriteString(l.String())
	}
	return b.String()
}

// genScenario builds one case; ok is false when the random region is not
// usable for the drift kind (the caller draws again).
func genScenario(r *rand.Rand, kind int) (scenario, bool) {
	lines, fileEOL := genFile(r, 8+r.IntN(40))
	k := 1 + r.IntN(4)
	a := r.IntN(len(lines) - k + 1)
	region := lines[a : a+k]
	unique := false // a line with a unique token in the region?
	for _, l := range region {
		if strings.HasPrefix(l.content, "v") || strings.HasPrefix(l.content, "if v") || strings.HasPrefix(l.content, "// note") {
			unique = true
		}
	}
	if !unique {
		return scenario{}, false
	}
	// Where the region starts and ends inside its lines.
	startMid := r.IntN(2) == 0 // start after the first line's indentation
	endMode := r.IntN(3)       // 0 content end, 1 after EOL, 2 mid-line
	last := region[k-1]
	if endMode == 1 && last.eol == "" {
		endMode = 0
	}
	// A mid-line end keeps the line's unique number and the character after
	// it ("v1" alone would also match "v15").
	tokenEnd := strings.IndexAny(last.content, "0123456789")
	if tokenEnd >= 0 {
		tokenEnd += len(last.content[tokenEnd:]) - len(strings.TrimLeft(last.content[tokenEnd:], "0123456789")) + 1
	}
	if endMode == 2 && (tokenEnd < 0 || tokenEnd >= len(last.content)) {
		endMode = 0
	}
	cut := 0
	if endMode == 2 {
		cut = tokenEnd + r.IntN(len(last.content)-tokenEnd)
		for !utf8.RuneStart(last.content[cut]) {
			cut--
		}
	}
	// Old text as it is in the file, line by line: indentation, content.
	type oline struct{ indent, content string }
	var olds []oline
	for i, l := range region {
		ol := oline{indent: l.indent, content: l.content + l.trail}
		if i == 0 && startMid {
			ol.indent = ""
		}
		if i == k-1 {
			switch endMode {
			case 0:
				ol.content = l.content + l.trail
			case 2:
				ol.content = l.content[:cut]
			}
		}
		olds = append(olds, ol)
	}
	// new_string in the file's conventions: region indentation, marker.
	baseIndent := ""
	for i, l := range region {
		if (i > 0 || !startMid) && l.content != "" {
			baseIndent = l.indent
			break
		}
	}
	onlyFirst := true // old_string's lines after the first are all blank
	for i := 1; i < k; i++ {
		if region[i].content != "" {
			onlyFirst = false
		}
	}
	if startMid && onlyFirst {
		// Added lines of a match starting after the indentation take the
		// line's indentation (written here as the file has it).
		baseIndent = region[0].indent
	}
	type nline struct{ indent, content string }
	nk := 1 + r.IntN(3)
	var news []nline
	for i := range nk {
		nl := nline{indent: baseIndent, content: fmt.Sprintf("NEW%d_%d()", i, r.IntN(1000))}
		if i == 0 && startMid {
			nl.indent = ""
		}
		news = append(news, nl)
	}
	eolAt := func(i int) string {
		if region[i].eol != "" {
			return region[i].eol
		}
		if fileEOL != "" {
			return fileEOL
		}
		return "\n"
	}
	// Render the truth (file conventions) and the drifted versions.
	renderOld := func(indentOf func(int, string) string, eol func(int) string, trail func(int, string) string) string {
		var b strings.Builder
		for i, ol := range olds {
			b.WriteString(indentOf(i, ol.indent))
			b.WriteString(trail(i, ol.content))
			if i < k-1 || endMode == 1 {
				b.WriteString(eol(i))
			}
		}
		return b.String()
	}
	renderNew := func(indentOf func(int, string) string, eol func(int) string) string {
		var b strings.Builder
		for i, nl := range news {
			b.WriteString(indentOf(i, nl.indent))
			b.WriteString(nl.content)
			if i < nk-1 || endMode == 1 {
				b.WriteString(eol(i % k))
			}
		}
		return b.String()
	}
	same := func(_ int, s string) string { return s }
	fileEOLAt := func(i int) string { return eolAt(i) }
	text := joinGen(lines)
	regionStart := 0
	for _, l := range lines[:a] {
		regionStart += len(l.String())
	}
	s := scenario{kind: kind, eol: fileEOL}
	oldTrue := renderOld(same, fileEOLAt, same)
	// Locate the region's exact span in the text.
	start := regionStart
	if startMid {
		start += len(region[0].indent)
	}
	end := start + len(oldTrue)
	if text[start:end] != oldTrue {
		panic(fmt.Sprintf("generator bug: %q != %q", text[start:end], oldTrue))
	}
	firstEOL := eolAt(0)
	newTrue := renderNew(same, func(int) string { return firstEOL })
	s.want = text[:start] + newTrue + text[end:]
	s.old, s.new = oldTrue, newTrue
	s.mustAccept = true
	other := func(e string) string {
		if e == "\r\n" {
			return "\n"
		}
		return "\r\n"
	}
	switch kind {
	case driftNone:
	case driftEOL:
		if k == 1 && endMode != 1 {
			return scenario{}, false
		}
		e := other(firstEOL)
		s.old = renderOld(same, func(int) string { return e }, same)
		s.new = renderNew(same, func(int) string { return e })
	case driftTrailing:
		changed := false
		tr := func(i int, c string) string {
			if i == k-1 && endMode == 2 {
				return c // a mid-line end has no trailing whitespace
			}
			if i == 0 && trimRight(c) == "" {
				// Dropping all of a blank first line gives an old_string
				// that legitimately matches exactly after that whitespace.
				return c
			}
			if t := trimRight(c); t != c {
				changed = true
				return t
			}
			if r.IntN(2) == 0 {
				changed = true
				return c + " "
			}
			return c
		}
		s.old = renderOld(same, fileEOLAt, tr)
		if !changed {
			return scenario{}, false
		}
	case driftIndentAdd, driftIndentRemove:
		d := []string{"\t", "  ", "    "}[r.IntN(3)]
		if kind == driftIndentRemove {
			// Remove a common prefix of the indentation of every line whose
			// indentation is known (not the mid-line first line).
			d = ""
			first := true
			for i, ol := range olds {
				if (i == 0 && startMid) || isBlank(ol.content) {
					continue
				}
				if first {
					d, first = ol.indent, false
					continue
				}
				for !strings.HasPrefix(ol.indent, d) {
					d = d[:len(d)-1]
				}
			}
			if d == "" || (k == 1 && startMid) {
				return scenario{}, false
			}
			d = d[:1+r.IntN(len(d))]
		}
		hasKnown := false
		shift := func(i int, ind string) string {
			if i == 0 && (startMid || isBlank(olds[0].content)) {
				return ind // first line's indentation unknown: not shifted
			}
			hasKnown = true
			if kind == driftIndentAdd {
				return d + ind
			}
			return strings.TrimPrefix(ind, d)
		}
		blankAware := func(i int, ind string) string {
			if i < len(olds) && isBlank(olds[i].content) {
				return ind
			}
			return shift(i, ind)
		}
		s.old = renderOld(blankAware, fileEOLAt, same)
		s.new = renderNew(shift, func(int) string { return firstEOL })
		if !hasKnown || strings.Contains(text, s.old) {
			// No drift, or old_string still occurs verbatim: the exact rung
			// rightly takes it as written.
			return scenario{}, false
		}
	case driftTabsToSpaces:
		// The model writes 4 spaces for every tab of indentation, in
		// old_string and new_string alike; the file's tabs must come back.
		for i, ol := range olds {
			if (i > 0 || !startMid) && strings.Trim(ol.indent, "\t") != "" {
				return scenario{}, false // not tab-indented
			}
		}
		conv := func(_ int, ind string) string { return strings.ReplaceAll(ind, "\t", "    ") }
		s.old = renderOld(conv, fileEOLAt, same)
		s.new = renderNew(conv, func(int) string { return firstEOL })
		if s.old == oldTrue || strings.Contains(text, s.old) {
			return scenario{}, false
		}
	case driftAmbiguous:
		// Insert a copy of the whole region lines with a tab appended to
		// every line (so it is only equivalent), and drift old by a space.
		if startMid || endMode == 2 {
			return scenario{}, false
		}
		cp := append([]genLine(nil), region...)
		for i := range cp {
			cp[i].trail += "\t"
			if cp[i].eol == "" {
				cp[i].eol = "\n"
			}
		}
		at := r.IntN(len(lines) + 1)
		if at > a && at < a+k {
			at = a
		}
		nl := append(append(append([]genLine(nil), lines[:at]...), cp...), lines[at:]...)
		if at == len(lines) && nl[at-1].eol == "" {
			nl[at-1].eol = "\n"
		}
		s.text = joinGen(nl)
		s.old = renderOld(same, fileEOLAt, func(i int, c string) string { return trimRight(c) + " \t " })
		s.mustAccept, s.mustRefuse = false, true
		return s, true
	case driftNearDuplicate:
		// A copy of the region with one token changed: the edit must still
		// land on the original.
		cp := append([]genLine(nil), region...)
		changed := false
		for i := range cp {
			// Change the line's first digit, which old_string always covers.
			if d := strings.IndexAny(cp[i].content, "0123456789"); d >= 0 {
				cp[i].content = cp[i].content[:d] + "x" + cp[i].content[d+1:]
				changed = true
				break
			}
		}
		if !changed || lines[len(lines)-1].eol == "" {
			return scenario{}, false
		}
		nl := append(append([]genLine(nil), lines...), cp...)
		s.text = joinGen(nl)
		s.want = s.want + joinGen(cp)
		return s, true
	}
	s.text = text
	return s, true
}

// checkScenario runs one scenario and reports what went wrong, if anything.
func checkScenario(s scenario) string {
	out, err := Apply(s.text, Edit{Old: s.old, New: s.new})
	if err != nil {
		if s.mustAccept {
			return fmt.Sprintf("refused: %v", err)
		}
		return ""
	}
	if s.mustRefuse {
		return fmt.Sprintf("accepted (%v) but must be refused", out.Eq)
	}
	got, want := normTrailing(out.Text), normTrailing(s.want)
	if s.eol == "" { // mixed line endings: which one new lines get is a choice
		got, want = strings.ReplaceAll(got, "\r", ""), strings.ReplaceAll(want, "\r", "")
	}
	if got != want {
		return fmt.Sprintf("landed wrong (%v):\n got %q\nwant %q", out.Eq, out.Text, s.want)
	}
	if s.eol == "\r\n" && strings.Count(out.Text, "\n") != strings.Count(out.Text, "\r\n") {
		return "LF line ending inserted into a CRLF file"
	}
	if s.eol == "\n" && strings.Contains(out.Text, "\r") {
		return "CR inserted into an LF file"
	}
	return ""
}

// normTrailing drops trailing spaces/tabs of every line: the ladder may
// take a line's trailing whitespace into the replaced span.
func normTrailing(s string) string {
	ls := strings.Split(s, "\n")
	for i, l := range ls {
		cr := strings.HasSuffix(l, "\r")
		l = trimRight(strings.TrimSuffix(l, "\r"))
		if cr {
			l += "\r"
		}
		ls[i] = l
	}
	return strings.Join(ls, "\n")
}

func TestLadderGeneratedCorpus(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	const perKind = 400
	for kind := range driftKinds {
		accepted, refused := 0, 0
		for n := 0; n < perKind; {
			s, ok := genScenario(r, kind)
			if !ok {
				continue
			}
			n++
			if msg := checkScenario(s); msg != "" {
				t.Fatalf("%s #%d: %s\ntext %q\nold  %q\nnew  %q", driftNames[kind], n, msg, s.text, s.old, s.new)
			}
			if _, err := Apply(s.text, Edit{Old: s.old, New: s.new}); err == nil {
				accepted++
			} else {
				refused++
			}
		}
		t.Logf("%-15s accepted %3d refused %3d", driftNames[kind], accepted, refused)
	}
}
