package proposal

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/agentls/agentls/internal/safetext"
)

// How a hunk is told to a person, in every face's words: a preview
// diagnostic's message (HunkMessage) and a hover's Markdown diff
// (HunkMarkdown). Both are bounded, so a 10 MB one-line proposal is a few
// kilobytes, ending in "… N more characters"; clients that render
// proposals themselves get the whole text from the store.

// HunkMarkdown is hunks as Markdown, separated by rules: for each a
// title line, the whole change as a fenced diff, and how to decide.
func HunkMarkdown(hunks []Hunk) string {
	var b strings.Builder
	for i, h := range hunks {
		if i > 0 {
			b.WriteString("\n---\n\n")
		}
		writeHunkMarkdown(&b, h)
	}
	return b.String()
}

func writeHunkMarkdown(b *strings.Builder, h Hunk) {
	switch {
	case h.Status == StatusConflicted:
		fmt.Fprintf(b, "**agentls: conflicted proposal** (%s): %s\n\n", Origin(h), h.Reason)
	case h.Source != "":
		fmt.Fprintf(b, "**agentls: %s**\n\n", Origin(h))
	default:
		fmt.Fprintf(b, "**agentls: proposed change** (%s)\n\n", Origin(h))
	}
	old, neu := hunkLines(h)
	var diff strings.Builder
	fmt.Fprintf(&diff, "@@ -%d,%d +%d,%d @@\n", h.Range.Start.Line+1, len(old), h.Range.Start.Line+1, len(neu))
	writeBoundedDiff(&diff, old, neu)
	fence := "```"
	for strings.Contains(diff.String(), fence) {
		fence += "`"
	}
	b.WriteString(fence + "diff\n" + diff.String() + fence + "\n\n")
	if h.LastError != "" {
		fmt.Fprintf(b, "Last accept failed: %s\n\n", h.LastError)
	}
	if h.Status == StatusConflicted {
		b.WriteString("The file changed under this hunk, so it cannot be accepted: reject it (code action *Agent: Reject change*) or ask the agent again.\n")
		return
	}
	fmt.Fprintf(b, "Code actions: *Agent: Accept %[1]s* / *Agent: Reject %[1]s*.\n", Noun(h))
}

// Origin names where a hunk comes from for a person: "run <id>" for an
// agent run, the source in words ("next edit") for a suggestion, whose
// run id (next-edit-3) the user never started nor needs.
func Origin(h Hunk) string {
	if h.Source != "" {
		return strings.ReplaceAll(h.Source, "-", " ")
	}
	return "run " + h.RunID
}

// Noun is what the accept and reject actions call a hunk: "change", or
// the suggestion's kind ("next edit"), so a key or menu entry that takes
// a suggestion says so.
func Noun(h Hunk) string {
	if h.Source != "" {
		return Origin(h)
	}
	return "change"
}

// writeBoundedDiff writes old as "-" lines and neu as "+" lines, each
// bounded, stopping with a count once maxHoverDiffBytes are written.
func writeBoundedDiff(diff *strings.Builder, old, neu []string) {
	shown := 0
	for _, part := range []struct {
		sign  string
		lines []string
	}{{"-", old}, {"+", neu}} {
		for _, l := range part.lines {
			if diff.Len() >= maxHoverDiffBytes {
				fmt.Fprintf(diff, "… %d more lines (the hover shows at most %d KB of a change)\n", len(old)+len(neu)-shown, maxHoverDiffBytes>>10)
				return
			}
			diff.WriteString(part.sign + safetext.Bound(l, maxHoverLineBytes) + "\n")
			shown++
		}
	}
}

// Bounds of what a preview shows.
const (
	maxMessageLines     = 20       // diff lines of a diagnostic message
	maxMessageBytes     = 4 << 10  // a whole diagnostic message
	MaxMessageLineBytes = 1 << 10  // one line of it
	maxHoverDiffBytes   = 16 << 10 // the diff of one hunk in a hover
	maxHoverLineBytes   = 2 << 10  // one line of it
)

// HunkMessage is a preview diagnostic's message: the change, compact and
// exact. A one-line replacement is one line (nvim and Helix show only a
// diagnostic's first line inline); anything else is a header and a small
// diff. Conflicted hunks say why first. Lines and the whole message are
// bounded (MaxMessageLineBytes, maxMessageBytes).
func HunkMessage(h Hunk) string {
	return safetext.Bound(hunkMessageLines(h), maxMessageBytes)
}

func hunkMessageLines(h Hunk) string {
	old, neu := hunkLines(h)
	var b strings.Builder
	if h.Status == StatusConflicted {
		fmt.Fprintf(&b, "Conflicted agent proposal (%s); reject it or ask again.\n", h.Reason)
	}
	// A suggestion says so first: the user did not ask an agent for it.
	who := "Agent proposes"
	if h.Source != "" {
		o := Origin(h)
		who = strings.ToUpper(o[:1]) + o[1:] + " suggests" // "Next edit suggests"
	}
	if len(old) == 1 && len(neu) == 1 {
		o, n := trimCommonIndent(old[0], neu[0])
		fmt.Fprintf(&b, "%s: %s   (replacing: %s)", who, safetext.Bound(n, MaxMessageLineBytes), safetext.Bound(o, MaxMessageLineBytes))
		return b.String()
	}
	switch {
	case len(old) == 0:
		fmt.Fprintf(&b, "%s inserting %s:", who, linesOf(len(neu)))
	case len(neu) == 0:
		fmt.Fprintf(&b, "%s deleting %s:", who, linesOf(len(old)))
	default:
		fmt.Fprintf(&b, "%s replacing %s with %d:", who, linesOf(len(old)), len(neu))
	}
	n := 0
	for _, part := range []struct {
		sign  string
		lines []string
	}{{"- ", old}, {"+ ", neu}} {
		for _, l := range part.lines {
			if n == maxMessageLines {
				fmt.Fprintf(&b, "\n… %d more lines (hover shows the whole change)", len(old)+len(neu)-n)
				return b.String()
			}
			b.WriteString("\n" + part.sign + safetext.Bound(l, MaxMessageLineBytes))
			n++
		}
	}
	return b.String()
}

// hunkLines splits a hunk's old and new text into lines (without their
// "\n"). When the two would read the same (the change is in line endings,
// trailing blanks or the final newline), every line is shown quoted, so
// the difference is visible.
func hunkLines(h Hunk) (old, neu []string) {
	old, neu = splitLines(h.OldText), splitLines(h.NewText)
	if h.OldText != h.NewText && sameLines(old, neu) {
		return quoteLines(h.OldText), quoteLines(h.NewText)
	}
	return old, neu
}

func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(s, "\n"), "\n")
}

func sameLines(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if strings.TrimRight(a[i], " \t\r") != strings.TrimRight(b[i], " \t\r") {
			return false
		}
	}
	return true
}

// quoteLines splits s after each "\n" and quotes each piece, so "\r",
// trailing blanks and a missing final newline show.
func quoteLines(s string) []string {
	var out []string
	for s != "" {
		i := strings.IndexByte(s, '\n')
		if i < 0 {
			out = append(out, strconv.Quote(s))
			break
		}
		out = append(out, strconv.Quote(s[:i+1]))
		s = s[i+1:]
	}
	return out
}

// trimCommonIndent drops the leading whitespace two lines share, so a
// one-line message is not pushed right by the code's indentation; a change
// of indentation keeps it visible.
func trimCommonIndent(a, b string) (string, string) {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] && (a[i] == ' ' || a[i] == '\t') {
		i++
	}
	return a[i:], b[i:]
}

// linesOf is "1 line" or "n lines".
func linesOf(n int) string {
	if n == 1 {
		return "1 line"
	}
	return strconv.Itoa(n) + " lines"
}
