package text_test

import (
	"fmt"

	"github.com/agentls/agentls/internal/text"
)

// A server negotiates the encoding once at initialize and then converts
// every position it sends or receives with it.
func ExampleNegotiate() {
	enc := text.Negotiate([]string{"utf-16", "utf-8"})
	fmt.Println(enc) // goes into ServerCapabilities.positionEncoding
	// Output: utf-8
}

func ExampleIndex() {
	ix := text.NewIndex("a😀b\r\nsecond")
	// The emoji is two UTF-16 units but one code point and four bytes.
	p := text.Position{Line: 0, Character: 3}
	fmt.Println(ix.Offset(p, text.UTF16), ix.Position(5, text.UTF32), ix.Position(5, text.UTF8))
	// Past the end of line 0: clamped before the CRLF.
	fmt.Println(ix.Offset(text.Position{Line: 0, Character: 99}, text.UTF16))
	// Output:
	// 5 {0 2} {0 5}
	// 6
}

func ExampleApplyChanges() {
	doc := "hello\nworld"
	out, err := text.ApplyChanges(doc, []text.Change{
		{Range: &text.Range{Start: text.Position{Line: 1, Character: 5}, End: text.Position{Line: 1, Character: 5}}, Text: "!"},
		{Range: &text.Range{Start: text.Position{Line: 0, Character: 0}, End: text.Position{Line: 0, Character: 1}}, Text: "H"},
	}, text.UTF16)
	fmt.Printf("%q %v\n", out, err)
	// Output: "Hello\nworld!" <nil>
}

// A Buffer keeps an open document for the whole session and applies each
// didChange in place; String is only paid for when the text is read.
func ExampleBuffer() {
	buf := text.NewBuffer("func main() {\n}\n")
	pos := text.Position{Line: 1, Character: 0}
	_ = buf.Apply([]text.Change{{Range: &text.Range{Start: pos, End: pos}, Text: "\tprintln()\n"}}, text.UTF16)
	fmt.Printf("%d lines: %q\n", buf.LineCount(), buf.String())
	// Output: 4 lines: "func main() {\n\tprintln()\n}\n"
}
