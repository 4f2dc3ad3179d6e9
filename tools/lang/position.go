package lang

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/internal/text"
)

// locate turns the model's (1-based line, symbol text on that line) into
// an LSP position in enc: the first whole-word occurrence of symbol on the
// line (a plain substring "n" would find "Println"), pointing at its last
// identifier ("obj.method" and "Add(" point at method and Add). Models are
// poor at columns; they copy the symbol's text well.
func locate(content string, line int, symbol string, enc text.Encoding) (protocol.Position, error) {
	symbol = strings.TrimSpace(symbol)
	if symbol == "" {
		return protocol.Position{}, fmt.Errorf("symbol is empty; give the symbol's text as it appears on the line")
	}
	ix := text.NewIndex(content)
	if line < 1 || line > ix.LineCount() {
		return protocol.Position{}, fmt.Errorf("line %d is out of range: the file has %d lines", line, ix.LineCount())
	}
	start := ix.LineStart(line - 1)
	lineText := content[start:ix.LineEnd(line-1)]
	at := wholeWord(lineText, symbol)
	if at < 0 {
		return protocol.Position{}, fmt.Errorf("%q is not on line %d, which reads: %s", symbol, line, clipLine(lineText))
	}
	off := start + at + lastIdent(symbol)
	p := ix.Position(off, enc)
	return protocol.Position{Line: p.Line, Character: p.Character}, nil
}

// wholeWord returns the byte index of the first occurrence of sym in line
// that is not part of a longer identifier, or -1.
func wholeWord(line, sym string) int {
	for from := 0; from <= len(line)-len(sym); {
		i := strings.Index(line[from:], sym)
		if i < 0 {
			return -1
		}
		i += from
		before, _ := utf8.DecodeLastRuneInString(line[:i])
		after, _ := utf8.DecodeRuneInString(line[i+len(sym):])
		first, _ := utf8.DecodeRuneInString(sym)
		last, _ := utf8.DecodeLastRuneInString(sym)
		okBefore := i == 0 || !isIdent(first) || !isIdent(before)
		okAfter := i+len(sym) == len(line) || !isIdent(last) || !isIdent(after)
		if okBefore && okAfter {
			return i
		}
		_, size := utf8.DecodeRuneInString(line[i:])
		from = i + size
	}
	return -1
}

func isIdent(r rune) bool { return r == '_' || r == '$' || unicode.IsLetter(r) || unicode.IsDigit(r) }

// lastIdent is the byte offset in sym of its last identifier ("a.b" → 2,
// "Add(" → 0); 0 when sym has none.
func lastIdent(sym string) int {
	end := len(sym)
	for end > 0 {
		r, size := utf8.DecodeLastRuneInString(sym[:end])
		if isIdent(r) {
			break
		}
		end -= size
	}
	start := end
	for start > 0 {
		r, size := utf8.DecodeLastRuneInString(sym[:start])
		if !isIdent(r) {
			break
		}
		start -= size
	}
	if start == end {
		return 0
	}
	return start
}

// lineAt returns the 1-based line number and the text of the line holding
// the LSP position p (in enc) of content.
func lineAt(content string, p protocol.Position) (int, string) {
	ix := text.NewIndex(content)
	l := int(p.Line)
	if l >= ix.LineCount() {
		return l + 1, ""
	}
	return l + 1, content[ix.LineStart(l):ix.LineEnd(l)]
}

// clipLine shows a line in a result: trimmed and bounded.
func clipLine(s string) string {
	s = strings.TrimSpace(strings.TrimRight(s, "\r"))
	if len(s) > 200 {
		cut := 200
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut] + "…"
	}
	return s
}

// applyEdits applies LSP text edits (ranges in enc over content, all
// relative to content, as in a WorkspaceEdit) and returns the new text.
// Overlapping edits are refused.
func applyEdits(content string, edits []protocol.TextEdit, enc text.Encoding) (string, error) {
	ix := text.NewIndex(content)
	type span struct {
		start, end int
		text       string
	}
	spans := make([]span, len(edits))
	for i, e := range edits {
		s := ix.Offset(text.Position{Line: e.Range.Start.Line, Character: e.Range.Start.Character}, enc)
		t := ix.Offset(text.Position{Line: e.Range.End.Line, Character: e.Range.End.Character}, enc)
		if t < s {
			return "", fmt.Errorf("an edit ends before it starts (line %d)", e.Range.Start.Line+1)
		}
		spans[i] = span{s, t, e.NewText}
	}
	// Stable by start: inserts at one place keep the server's order.
	for i := 1; i < len(spans); i++ {
		for j := i; j > 0 && spans[j].start < spans[j-1].start; j-- {
			spans[j], spans[j-1] = spans[j-1], spans[j]
		}
	}
	var b strings.Builder
	pos := 0
	for _, s := range spans {
		if s.start < pos {
			return "", fmt.Errorf("edits overlap at byte %d", s.start)
		}
		b.WriteString(content[pos:s.start])
		b.WriteString(s.text)
		pos = s.end
	}
	b.WriteString(content[pos:])
	return b.String(), nil
}

// column is the 1-based character (code point) column of p, for results
// the model reads.
func column(content string, p protocol.Position, enc text.Encoding) int {
	ix := text.NewIndex(content)
	l := int(p.Line)
	if l >= ix.LineCount() {
		return 1
	}
	off := ix.Offset(text.Position{Line: p.Line, Character: p.Character}, enc)
	return utf8.RuneCountInString(content[ix.LineStart(l):off]) + 1
}
