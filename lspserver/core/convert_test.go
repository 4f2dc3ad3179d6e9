package core

import (
	"testing"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
)

func TestConvertRoundTrip(t *testing.T) {
	r := protocol.Range{Start: protocol.Position{Line: 3, Character: 7}, End: protocol.Position{Line: 4, Character: 0}}
	if got := ToProtocolRange(ToTextRange(r)); got != r {
		t.Errorf("range round trip: %+v → %+v", r, got)
	}
	changes, err := toTextChanges([]protocol.TextDocumentContentChangeEvent{
		&protocol.TextDocumentContentChangePartial{Range: r, Text: "x"},
		&protocol.TextDocumentContentChangeWholeDocument{Text: "all"},
	})
	if err != nil || len(changes) != 2 || changes[0].Range == nil || changes[0].Range.Start.Character != 7 || changes[1].Range != nil || changes[1].Text != "all" {
		t.Errorf("changes = %+v, %v", changes, err)
	}
}

func TestDocKey(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want string
	}{
		{"file:///tmp/a/../b/x.go", "/tmp/b/x.go"},
		{"file:///home/u/c%2B%2B/x%20y.go", "/home/u/c++/x y.go"},
		{"file:///home/u/c++/x y.go", "/home/u/c++/x y.go"}, // raw Neovim spelling, canonicalised on decode
		{"untitled:Untitled-1", "untitled:Untitled-1"},
	} {
		u, err := uri.Parse(tc.in)
		if err != nil {
			t.Fatal(err)
		}
		if got := DocKey(u); got != tc.want {
			t.Errorf("DocKey(%s) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
