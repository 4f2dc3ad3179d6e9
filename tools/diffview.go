package tools

import (
	"fmt"
	"strings"

	"github.com/aymanbagabas/go-udiff"
)

// Bounds of the diffs shown to the model.
const (
	diffContext    = 2   // unchanged lines around each change
	diffMaxLine    = 300 // characters per shown line
	resultMaxLines = 80  // diff lines in an edit result
)

// numberedDiff renders the change from before to after as compact hunks
// with line numbers (old numbers on "-" lines, new numbers on "+" and
// context lines), at most maxLines lines. complete is false when it had to
// cut, so callers can say so (and not treat the diff as a full read).
//
// Only the middle that differs is diffed: the common prefix and suffix are
// skipped first, so a small edit to a large file stays cheap.
func numberedDiff(before, after string, maxLines int) (out string, complete bool) {
	d := renderDiff(before, after, maxLines)
	return d.text, d.complete
}

// renderedDiff is numberedDiff's output plus line counts over the whole
// change (not just the shown part).
type renderedDiff struct {
	text           string
	complete       bool
	added, removed int
}

func renderDiff(before, after string, maxLines int) renderedDiff {
	if before == after {
		return renderedDiff{complete: true}
	}
	pre, suf := commonLineAffixes(before, after)
	firstLine := strings.Count(before[:pre], "\n") // lines skipped, both sides
	mb, ma := before[pre:len(before)-suf], after[pre:len(after)-suf]
	u, err := udiff.ToUnifiedDiff("", "", mb, udiff.Lines(mb, ma), diffContext)
	if err != nil { // cannot happen: the edits come from Lines
		return renderedDiff{text: fmt.Sprintf("(diff unavailable: %v)", err)}
	}
	var b strings.Builder
	d := renderedDiff{complete: true}
	n := 0
	emit := func(format string, args ...any) {
		if n >= maxLines {
			d.complete = false
			return
		}
		fmt.Fprintf(&b, format, args...)
		n++
	}
	for _, h := range u.Hunks {
		oldN, newN := h.FromLine+firstLine, h.ToLine+firstLine
		emit("@@ line %d @@\n", newN)
		for _, l := range h.Lines {
			content := cutLine(strings.TrimRight(l.Content, "\r\n"))
			switch l.Kind {
			case udiff.Delete:
				emit("-%d\t%s\n", oldN, content)
				oldN++
				d.removed++
			case udiff.Insert:
				emit("+%d\t%s\n", newN, content)
				newN++
				d.added++
			default:
				emit(" %d\t%s\n", newN, content)
				oldN++
				newN++
			}
		}
	}
	d.text = b.String()
	return d
}

// cutLine shortens a line for display, marking the cut.
func cutLine(s string) string {
	if len(s) <= diffMaxLine {
		return s
	}
	cut := diffMaxLine
	for cut > 0 && !runeStart(s[cut]) {
		cut--
	}
	return s[:cut] + fmt.Sprintf("… [%d more chars]", len(s)-cut)
}

func runeStart(b byte) bool { return b&0xC0 != 0x80 }

// commonLineAffixes returns the byte lengths of the common prefix and
// suffix of a and b made of whole lines, minus diffContext lines each so
// the diff still shows context.
func commonLineAffixes(a, b string) (prefix, suffix int) {
	n := min(len(a), len(b))
	for prefix < n && a[prefix] == b[prefix] {
		prefix++
	}
	prefix = strings.LastIndexByte(a[:prefix], '\n') + 1
	for range diffContext {
		if prefix == 0 {
			break
		}
		prefix = strings.LastIndexByte(a[:prefix-1], '\n') + 1
	}
	m := n - prefix
	for suffix < m && a[len(a)-1-suffix] == b[len(b)-1-suffix] {
		suffix++
	}
	// The suffix must start at a line start in both texts: move it forward
	// past its first line break otherwise.
	for suffix > 0 {
		ia, ib := len(a)-suffix, len(b)-suffix
		if (ia == 0 || a[ia-1] == '\n') && (ib == 0 || b[ib-1] == '\n') {
			break
		}
		i := strings.IndexByte(a[ia:], '\n')
		if i < 0 {
			suffix = 0
			break
		}
		suffix -= i + 1
	}
	for range diffContext {
		if suffix == 0 {
			break
		}
		i := strings.IndexByte(a[len(a)-suffix:], '\n')
		if i < 0 || i+1 >= suffix {
			suffix = 0
			break
		}
		suffix -= i + 1
	}
	return prefix, suffix
}
