package safetext

import (
	"bytes"
	"strings"
	"testing"
)

func TestTextAndLine(t *testing.T) {
	for _, tc := range []struct{ in, text, line string }{
		{"plain\ttext\nline two\r\n", "plain\ttext\nline two\r\n", `plain\ttext\nline two\r\n`},
		{"\x1b]52;c;cHduZWQ=\x07", `\x1b]52;c;cHduZWQ=\x07`, `\x1b]52;c;cHduZWQ=\x07`},
		{"ok\rFAKE", `ok\rFAKE`, `ok\rFAKE`},
		{"del\x7f c1\u009b[2J", `del\x7f c1\u009b[2J`, `del\x7f c1\u009b[2J`},
		{"bad\x9b[2J", `bad\x9b[2J`, `bad\x9b[2J`},
		{"abc\u202edcba\u2066x\u2069", `abc\u202edcba\u2066x\u2069`, `abc\u202edcba\u2066x\u2069`},
		{"emoji 😀 CJK 漢字 é", "emoji 😀 CJK 漢字 é", "emoji 😀 CJK 漢字 é"},
	} {
		if got := Text(tc.in); got != tc.text {
			t.Errorf("Text(%q) = %q, want %q", tc.in, got, tc.text)
		}
		if got := Line(tc.in); got != tc.line {
			t.Errorf("Line(%q) = %q, want %q", tc.in, got, tc.line)
		}
	}
}

func TestBound(t *testing.T) {
	s := strings.Repeat("é", 10)
	if got := Bound(s, 5); got != "éé… 8 more characters" {
		t.Fatalf("Bound = %q", got)
	}
	if got := Bound("short", 10); got != "short" {
		t.Fatalf("Bound = %q", got)
	}
}

// Pieces written one byte at a time come out as the whole would.
func TestWriterSplitsAnywhere(t *testing.T) {
	in := "a\r\nb\x1b[31mred\u202e😀\rX\n\xff"
	want := Text(in)
	var out bytes.Buffer
	w := NewWriter(&out)
	for i := 0; i < len(in); i++ {
		if n, err := w.Write([]byte{in[i]}); n != 1 || err != nil {
			t.Fatalf("Write = %d, %v", n, err)
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if out.String() != want {
		t.Fatalf("got %q, want %q", out.String(), want)
	}
}

func BenchmarkTextClean(b *testing.B) {
	s := strings.Repeat("func main() {\n\tfmt.Println(\"héllo\")\n}\n", 1000)
	b.SetBytes(int64(len(s)))
	for range b.N {
		_ = Text(s)
	}
}
