package safetext

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// ShellQuote returns s as one POSIX shell word, for commands shown to
// people to copy ("agentls revert --dir …") or to judge (a trust prompt's
// "run the command …"): as is when every character is plainly safe,
// single-quoted otherwise, and in bash's $'…' form when s holds a
// character Line would escape (a newline, ESC, a bidi override), so the
// word stays on its line and reads as what the shell would get. One
// function for every face, so the same word is shown the same way.
func ShellQuote(s string) string {
	if Line(s) != s {
		return ansiC(s)
	}
	if s != "" && strings.IndexFunc(s, func(r rune) bool { return !shellSafe(r) }) < 0 && !assignment(s) && s[0] != '%' {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// shellSafe reports whether r means itself anywhere in an unquoted word
// ('%' only past the first character: job control; '=' unless the word
// would be an assignment).
func shellSafe(r rune) bool {
	return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("/._-+,:@%=", r)
}

// assignment reports whether s, as a command's first word, would set a
// variable (NAME=…) instead of being the command.
func assignment(s string) bool {
	name, _, ok := strings.Cut(s, "=")
	if !ok || name == "" || name[0] >= '0' && name[0] <= '9' {
		return false
	}
	for _, r := range name {
		if !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}

// ansiC is s in the shell's $'…' form, with what Line escapes escaped the
// same way (\n, \x1b, \u202e: bash reads them back) and invalid bytes as
// \xNN.
func ansiC(s string) string {
	var b strings.Builder
	b.WriteString("$'")
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size <= 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r == '\\' || r == '\'':
			b.WriteByte('\\')
			b.WriteRune(r)
		case Unsafe(r):
			writeEscape(&b, r)
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	b.WriteByte('\'')
	return b.String()
}
