package text

import "strings"

// Clip returns s as one line for a human-facing summary (progress messages,
// tool listings, code action titles): runs of white space, line breaks
// included, become one space, and a result longer than max bytes is cut on
// a rune boundary and ends with "…". It never splits a UTF-8 sequence, so
// the result stays valid JSON text.
func Clip(s string, max int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) <= max {
		return s
	}
	cut := max
	for cut > 0 && s[cut]&0xC0 == 0x80 { // continuation byte
		cut--
	}
	return s[:cut] + "…"
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
