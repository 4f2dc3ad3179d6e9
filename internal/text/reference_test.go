package text

import (
	"math/rand/v2"
	"strings"
)

// This file holds a deliberately naive reference implementation of the
// position rules, written from the LSP spec without sharing any code with the
// package: it splits the text into lines byte by byte and walks runes with a
// range loop. The real implementation is compared against it on random and
// fuzzed inputs.

// refLine is one line: content is text[start:end], the next line starts at
// next (len(text) for the last line, where next == end).
type refLine struct{ start, end, next int }

func refSplit(text string) []refLine {
	var lines []refLine
	start := 0
	for i := 0; i < len(text); i++ {
		switch text[i] {
		case '\n':
			lines = append(lines, refLine{start, i, i + 1})
			start = i + 1
		case '\r':
			next := i + 1
			if next < len(text) && text[next] == '\n' {
				next++
			}
			lines = append(lines, refLine{start, i, next})
			start = next
			i = next - 1
		}
	}
	return append(lines, refLine{start, len(text), len(text)})
}

// refWidth is the size of a rune of byte length size in enc.
func refWidth(r rune, size int, enc Encoding) int {
	switch enc {
	case UTF8:
		return size
	case UTF32:
		return 1
	}
	if r > 0xFFFF {
		return 2
	}
	return 1
}

// refRunes lists the (byte offset, rune, size) of every rune in s.
func refRunes(s string) (offs []int, runes []rune, sizes []int) {
	for i, r := range s {
		offs = append(offs, i)
		runes = append(runes, r)
	}
	for k := range offs {
		next := len(s)
		if k+1 < len(offs) {
			next = offs[k+1]
		}
		sizes = append(sizes, next-offs[k])
	}
	return offs, runes, sizes
}

func refOffset(text string, p Position, enc Encoding) int {
	lines := refSplit(text)
	if int(p.Line) >= len(lines) {
		return len(text)
	}
	l := lines[p.Line]
	content := text[l.start:l.end]
	offs, runes, sizes := refRunes(content)
	units := 0
	for k := range offs {
		if units == int(p.Character) {
			return l.start + offs[k]
		}
		w := refWidth(runes[k], sizes[k], enc)
		if units+w > int(p.Character) {
			return l.start + offs[k] // inside this rune: its start
		}
		units += w
	}
	return l.end
}

func refPosition(text string, off int, enc Encoding) Position {
	off = max(0, min(off, len(text)))
	lines := refSplit(text)
	li := 0
	for i, l := range lines {
		if l.start <= off {
			li = i
		}
	}
	l := lines[li]
	off = min(off, l.end)
	offs, runes, sizes := refRunes(text[l.start:l.end])
	units := 0
	for k := range offs {
		if l.start+offs[k]+sizes[k] > off {
			break
		}
		units += refWidth(runes[k], sizes[k], enc)
	}
	return Position{Line: uint32(li), Character: uint32(units)}
}

func refApply(text string, changes []Change, enc Encoding) string {
	for _, c := range changes {
		if c.Range == nil {
			text = c.Text
			continue
		}
		s, e := refOffset(text, c.Range.Start, enc), refOffset(text, c.Range.End, enc)
		if s > e {
			s, e = e, s
		}
		text = text[:s] + c.Text + text[e:]
	}
	return text
}

// refBoundaries lists every offset that is a rune boundary and not between
// "\r" and "\n": the offsets Position→Offset must reproduce exactly.
func refBoundaries(text string) []int {
	var out []int
	for i := range text {
		if i > 0 && text[i-1] == '\r' && text[i] == '\n' {
			continue
		}
		out = append(out, i)
	}
	return append(out, len(text))
}

// pieces are the building blocks of random texts: every kind of line
// terminator, tabs, multi-byte runes, surrogate pairs, combining marks and
// invalid UTF-8.
var pieces = []string{
	"a", "b", "xyz", " ", "\t", "\n", "\r", "\r\n", "\n\r",
	"é", "e\u0301", "中", "文字", "😀", "🇫🇷", "\U0010FFFF", "\u00a0",
	"\xff", "\xe4\xb8", "\xf0\x9f\x98",
}

// validPieces are pieces without invalid UTF-8, for change texts.
var validPieces = pieces[:len(pieces)-3]

func randText(r *rand.Rand, n int, from []string) string {
	var b strings.Builder
	for range n {
		b.WriteString(from[r.IntN(len(from))])
	}
	return b.String()
}

// randPosition is near or inside the text, with some positions past the end
// of their line or past the end of the text.
func randPosition(r *rand.Rand, lines int) Position {
	return Position{Line: uint32(r.IntN(lines + 2)), Character: uint32(r.IntN(12))}
}

func randChange(r *rand.Rand, text string) Change {
	if r.IntN(20) == 0 {
		return Change{Text: randText(r, r.IntN(6), validPieces)}
	}
	lines := len(refSplit(text))
	rg := Range{Start: randPosition(r, lines), End: randPosition(r, lines)}
	return Change{Range: &rg, Text: randText(r, r.IntN(4), validPieces)}
}

var allEncodings = []Encoding{UTF8, UTF16, UTF32}
