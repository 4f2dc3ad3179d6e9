package text

import (
	"strconv"
	"strings"
)

// Clip returns s as one line for a human-facing summary (progress messages,
// tool listings, code action titles): runs of white space, line breaks
// included, become one space, and a result longer than max bytes is cut on
// a rune boundary and ends with "…". It never splits a UTF-8 sequence, so
// the result stays valid JSON text.
func Clip(s string, max int) string {
	if !oneLineASCII(s) {
		s = strings.Join(strings.Fields(s), " ")
	}
	if len(s) <= max {
		return s
	}
	cut := max
	for cut > 0 && s[cut]&0xC0 == 0x80 { // continuation byte
		cut--
	}
	return s[:cut] + "…"
}

// oneLineASCII reports whether s is ASCII without white space other than
// single inner spaces: what Clip's normalizing would leave unchanged. Code
// action titles are built from diagnostics on every request; most are
// already this.
func oneLineASCII(s string) bool {
	if s == "" || s[0] == ' ' || s[len(s)-1] == ' ' {
		return s == ""
	}
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c >= 0x80, c == '\t', c == '\n', c == '\v', c == '\f', c == '\r':
			return false
		case c == ' ' && s[i-1] == ' ':
			return false
		}
	}
	return true
}

// FirstLine returns the first line of s, trimmed of surrounding space: what a
// one-line summary of a multi-line message or description should show.
func FirstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = strings.TrimSpace(s[:i])
	}
	return s
}

// Headline is the first meaningful line of a Markdown text (a model's plan
// or answer) for a title: heading, quote and emphasis markers go, and a
// heading or label that only names the kind of text ("## Plan", "Plan:",
// "**Summary**") is passed over for the line after it, as it tells the
// user nothing.
func Headline(s string) string {
	first := ""
	for line := range strings.Lines(s) {
		l := strings.TrimSpace(line)
		heading := strings.HasPrefix(l, "#") || (len(l) > 4 && strings.HasPrefix(l, "**") && strings.HasSuffix(l, "**"))
		l = strings.TrimSpace(strings.TrimLeft(l, "#>"))
		l = strings.TrimSpace(strings.Trim(l, "*_"))
		if l == "" || strings.Trim(l, "-=*_`~ ") == "" || strings.HasPrefix(l, "```") {
			continue
		}
		if first == "" {
			first = l
		}
		if (heading || strings.HasSuffix(l, ":")) && genericHeading[strings.ToLower(strings.TrimRight(l, ": "))] {
			continue
		}
		return l
	}
	return first
}

// genericHeading are headings models open a plan or an answer with.
var genericHeading = map[string]bool{
	"plan": true, "the plan": true, "proposed plan": true, "implementation plan": true, "my plan": true,
	"summary": true, "overview": true, "steps": true, "approach": true, "changes": true, "answer": true,
}

// FirstOf names the first max of n items for people, comma-separated, then
// "and K more": a message names a few files (or keys) and counts the rest.
// name(i) gives item i; it is called for the named ones only.
func FirstOf(n, max int, name func(i int) string) []string {
	out := make([]string, 0, min(n, max)+1)
	for i := 0; i < n && i < max; i++ {
		out = append(out, name(i))
	}
	if n > max {
		out = append(out, "and "+strconv.Itoa(n-max)+" more")
	}
	return out
}

// Plural is "1 file" or "n files": what, with an s past one.
func Plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return strconv.Itoa(n) + " " + what + "s"
}

// Lines returns n lines of s from line first (0-based), line breaks kept;
// "" when s has fewer than first+1 lines. The last line may lack its
// break.
func Lines(s string, first, n int) string {
	off := 0
	for range first {
		i := strings.IndexByte(s[off:], '\n')
		if i < 0 {
			return ""
		}
		off += i + 1
	}
	end := off
	for k := 0; k < n && end < len(s); k++ {
		i := strings.IndexByte(s[end:], '\n')
		if i < 0 {
			end = len(s)
			break
		}
		end += i + 1
	}
	return s[off:end]
}
