package editmatch

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// The drift corpus on real files: edits drawn from Go and Python
// standard-library files committed under testdata/corpus (see its README),
// each with one kind of drift a model produces between its old_string and
// the file. The generator knows the intended place and the intended result,
// so the test measures what matters:
//
//   - benign drifts (the intended place is the only one the text can mean)
//     must be applied, exactly as intended;
//   - an edit may never land anywhere else (wrong-place edits);
//   - ambiguous and near-miss edits must be refused;
//   - a refusal must show the intended lines (their line numbers appear in
//     the message: the region quoted, the "also similar" list, or the list
//     of ambiguous places).
//
// Run with -v to print the figures (README, Performance).

type corpusFile struct {
	name, lang string
	text       string
	lines      []string // without line breaks
	starts     []int    // byte offset of each line
	keys       []string // looseKey of each line
}

func loadCorpus(t *testing.T) []corpusFile {
	t.Helper()
	var out []corpusFile
	for _, lang := range []string{"go", "python"} {
		ext := map[string]string{"go": ".go", "python": ".py"}[lang]
		paths, err := filepath.Glob(filepath.Join("testdata", "corpus", lang, "*"+ext))
		if err != nil || len(paths) == 0 {
			t.Fatalf("corpus files for %s missing: %v", lang, err)
		}
		for _, p := range paths {
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			f := corpusFile{name: filepath.Base(p), lang: lang, text: string(b)}
			off := 0
			for _, l := range strings.SplitAfter(f.text, "\n") {
				if l == "" {
					continue
				}
				f.starts = append(f.starts, off)
				off += len(l)
				l = strings.TrimSuffix(l, "\n")
				f.lines = append(f.lines, l)
				f.keys = append(f.keys, looseKey(l))
			}
			out = append(out, f)
		}
	}
	return out
}

// The drift kinds of the real-file corpus.
const (
	rkTabsAsSpaces  = iota // Go: 4 spaces written for each tab
	rkTabsAs2Spaces        // Go: 2 spaces written for each tab
	rkHalfIndent           // Python: 2-space steps written for 4-space ones
	rkSpacesAsTabs         // Python: a tab written for each 4 spaces
	rkQuotes               // curly quotes and dashes written for ASCII ones
	rkInnerSpace           // aligned runs of spaces written as one space
	rkMidLineAdd           // a one-line old_string after the indentation, adding lines
	rkRelative             // a nested block written from column 0 (Go: and with spaces)
	rkMixedTabs            // Go: some of some lines' leading tabs written as 4 spaces
	rkMixedSpaces          // Python: some of some lines' 4-space steps written as a tab
	rkAmbiguous            // the text occurs at several places; drifted old_string
	rkNearMiss             // one identifier misremembered
	rkDecoy                // misremembered, and a nearer decoy inserted close by
	rkKinds
)

var rkNames = [...]string{"tabs→4 spaces (Go)", "tabs→2 spaces (Go)", "4→2 spaces (Py)", "spaces→tabs (Py)", "typographic quotes", "inner whitespace", "mid-line add", "block from column 0", "mixed tabs/spaces (Go)", "mixed spaces/tabs (Py)", "ambiguous", "near-miss", "nearer decoy"}

func rkBenign(k int) bool { return k < rkAmbiguous }

// rcase is one generated edit and its oracle.
type rcase struct {
	kind     int
	file     string
	text     string
	old, new string
	want     string // benign: the intended result
	target   int    // 1-based first line of the intended region
}

// convertIndent rewrites the leading indentation of every line of s with
// f; ok is false when some line's indentation cannot be converted.
func convertIndent(s string, skipFirst bool, f func(string) (string, bool)) (string, bool) {
	parts := strings.Split(s, "\n")
	for i, p := range parts {
		if (i == 0 && skipFirst) || strings.TrimSpace(p) == "" {
			continue
		}
		ind, rest := splitIndent(p)
		c, ok := f(ind)
		if !ok {
			return "", false
		}
		parts[i] = c + rest
	}
	return strings.Join(parts, "\n"), true
}

var identRE = regexp.MustCompile(`[A-Za-z_][A-Za-z0-9_]{3,}`)

// windowsLike counts the windows of k lines that equal the k lines at a,
// line by line, after key (the first line as a suffix when startMid).
func windowsLike(f corpusFile, a, k int, startMid bool, key func(corpusFile, int) string) int {
	n := 0
	for i := 0; i+k <= len(f.lines); i++ {
		same := true
		for j := 0; j < k && same; j++ {
			if j == 0 && startMid {
				same = strings.HasSuffix(key(f, i), strings.TrimLeft(key(f, a), " \t"))
				continue
			}
			same = key(f, i+j) == key(f, a+j)
		}
		if same {
			n++
		}
	}
	return n
}

func looseOf(f corpusFile, i int) string { return f.keys[i] }

// looseUnique reports whether the k lines at a are the only window of the
// file with their loose keys: nothing else the text could mean.
func looseUnique(f corpusFile, a, k int, startMid bool) bool {
	return windowsLike(f, a, k, startMid, looseOf) == 1
}

// genReal draws one case of kind from f; ok is false when the random
// region does not suit the kind.
func genReal(r *rand.Rand, f corpusFile, kind int) (rcase, bool) {
	if (kind == rkTabsAsSpaces || kind == rkTabsAs2Spaces || kind == rkMixedTabs) && f.lang != "go" ||
		(kind == rkHalfIndent || kind == rkSpacesAsTabs || kind == rkMixedSpaces) && f.lang != "python" {
		return rcase{}, false
	}
	k := 1 + r.IntN(4)
	if kind == rkMidLineAdd {
		k = 1
	}
	a := r.IntN(len(f.lines) - k + 1)
	region := f.lines[a : a+k]
	if strings.TrimSpace(region[0]) == "" || strings.TrimSpace(region[k-1]) == "" {
		return rcase{}, false
	}
	long := false
	for _, l := range region {
		if len(strings.TrimSpace(l)) >= 8 {
			long = true
		}
	}
	if !long {
		return rcase{}, false
	}
	c := rcase{kind: kind, file: f.name, target: a + 1}
	unit := "\t"
	if f.lang == "python" {
		unit = "    "
	}
	// The region as the file has it, and new_string in file terms: one
	// line changed, one line added one level deeper.
	oldTrue := strings.Join(region, "\n")
	start, end := f.starts[a], f.starts[a+k-1]+len(region[k-1])
	startMid := kind == rkMidLineAdd || (k > 1 && kind != rkRelative && r.IntN(2) == 0)
	ind0, _ := splitIndent(region[0])
	if startMid {
		start += len(ind0)
		oldTrue = oldTrue[len(ind0):]
	}
	marker := " // edited"
	if f.lang == "python" {
		marker = " # edited"
	}
	newLines := strings.Split(oldTrue, "\n")
	newLines[len(newLines)-1] += marker
	deeper := ind0 + unit
	if startMid {
		deeper = unit // relative to the first line, which starts at column 0 for the model
	}
	if kind == rkMidLineAdd {
		newLines = append(newLines, deeper+"added_call()", "after_call()")
	} else {
		addIndent := deeper
		if startMid {
			addIndent = ind0 + unit
		}
		newLines = append(newLines[:1], append([]string{addIndent + "added_call()"}, newLines[1:]...)...)
	}
	newTrue := strings.Join(newLines, "\n")
	if kind == rkMidLineAdd {
		// The model writes the added lines relative to old_string; in the
		// file they take the line's indentation.
		c.want = f.text[:start] + indentAdded(newTrue, ind0) + f.text[end:]
	} else {
		c.want = f.text[:start] + newTrue + f.text[end:]
	}
	c.text, c.old, c.new = f.text, oldTrue, newTrue
	benignOK := func() bool {
		return strings.Count(f.text, oldTrue) == 1 && looseUnique(f, a, k, startMid) && !strings.Contains(f.text, c.old)
	}
	switch kind {
	case rkTabsAsSpaces, rkTabsAs2Spaces, rkHalfIndent, rkSpacesAsTabs:
		conv := func(ind string) (string, bool) {
			switch kind {
			case rkTabsAsSpaces, rkTabsAs2Spaces:
				if strings.Trim(ind, "\t") != "" {
					return "", false
				}
				w := map[int]int{rkTabsAsSpaces: 4, rkTabsAs2Spaces: 2}[kind]
				return strings.Repeat(" ", w*len(ind)), true
			case rkHalfIndent:
				if strings.Trim(ind, " ") != "" || len(ind)%4 != 0 {
					return "", false
				}
				return strings.Repeat(" ", len(ind)/2), true
			default:
				if strings.Trim(ind, " ") != "" || len(ind)%4 != 0 {
					return "", false
				}
				return strings.Repeat("\t", len(ind)/4), true
			}
		}
		var ok1, ok2 bool
		c.old, ok1 = convertIndent(oldTrue, startMid, conv)
		c.new, ok2 = convertIndent(newTrue, startMid, conv)
		if !ok1 || !ok2 || !benignOK() {
			return rcase{}, false
		}
		if kind == rkHalfIndent && !showsHalfStep(c.old, c.new, startMid) {
			// Every width is a multiple of 4: the text reads just as well as
			// 4-space indentation shifted by whole levels, which the ladder
			// takes. Only text that shows its 2-space step is this drift.
			return rcase{}, false
		}
	case rkMixedTabs, rkMixedSpaces:
		// The model writes some of the indentation units of some lines
		// the other way (a tab as 4 spaces, or 4 spaces as a tab), at
		// random places in the indentation: mixed lines under one
		// consistent mapping.
		from, to := "\t", "    "
		if kind == rkMixedSpaces {
			from, to = "    ", "\t"
		}
		drift := func(s string, skipFirst bool) (string, bool) {
			parts := strings.Split(s, "\n")
			changed := false
			for i, p := range parts {
				if (i == 0 && skipFirst) || strings.TrimSpace(p) == "" || r.IntN(2) == 0 {
					continue
				}
				ind, rest := splitIndent(p)
				units := strings.Count(ind, from)
				if units == 0 || strings.ReplaceAll(ind, from, "") != "" {
					continue
				}
				var b strings.Builder
				for u := range units {
					_ = u
					if r.IntN(2) == 0 {
						b.WriteString(to)
						changed = true
					} else {
						b.WriteString(from)
					}
				}
				parts[i] = b.String() + rest
			}
			return strings.Join(parts, "\n"), changed
		}
		var changed bool
		c.old, changed = drift(oldTrue, startMid)
		c.new, _ = drift(newTrue, startMid)
		if !changed || !benignOK() {
			return rcase{}, false
		}
	case rkQuotes:
		curl := func(s string) string {
			q := 0
			var b strings.Builder
			for _, ch := range s {
				switch ch {
				case '"':
					b.WriteString([]string{"“", "”"}[q%2])
					q++
				case '\'':
					b.WriteString("’")
				default:
					b.WriteRune(ch)
				}
			}
			return strings.ReplaceAll(b.String(), " - ", " – ")
		}
		c.old, c.new = curl(oldTrue), curl(newTrue)
		if c.old == oldTrue || !benignOK() {
			return rcase{}, false
		}
	case rkInnerSpace:
		collapse := func(s string) string {
			parts := strings.Split(s, "\n")
			for i, p := range parts {
				ind, rest := splitIndent(p)
				parts[i] = ind + collapseSpaces(rest)
			}
			return strings.Join(parts, "\n")
		}
		c.old, c.new = collapse(oldTrue), collapse(newTrue)
		if c.old == oldTrue || !benignOK() {
			return rcase{}, false
		}
	case rkRelative:
		// The model copies a nested block and writes it from column 0:
		// the block's common indentation dropped (Go: tabs as 4 spaces).
		base := ""
		for i, l := range region {
			if strings.TrimSpace(l) == "" {
				continue
			}
			ind, _ := splitIndent(l)
			if i == 0 || len(ind) < len(base) {
				base = ind
			}
		}
		if k < 2 || base == "" {
			return rcase{}, false
		}
		conv := func(ind string) (string, bool) {
			if !strings.HasPrefix(ind, base) {
				return "", false
			}
			rel := ind[len(base):]
			if f.lang == "go" {
				if strings.Trim(rel, "\t") != "" {
					return "", false
				}
				return strings.ReplaceAll(rel, "\t", "    "), true
			}
			return rel, strings.Trim(rel, " ") == ""
		}
		var ok1, ok2 bool
		c.old, ok1 = convertIndent(oldTrue, false, conv)
		c.new, ok2 = convertIndent(newTrue, false, conv)
		if !ok1 || !ok2 || !benignOK() {
			return rcase{}, false
		}
	case rkMidLineAdd:
		if ind0 == "" || strings.Count(f.text, oldTrue) != 1 {
			return rcase{}, false
		}
	case rkAmbiguous:
		// Text occurring at several places, written with the file's
		// indentation converted (Go: spaces; Python: tabs) or curly quotes.
		exact := func(f corpusFile, i int) string { return f.lines[i] }
		if windowsLike(f, a, k, startMid, exact) < 2 {
			return rcase{}, false // not the same text at another place
		}
		// Every unit converted, or (every other case) only some units of
		// some lines: mixed indentation must stay ambiguous too.
		partial := r.IntN(2) == 0
		conv := func(ind string) (string, bool) {
			from, to := "\t", "    "
			if f.lang != "go" {
				from, to = "    ", "\t"
			}
			if !partial {
				return strings.ReplaceAll(ind, from, to), true
			}
			n := strings.Count(ind, from)
			if n == 0 || strings.ReplaceAll(ind, from, "") != "" {
				return ind, true
			}
			k := r.IntN(n + 1)
			return strings.Repeat(to, k) + strings.Repeat(from, n-k), true
		}
		c.old, _ = convertIndent(oldTrue, startMid, conv)
		c.new, _ = convertIndent(newTrue, startMid, conv)
		if strings.Contains(f.text, c.old) {
			return rcase{}, false
		}
		c.want = ""
	case rkNearMiss, rkDecoy:
		// One identifier of one line misremembered.
		li := r.IntN(k)
		line := strings.Split(oldTrue, "\n")[li]
		ids := identRE.FindAllStringIndex(line, -1)
		if len(ids) == 0 || !looseUnique(f, a, k, startMid) {
			return rcase{}, false
		}
		id := ids[r.IntN(len(ids))]
		mutated := line[:id[0]] + "the" + strings.ToUpper(line[id[0]:id[0]+1]) + line[id[0]+1:]
		oldLines := strings.Split(oldTrue, "\n")
		oldLines[li] = mutated
		c.old = strings.Join(oldLines, "\n")
		c.want = ""
		if kind == rkDecoy {
			// A decoy right before the region: old_string with a one-letter
			// change on another line (or the same line, elsewhere), so it is
			// nearer to old_string than the intended region is.
			dl := append([]string(nil), oldLines...)
			di := r.IntN(k)
			d := dl[di]
			p := strings.LastIndexAny(d, "abcdefghijklmnopqrstuvwxyz")
			if p < 0 {
				return rcase{}, false
			}
			dl[di] = d[:p] + "q" + d[p+1:]
			if startMid {
				dl[0] = ind0 + dl[0]
			}
			decoy := strings.Join(dl, "\n") + "\n"
			at := f.starts[a]
			c.text = f.text[:at] + decoy + f.text[at:]
			c.target = a + 1 + k
		}
		if strings.Contains(c.text, c.old) {
			return rcase{}, false
		}
	}
	return c, true
}

// showsHalfStep reports whether some indented line of old or new (the
// first excepted when it starts mid-line) has a width that is not a
// multiple of 4.
func showsHalfStep(old, nw string, startMid bool) bool {
	for _, s := range []string{old, nw} {
		for i, l := range strings.Split(s, "\n") {
			if i == 0 && startMid {
				continue
			}
			if ind, _ := splitIndent(l); len(ind)%4 != 0 {
				return true
			}
		}
	}
	return false
}

// hintNames reports whether msg names line target (1-based) as the start
// of a region or a place.
func hintNames(msg string, target int) bool {
	re := regexp.MustCompile(`lines? (\d+)(?:-\d+)?|(?:, |\()(\d+)`)
	for _, m := range re.FindAllStringSubmatch(msg, -1) {
		for _, g := range m[1:] {
			if n, err := strconv.Atoi(g); err == nil && n == target {
				return true
			}
		}
	}
	return false
}

// bestIsTarget reports whether the not-found message's quoted region
// starts at target.
func bestIsTarget(msg string, target int) bool {
	return strings.Contains(msg, fmt.Sprintf("most similar text is at line %d", target)) ||
		strings.Contains(msg, fmt.Sprintf("most similar text is at lines %d-", target))
}

type rstats struct {
	n, applied, wrong, refused, hinted, best int
}

func TestDriftCorpusRealFiles(t *testing.T) {
	files := loadCorpus(t)
	r := rand.New(rand.NewPCG(14, 2026))
	const perKind = 120
	var st [rkKinds]rstats
	var benign, ambiguousNear rstats
	for kind := range rkKinds {
		s := &st[kind]
		for tries := 0; s.n < perKind && tries < 200_000; tries++ {
			f := files[r.IntN(len(files))]
			c, ok := genReal(r, f, kind)
			if !ok {
				continue
			}
			s.n++
			out, err := Apply(c.text, Edit{Old: c.old, New: c.new})
			if err != nil {
				var ref *Refusal
				if !errors.As(err, &ref) {
					t.Fatalf("%s %s: refusal is not a *Refusal: %v", rkNames[kind], c.file, err)
				}
				s.refused++
				if hintNames(err.Error(), c.target) {
					s.hinted++
				} else if testing.Verbose() {
					t.Logf("%s %s line %d: hint misses the target:\n%s\nold %q", rkNames[kind], c.file, c.target, err, c.old)
				}
				if bestIsTarget(err.Error(), c.target) {
					s.best++
				}
				if rkBenign(kind) && testing.Verbose() {
					t.Logf("%s %s line %d refused: %v\nold %q", rkNames[kind], c.file, c.target, err, c.old)
				}
				continue
			}
			if !rkBenign(kind) || out.Text != c.want {
				s.wrong++
				t.Errorf("%s %s line %d: WRONG edit (%v, %s)\nold %q\nnew %q", rkNames[kind], c.file, c.target, out.Eq, out.Note(), c.old, c.new)
				continue
			}
			s.applied++
		}
		if s.n < perKind {
			t.Fatalf("%s: only %d cases generated", rkNames[kind], s.n)
		}
		agg := &benign
		if !rkBenign(kind) {
			agg = &ambiguousNear
		}
		agg.n += s.n
		agg.applied += s.applied
		agg.wrong += s.wrong
		agg.refused += s.refused
		agg.hinted += s.hinted
		agg.best += s.best
		t.Logf("%-20s n=%3d applied %3d refused %3d wrong %d  refusals naming the intended lines %3d/%d (quoted as the most similar %d)",
			rkNames[kind], s.n, s.applied, s.refused, s.wrong, s.hinted, s.refused, s.best)
	}
	pct := func(a, b int) float64 {
		if b == 0 {
			return 100
		}
		return 100 * float64(a) / float64(b)
	}
	refusals := benign.refused + ambiguousNear.refused
	hinted := benign.hinted + ambiguousNear.hinted
	t.Logf("benign drifts applied: %d/%d (%.1f%%); wrong-place edits: %d; ambiguous and near-miss refused: %d/%d (%.1f%%); refusals showing the intended lines: %d/%d (%.1f%%)",
		benign.applied, benign.n, pct(benign.applied, benign.n), benign.wrong+ambiguousNear.wrong,
		ambiguousNear.refused, ambiguousNear.n, pct(ambiguousNear.refused, ambiguousNear.n), hinted, refusals, pct(hinted, refusals))
	if pct(benign.applied, benign.n) < 99 {
		t.Errorf("benign drifts applied %.1f%%, goal ≥ 99%%", pct(benign.applied, benign.n))
	}
	if benign.wrong+ambiguousNear.wrong != 0 {
		t.Errorf("%d wrong-place edits, goal 0", benign.wrong+ambiguousNear.wrong)
	}
	if ambiguousNear.refused != ambiguousNear.n {
		t.Errorf("ambiguous and near-miss refused %d/%d, goal 100%%", ambiguousNear.refused, ambiguousNear.n)
	}
	if pct(hinted, refusals) < 90 {
		t.Errorf("refusals showing the intended lines %.1f%%, goal ≥ 90%%", pct(hinted, refusals))
	}
}
