package text

import (
	"strings"
	"testing"
)

func rg(l1, c1, l2, c2 uint32) *Range {
	return &Range{Start: Position{Line: l1, Character: c1}, End: Position{Line: l2, Character: c2}}
}

func TestApplyChangesSequences(t *testing.T) {
	for _, tc := range []struct {
		name    string
		enc     Encoding
		text    string
		changes []Change
		want    string
	}{
		{"typing a word", UTF16, "hello\nworld", []Change{
			{Range: rg(1, 5, 1, 5), Text: "!"},
			{Range: rg(1, 0, 1, 0), Text: "big "},
			{Range: rg(0, 0, 0, 1), Text: "H"},
		}, "Hello\nbig world!"},
		{"each change sees the previous result", UTF16, "ab", []Change{
			{Range: rg(0, 1, 0, 1), Text: "\n"},
			{Range: rg(1, 0, 1, 1), Text: "B"}, // line 1 exists only after the first change
		}, "a\nB"},
		{"joining lines across CRLF", UTF16, "one\r\ntwo\r\nthree", []Change{
			{Range: rg(0, 3, 1, 0), Text: " "},
			{Range: rg(1, 0, 1, 0), Text: ">"},
		}, "one two\r\n>three"},
		{"inserting CRLF splits a line", UTF16, "ab", []Change{
			{Range: rg(0, 1, 0, 1), Text: "\r\n"},
			{Range: rg(1, 1, 1, 1), Text: "c"},
		}, "a\r\nbc"},
		{"LF after lone CR makes one CRLF break", UTF16, "a\rb", []Change{
			{Range: rg(1, 0, 1, 0), Text: "\n"},
			{Range: rg(1, 0, 1, 0), Text: "X"}, // still line 1: CR LF is one break
		}, "a\r\nXb"},
		{"CR before LF makes one CRLF break", UTF16, "a\nb", []Change{
			{Range: rg(0, 1, 0, 1), Text: "\r"},
			{Range: rg(1, 0, 1, 0), Text: "X"},
		}, "a\r\nXb"},
		{"deleting a CRLF", UTF16, "a\r\nb\r\nc", []Change{
			{Range: rg(0, 1, 1, 0), Text: ""},
			{Range: rg(1, 0, 1, 1), Text: "C"},
		}, "ab\r\nC"},
		{"range past end of line stops before CRLF", UTF16, "ab\r\ncd", []Change{
			{Range: rg(0, 1, 0, 99), Text: "Z"},
		}, "aZ\r\ncd"},
		{"range past end of document appends", UTF16, "ab\ncd", []Change{
			{Range: rg(5, 0, 9, 9), Text: "!"},
			{Range: rg(1, 7, 1, 7), Text: "?"},
		}, "ab\ncd!?"},
		{"whole-document replacement then incremental", UTF16, "old text", []Change{
			{Text: "new\ntext"},
			{Range: rg(1, 0, 1, 4), Text: "body"},
		}, "new\nbody"},
		{"inverted range is reordered", UTF16, "abcdef", []Change{
			{Range: rg(0, 4, 0, 1), Text: "-"},
		}, "a-ef"},
		{"emoji in UTF-16", UTF16, "x😀y", []Change{{Range: rg(0, 1, 0, 3), Text: ""}}, "xy"},
		{"emoji in UTF-8", UTF8, "x😀y", []Change{{Range: rg(0, 1, 0, 5), Text: ""}}, "xy"},
		{"emoji in UTF-32", UTF32, "x😀y", []Change{{Range: rg(0, 1, 0, 2), Text: ""}}, "xy"},
		{"range ending mid-surrogate snaps back", UTF16, "x😀y", []Change{{Range: rg(0, 1, 0, 2), Text: "_"}}, "x_😀y"},
		{"range starting mid-surrogate snaps back", UTF16, "x😀y", []Change{{Range: rg(0, 2, 0, 4), Text: ""}}, "x"},
		{"combining mark is its own code point", UTF32, "e\u0301!", []Change{{Range: rg(0, 1, 0, 2), Text: ""}}, "e!"},
		{"tabs and CJK", UTF16, "\t中文\tz", []Change{{Range: rg(0, 2, 0, 4), Text: "字"}}, "\t中字z"},
		{"empty document", UTF16, "", []Change{
			{Range: rg(0, 0, 0, 0), Text: "a"},
			{Range: rg(3, 3, 3, 3), Text: "b"},
		}, "ab"},
		{"no changes", UTF16, "same", nil, "same"},
		{"empty edit is a no-op", UTF16, "same", []Change{{Range: rg(0, 2, 0, 2)}}, "same"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ApplyChanges(tc.text, tc.changes, tc.enc)
			if err != nil {
				t.Fatal(err)
			}
			if got != tc.want {
				t.Errorf("ApplyChanges = %q, want %q", got, tc.want)
			}
			if ref := refApply(tc.text, tc.changes, tc.enc); ref != tc.want {
				t.Errorf("reference = %q, want %q (the test table is wrong)", ref, tc.want)
			}
			buf := NewBuffer(tc.text)
			if err := buf.Apply(tc.changes, tc.enc); err != nil {
				t.Fatal(err)
			}
			checkBuffer(t, buf, tc.want, "Buffer")
			// One change at a time gives the same result as the batch.
			step := tc.text
			for _, c := range tc.changes {
				if step, err = ApplyChanges(step, []Change{c}, tc.enc); err != nil {
					t.Fatal(err)
				}
			}
			if step != tc.want {
				t.Errorf("one at a time = %q, want %q", step, tc.want)
			}
		})
	}
}

func TestApplyChangesRefusesInvalidUTF8(t *testing.T) {
	text := "keep me\n"
	changes := []Change{
		{Range: rg(0, 0, 0, 4), Text: "drop"},
		{Range: rg(0, 0, 0, 0), Text: "bad \xff byte"},
	}
	got, err := ApplyChanges(text, changes, UTF16)
	if err == nil || !strings.Contains(err.Error(), "change 2 of 2") || !strings.Contains(err.Error(), "UTF-8") {
		t.Fatalf("err = %v, want one naming change 2 and UTF-8", err)
	}
	if got != text {
		t.Errorf("text after refused changes = %q, want it unchanged", got)
	}
	buf := NewBuffer(text)
	if err := buf.Apply(changes, UTF16); err == nil {
		t.Fatal("Buffer.Apply accepted invalid UTF-8")
	}
	checkBuffer(t, buf, text, "Buffer after refused changes")
}

func TestBufferAccessors(t *testing.T) {
	buf := NewBuffer("a😀\r\nb")
	if buf.Len() != 8 || buf.LineCount() != 2 {
		t.Fatalf("Len %d LineCount %d", buf.Len(), buf.LineCount())
	}
	ix := buf.Index()
	if err := buf.Apply([]Change{{Range: rg(0, 0, 0, 0), Text: "\n"}}, UTF16); err != nil {
		t.Fatal(err)
	}
	// The Index taken before the edit still describes the old text.
	if ix.Text() != "a😀\r\nb" || ix.LineCount() != 2 || ix.Offset(Position{1, 0}, UTF16) != 7 {
		t.Errorf("Index changed with the Buffer: %q", ix.Text())
	}
	if buf.LineCount() != 3 || buf.Offset(Position{2, 1}, UTF16) != 9 {
		t.Errorf("after edit: LineCount %d, Offset %d", buf.LineCount(), buf.Offset(Position{2, 1}, UTF16))
	}
	if got := buf.Position(3, UTF16); got != (Position{1, 1}) {
		t.Errorf("Position(3) = %v", got)
	}
	// A paste of many lines rescans only the pasted region.
	paste := strings.Repeat("x\r\n", 5000)
	if err := buf.Apply([]Change{{Range: rg(1, 0, 1, 0), Text: paste}}, UTF16); err != nil {
		t.Fatal(err)
	}
	checkBuffer(t, buf, "\n"+paste+"a😀\r\nb", "after pasting 5000 lines")
	// A large deletion releases memory but keeps content.
	big := NewBuffer(strings.Repeat("line\n", 100000))
	if err := big.Apply([]Change{{Range: rg(0, 0, 99999, 0), Text: ""}}, UTF8); err != nil {
		t.Fatal(err)
	}
	checkBuffer(t, big, "line\n", "after big deletion")
	if n := big.footprint(); n > 1<<17 {
		t.Errorf("%d bytes kept after deleting 500 kB", n)
	}
}

func TestZeroValuesDoNotPanic(t *testing.T) {
	var buf Buffer
	if buf.LineCount() != 1 || buf.String() != "" || buf.Offset(Position{2, 2}, UTF16) != 0 {
		t.Fatalf("zero Buffer: %d lines, %q", buf.LineCount(), buf.String())
	}
	if err := buf.Apply([]Change{{Range: rg(0, 0, 0, 0), Text: "a\r\nb"}}, UTF16); err != nil {
		t.Fatal(err)
	}
	checkBuffer(t, &buf, "a\r\nb", "zero Buffer after insert")
	var ix Index
	if ix.Position(3, UTF16) != (Position{}) || ix.Offset(Position{1, 1}, UTF8) != 0 {
		t.Error("zero Index does not behave as empty text")
	}
}
