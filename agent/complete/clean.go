package complete

import (
	"strings"
	"unicode/utf8"
)

// maxOverlapBytes bounds the search for a repeated suffix.
const maxOverlapBytes = 512

// clean makes a model's answer fit the cursor: inside a line (text after
// the cursor on its line) it ends at the end of the line; the longest end
// of it that repeats the start of the text after the cursor is dropped
// (models often write the closing ")" or "}" that is already there); a
// whitespace-only answer gives nothing. Chat answers lose code fences.
func clean(answer, suffix string, chat bool) string {
	if chat {
		answer = unfence(answer)
	}
	answer = strings.ToValidUTF8(answer, "")
	restOfLine := suffix
	if i := strings.IndexByte(suffix, '\n'); i >= 0 {
		restOfLine = suffix[:i]
	}
	inLine := strings.TrimSpace(restOfLine) != ""
	if inLine {
		if i := strings.IndexByte(answer, '\n'); i >= 0 {
			answer = answer[:i]
		}
		answer = strings.TrimRight(answer, "\r")
	}
	answer = trimRepeatedSuffix(answer, suffix)
	if strings.TrimSpace(answer) == "" {
		return ""
	}
	if !inLine {
		// Trailing blank lines are noise before the code that follows.
		answer = strings.TrimRight(answer, " \t\r\n")
	}
	return answer
}

// trimRepeatedSuffix drops the longest end of answer that is also the
// start of suffix (ignoring whitespace at the suffix's start), when that
// overlap holds more than whitespace and dropping it leaves no bracket
// open that the whole answer had closed: in "f(|)" the answer "x)"
// becomes "x", but the answer "g()" stays whole.
func trimRepeatedSuffix(answer, suffix string) string {
	s := strings.TrimLeft(suffix, " \t\r\n")
	if s == "" {
		return answer
	}
	whole := max(balance(answer), 0)
	limit := min(len(answer), len(s), maxOverlapBytes)
	for k := limit; k > 0; k-- {
		tail := answer[len(answer)-k:]
		if !utf8.RuneStart(tail[0]) {
			continue
		}
		if strings.HasPrefix(s, tail) && strings.TrimSpace(tail) != "" && balance(answer[:len(answer)-k]) <= whole {
			return strings.TrimRight(answer[:len(answer)-k], " \t")
		}
	}
	return answer
}

// balance is how many brackets s opens more than it closes.
func balance(s string) int {
	n := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '(', '[', '{':
			n++
		case ')', ']', '}':
			n--
		}
	}
	return n
}

// unfence takes the code out of a chat answer wrapped in ``` fences.
func unfence(s string) string {
	t := strings.TrimSpace(s)
	if !strings.HasPrefix(t, "```") {
		return s
	}
	if i := strings.IndexByte(t, '\n'); i >= 0 {
		t = t[i+1:]
	} else {
		return ""
	}
	if j := strings.LastIndex(t, "```"); j >= 0 {
		t = t[:j]
	}
	return strings.TrimSuffix(t, "\n")
}
