// Package safetext makes untrusted text safe to show: text from files,
// models, MCP servers and workspace configuration reaches terminals and
// editor prompts, and raw control characters there are instructions, not
// text (ESC sequences move the cursor, recolour or rewrite what is on
// screen, OSC 52 writes the clipboard; a carriage return or a run of
// newlines pushes the real content out of view; bidi overrides show text
// in another order than it is). Every such character is shown as a visible
// escape instead (\x1b, \r, \u202e), so nothing is hidden and nothing is
// lost.
package safetext

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Text returns s with every control character escaped except the line
// breaks and tabs that give plain text its shape: "\n", "\t", and "\r"
// directly before "\n" (CRLF files). Invalid UTF-8 bytes become \xNN.
func Text(s string) string { return escape(s, true) }

// Line returns s as one line: like Text, but line breaks and tabs are
// escaped too, for names, keys and titles that must not start a new line
// of their own (an env key "A\n\n\nB" in a trust prompt).
func Line(s string) string { return escape(s, false) }

// Bound returns s cut to at most max bytes on a rune boundary, followed by
// "… N more characters" when anything was cut (N counts runes), so a
// 10 MB line shows as a few kilobytes that say how much is missing.
func Bound(s string, max int) string {
	if len(s) <= max {
		return s
	}
	cut := max
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + fmt.Sprintf("… %d more characters", utf8.RuneCountInString(s[cut:]))
}

// Unsafe reports whether r is shown escaped by Line (Text keeps "\n" and
// "\t"): C0 controls, DEL, C1 controls and the invisible bidi and
// direction marks.
func Unsafe(r rune) bool {
	switch {
	case r < 0x20 || r == 0x7f || r >= 0x80 && r <= 0x9f:
		return true
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069, r == 0x200e, r == 0x200f, r == 0x061c:
		return true
	}
	return false
}

func escape(s string, keepLines bool) string {
	if clean(s, keepLines) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size <= 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case keepLines && (r == '\n' || r == '\t' || r == '\r' && i+1 < len(s) && s[i+1] == '\n'):
			b.WriteRune(r)
		case Unsafe(r):
			writeEscape(&b, r)
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

func writeEscape(b *strings.Builder, r rune) {
	switch r {
	case '\n':
		b.WriteString(`\n`)
	case '\r':
		b.WriteString(`\r`)
	case '\t':
		b.WriteString(`\t`)
	default:
		if r < 0x80 {
			fmt.Fprintf(b, `\x%02x`, r)
		} else {
			fmt.Fprintf(b, `\u%04x`, r)
		}
	}
}

// clean reports whether s needs no escaping (the common case, checked
// without allocating).
func clean(s string, keepLines bool) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x80 {
			return cleanSlow(s[i:], keepLines)
		}
		if c < 0x20 || c == 0x7f {
			if !keepLines || !(c == '\n' || c == '\t' || c == '\r' && i+1 < len(s) && s[i+1] == '\n') {
				return false
			}
		}
	}
	return true
}

func cleanSlow(s string, keepLines bool) bool {
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size <= 1 {
			return false
		}
		if Unsafe(r) && !(keepLines && (r == '\n' || r == '\t' || r == '\r' && i+1 < len(s) && s[i+1] == '\n')) {
			return false
		}
		i += size
	}
	return true
}
