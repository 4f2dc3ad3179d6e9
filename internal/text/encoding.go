package text

import (
	"strconv"
	"unicode/utf8"
)

// Wire names of the encodings, as LSP spells them in
// general.positionEncodings and ServerCapabilities.positionEncoding.
const (
	nameUTF8  = "utf-8"
	nameUTF16 = "utf-16"
	nameUTF32 = "utf-32"
)

// ParseEncoding maps an LSP PositionEncodingKind ("utf-8", "utf-16",
// "utf-32") to an Encoding. Matching is exact, as the spec defines the
// values in lower case; ok is false for anything else so callers can skip
// encodings they do not know.
func ParseEncoding(s string) (Encoding, bool) {
	switch s {
	case nameUTF8:
		return UTF8, true
	case nameUTF16:
		return UTF16, true
	case nameUTF32:
		return UTF32, true
	}
	return UTF16, false
}

// String returns the LSP wire name of e, ready to put in
// ServerCapabilities.positionEncoding.
func (e Encoding) String() string {
	switch e {
	case UTF8:
		return nameUTF8
	case UTF16:
		return nameUTF16
	case UTF32:
		return nameUTF32
	}
	return "Encoding(" + strconv.Itoa(int(e)) + ")"
}

// Negotiate picks the position encoding agentls uses with a client, given
// the client's general.positionEncodings list.
//
// Order of preference: utf-8 if offered (Go strings are UTF-8, so byte
// offsets need no counting at all), else utf-32 (code points: one decode,
// no surrogate arithmetic), else utf-16. An empty or unrecognised list gives
// utf-16, which LSP requires every client to support and which is the
// default when nothing is negotiated. The client's own order is ignored: all
// three are exact, so we choose the cheapest for us. The result must be
// echoed back in ServerCapabilities.positionEncoding.
func Negotiate(offered []string) Encoding {
	var has8, has32 bool
	for _, s := range offered {
		switch e, ok := ParseEncoding(s); {
		case ok && e == UTF8:
			has8 = true
		case ok && e == UTF32:
			has32 = true
		}
	}
	switch {
	case has8:
		return UTF8
	case has32:
		return UTF32
	}
	return UTF16
}

// CharCount returns the length of s in units of enc: bytes for UTF8, code
// points for UTF32, UTF-16 code units for UTF16 (a rune at or above U+10000
// counts 2). An invalid UTF-8 byte counts as one unit in every encoding, as
// it decodes to one U+FFFD. Any Encoding value other than UTF8 and UTF32
// counts as UTF16, the LSP default.
func CharCount(s string, enc Encoding) int {
	switch enc {
	case UTF8:
		return len(s)
	case UTF32:
		return utf8.RuneCountInString(s)
	}
	return utf16Len(s)
}

// asciiMask has the high bit of every byte set: a word ANDed with it is
// zero exactly when all eight bytes are ASCII.
const asciiMask = 0x8080808080808080

// utf16Len counts UTF-16 code units in s, eight ASCII bytes at a time.
func utf16Len(s string) int {
	n := 0
	i := 0
	for i < len(s) {
		if i+8 <= len(s) && load64(s, i)&asciiMask == 0 {
			n += 8
			i += 8
			continue
		}
		c := s[i]
		if c < utf8.RuneSelf {
			n++
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		n += runeUnits16(r)
		i += size
	}
	return n
}

// runeUnits16 is the number of UTF-16 code units r takes.
func runeUnits16(r rune) int {
	if r >= 0x10000 {
		return 2
	}
	return 1
}

// unitsToByte returns the byte offset in line (which holds no line
// terminator) of the first rune that starts at or after char units, clamped
// to len(line). A char landing inside a rune (between the halves of a
// surrogate pair, or inside a multi-byte UTF-8 sequence) snaps back to the
// start of that rune.
func unitsToByte(line string, char int, enc Encoding) int {
	if char <= 0 {
		return 0
	}
	switch enc {
	case UTF8:
		if char >= len(line) {
			return len(line)
		}
		return snapRuneStart(line, 0, char)
	case UTF32:
		i := 0
		for i < len(line) && char > 0 {
			if char >= 8 && i+8 <= len(line) && load64(line, i)&asciiMask == 0 {
				i += 8
				char -= 8
				continue
			}
			if line[i] < utf8.RuneSelf {
				i++
			} else {
				_, size := utf8.DecodeRuneInString(line[i:])
				i += size
			}
			char--
		}
		return i
	}
	i := 0
	for i < len(line) && char > 0 {
		if char >= 8 && i+8 <= len(line) && load64(line, i)&asciiMask == 0 {
			i += 8
			char -= 8
			continue
		}
		if line[i] < utf8.RuneSelf {
			i++
			char--
			continue
		}
		r, size := utf8.DecodeRuneInString(line[i:])
		u := runeUnits16(r)
		if u > char {
			break // char points between the halves of a surrogate pair
		}
		i += size
		char -= u
	}
	return i
}

// snapRuneStart moves off back to the start of the rune containing it, never
// below lo (a line start, which is always a rune boundary). Rune boundaries
// are those of utf8.DecodeRuneInString: a byte that does not begin a valid
// sequence is a rune of its own, so invalid UTF-8 never makes off move by
// more than the valid sequence it is inside.
func snapRuneStart(s string, lo, off int) int {
	if off <= lo || off >= len(s) {
		return off
	}
	for k := 1; k < utf8.UTFMax && off-k >= lo; k++ {
		if utf8.RuneStart(s[off-k]) {
			if _, size := utf8.DecodeRuneInString(s[off-k:]); size > k {
				return off - k
			}
			return off
		}
	}
	return off
}

// load64 reads s[i:i+8] as a little-endian word without copying; the
// compiler merges the byte loads into one.
func load64(s string, i int) uint64 {
	s = s[i : i+8]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}
