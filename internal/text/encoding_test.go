package text

import "testing"

func TestParseEncodingAndString(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Encoding
		ok   bool
	}{
		{"utf-8", UTF8, true},
		{"utf-16", UTF16, true},
		{"utf-32", UTF32, true},
		{"UTF-8", UTF16, false}, // the spec's values are lower case
		{"utf8", UTF16, false},
		{"", UTF16, false},
	} {
		got, ok := ParseEncoding(tc.in)
		if got != tc.want || ok != tc.ok {
			t.Errorf("ParseEncoding(%q) = %v, %v; want %v, %v", tc.in, got, ok, tc.want, tc.ok)
		}
		if ok && got.String() != tc.in {
			t.Errorf("%v.String() = %q, want %q", got, got.String(), tc.in)
		}
	}
	if s := Encoding(7).String(); s != "Encoding(7)" {
		t.Errorf("unknown encoding String = %q", s)
	}
	var zero Encoding
	if zero != UTF16 {
		t.Errorf("zero Encoding is %v, want utf-16 (the LSP default)", zero)
	}
}

func TestNegotiate(t *testing.T) {
	for _, tc := range []struct {
		offered []string
		want    Encoding
	}{
		{nil, UTF16},
		{[]string{}, UTF16},
		{[]string{"utf-16"}, UTF16},
		{[]string{"utf-16", "utf-8"}, UTF8},
		{[]string{"utf-32", "utf-16"}, UTF32},
		{[]string{"utf-32", "utf-8"}, UTF8},
		{[]string{"latin-1", "UTF-8"}, UTF16},
		{[]string{"bogus", "utf-32"}, UTF32},
	} {
		if got := Negotiate(tc.offered); got != tc.want {
			t.Errorf("Negotiate(%q) = %v, want %v", tc.offered, got, tc.want)
		}
	}
}

func TestCharCount(t *testing.T) {
	for _, tc := range []struct {
		s            string
		u8, u16, u32 int
		description  string
	}{
		{"", 0, 0, 0, "empty"},
		{"abc\t", 4, 4, 4, "ASCII and tab"},
		{"é", 2, 1, 1, "precomposed Latin"},
		{"e\u0301", 3, 2, 2, "combining acute: two code points"},
		{"中文", 6, 2, 2, "CJK: three bytes, one unit"},
		{"😀", 4, 2, 1, "emoji: surrogate pair in UTF-16"},
		{"🇫🇷", 8, 4, 2, "flag: two regional indicators"},
		{"\U0010FFFF", 4, 2, 1, "last code point"},
		{"\uFFFF", 3, 1, 1, "last BMP code point"},
		{"a\xffb", 3, 3, 3, "invalid byte counts as one U+FFFD"},
		{"\xf0\x9f\x98", 3, 3, 3, "truncated emoji: three invalid bytes"},
		{"abcdefgh😀abcdefgh中", 23, 19, 18, "ASCII fast path around non-ASCII"},
	} {
		for _, c := range []struct {
			enc  Encoding
			want int
		}{{UTF8, tc.u8}, {UTF16, tc.u16}, {UTF32, tc.u32}} {
			if got := CharCount(tc.s, c.enc); got != c.want {
				t.Errorf("%s: CharCount(%q, %v) = %d, want %d", tc.description, tc.s, c.enc, got, c.want)
			}
		}
	}
}
