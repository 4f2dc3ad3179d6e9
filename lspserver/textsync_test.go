package lspserver_test

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/agentls/agentls/lspserver"
	"github.com/agentls/agentls/lspserver/lsptest"
)

// refDoc is an independent reference for incremental sync: a text and the
// LSP position arithmetic written out plainly (no internal/text), so the
// server's result can be checked against it.
type refDoc struct {
	text string
	enc  string
}

// lines splits the text into line contents and their terminators ("\n",
// "\r\n", "\r" or "" for the last line).
func (d *refDoc) lines() (content, term []string) {
	s := d.text
	for {
		i := strings.IndexAny(s, "\r\n")
		if i < 0 {
			return append(content, s), append(term, "")
		}
		t := s[i : i+1]
		if s[i] == '\r' && i+1 < len(s) && s[i+1] == '\n' {
			t = "\r\n"
		}
		content, term = append(content, s[:i]), append(term, t)
		s = s[i+len(t):]
	}
}

// units is the length of one rune in the encoding.
func units(r rune, enc string) int {
	switch enc {
	case "utf-8":
		return utf8.RuneLen(r)
	case "utf-32":
		return 1
	}
	if r >= 0x10000 {
		return 2
	}
	return 1
}

// offset converts a position to a byte offset (positions are generated on
// rune boundaries, inside the text).
func (d *refDoc) offset(p protocol.Position) int {
	content, term := d.lines()
	off := 0
	for l := 0; l < int(p.Line); l++ {
		off += len(content[l]) + len(term[l])
	}
	n := 0
	for i, r := range content[p.Line] {
		if n >= int(p.Character) {
			return off + i
		}
		n += units(r, d.enc)
	}
	return off + len(content[p.Line])
}

func (d *refDoc) apply(r protocol.Range, text string) {
	s, e := d.offset(r.Start), d.offset(r.End)
	d.text = d.text[:s] + text + d.text[e:]
}

// randomPos returns a random valid position on a rune boundary.
func (d *refDoc) randomPos(rng *rand.Rand) protocol.Position {
	content, _ := d.lines()
	line := rng.IntN(len(content))
	runes := []rune(content[line])
	k := rng.IntN(len(runes) + 1)
	n := 0
	for _, r := range runes[:k] {
		n += units(r, d.enc)
	}
	return protocol.Position{Line: uint32(line), Character: uint32(n)}
}

func (d *refDoc) randomRange(rng *rand.Rand) protocol.Range {
	a, b := d.randomPos(rng), d.randomPos(rng)
	if b.Line < a.Line || (b.Line == a.Line && b.Character < a.Character) {
		a, b = b, a
	}
	if rng.IntN(3) == 0 { // a third are pure insertions
		b = a
	}
	return protocol.Range{Start: a, End: b}
}

var insertions = []string{"", "x", "é", "😀", "日本", "\r\n", "\n", "\t", "a\r\nb", "e\u0301", "👩‍💻", "Z\u200d", "🇫🇷\r\n語"}

const initialText = "héllo\tworld 😀\r\n日本語のテキスト\r\n\r\ncafe\u0301 🎉🎉\nmixed\rline\n\tend"

// TestIncrementalSyncEncodings applies random incremental edits with CRLF,
// emoji (surrogate pairs), CJK, combining marks and tabs in each of the three
// position encodings and checks agentls/document against the reference.
func TestIncrementalSyncEncodings(t *testing.T) {
	for _, enc := range []string{"utf-16", "utf-8", "utf-32"} {
		t.Run(enc, func(t *testing.T) {
			t.Parallel()
			s := newSession(t, lsptest.InitOptions{PositionEncodings: []string{enc}}, lspserver.Options{})
			if got := s.srv.Session().Encoding.String(); got != enc {
				t.Fatalf("negotiated %s, want %s", got, enc)
			}
			ctx := lsptest.Context(t)
			u := s.uri("doc.txt")
			ref := &refDoc{text: initialText, enc: enc}
			if err := s.c.DidOpen(ctx, u, "plaintext", 1, ref.text); err != nil {
				t.Fatal(err)
			}
			rng := rand.New(rand.NewPCG(1, uint64(len(enc))))
			version := int32(1)
			for step := 1; step <= 400; step++ {
				var changes []protocol.TextDocumentContentChangeEvent
				for range 1 + rng.IntN(3) { // several changes per notification, applied in order
					r := ref.randomRange(rng)
					text := insertions[rng.IntN(len(insertions))]
					ref.apply(r, text)
					changes = append(changes, lsptest.Partial(r.Start.Line, r.Start.Character, r.End.Line, r.End.Character, text))
				}
				version++
				if err := s.c.DidChange(ctx, u, version, changes...); err != nil {
					t.Fatal(err)
				}
				if step%50 == 0 {
					checkDoc(t, s, u, version, ref.text, fmt.Sprintf("after step %d", step))
				}
			}
		})
	}
}

// TestIncrementalSyncKnownPositions pins a few hand-computed positions per
// encoding, so a failure is easy to read.
func TestIncrementalSyncKnownPositions(t *testing.T) {
	const text = "a😀b\r\n日本語\r\nx"
	for _, tc := range []struct {
		enc            string
		emoji, kanji   [2]uint32 // start/end characters of 😀 on line 0 and 本 on line 1
		endOfLine0Char uint32
	}{
		{enc: "utf-16", emoji: [2]uint32{1, 3}, kanji: [2]uint32{1, 2}, endOfLine0Char: 4},
		{enc: "utf-8", emoji: [2]uint32{1, 5}, kanji: [2]uint32{3, 6}, endOfLine0Char: 6},
		{enc: "utf-32", emoji: [2]uint32{1, 2}, kanji: [2]uint32{1, 2}, endOfLine0Char: 3},
	} {
		t.Run(tc.enc, func(t *testing.T) {
			s := newSession(t, lsptest.InitOptions{PositionEncodings: []string{tc.enc}}, lspserver.Options{})
			ctx := lsptest.Context(t)
			u := s.uri("known.txt")
			if err := s.c.DidOpen(ctx, u, "plaintext", 1, text); err != nil {
				t.Fatal(err)
			}
			err := s.c.DidChange(ctx, u, 2,
				lsptest.Partial(0, tc.emoji[0], 0, tc.emoji[1], "E"),
				lsptest.Partial(1, tc.kanji[0], 1, tc.kanji[1], "K"),
			)
			if err != nil {
				t.Fatal(err)
			}
			checkDoc(t, s, u, 2, "aEb\r\n日K語\r\nx", "replace emoji and kanji")
			// End of line 0 (after "aEb" now: 3 units in every encoding) is
			// before the CRLF; a character past it clamps there too.
			if err := s.c.DidChange(ctx, u, 3, lsptest.Partial(0, 3, 0, 3, "!"), lsptest.Partial(0, 99, 0, 99, "?")); err != nil {
				t.Fatal(err)
			}
			checkDoc(t, s, u, 3, "aEb!?\r\n日K語\r\nx", "insert at and past end of line")
			// Joining lines deletes the whole CRLF.
			if err := s.c.DidChange(ctx, u, 4, lsptest.Partial(0, 5, 1, 0, "")); err != nil {
				t.Fatal(err)
			}
			checkDoc(t, s, u, 4, "aEb!?日K語\r\nx", "join lines")
			if err := s.c.DidChange(ctx, u, 5, lsptest.Whole("fresh\n")); err != nil {
				t.Fatal(err)
			}
			checkDoc(t, s, u, 5, "fresh\n", "whole-document change")
		})
	}
}

// TestOrderingManyChanges sends thousands of incremental didChange
// notifications back to back, then at once asks for the document: the
// request must see every change (notifications are handled in wire order).
func TestOrderingManyChanges(t *testing.T) {
	s := newSession(t, lsptest.InitOptions{}, lspserver.Options{})
	ctx := lsptest.Context(t)
	u := s.uri("order.txt")
	ref := &refDoc{text: "start\n日本\n", enc: "utf-16"}
	if err := s.c.DidOpen(ctx, u, "plaintext", 1, ref.text); err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(7, 7))
	const n = 5000
	for i := range n {
		p := ref.randomPos(rng)
		ch := string(rune('a' + i%26))
		if i%10 == 0 {
			ch = "😀"
		}
		ref.apply(protocol.Range{Start: p, End: p}, ch)
		if err := s.c.DidChange(ctx, u, int32(i+2), lsptest.Partial(p.Line, p.Character, p.Line, p.Character, ch)); err != nil {
			t.Fatal(err)
		}
	}
	checkDoc(t, s, u, n+1, ref.text, "after all changes")
}

// TestCloseGoesBackToDisk: after didClose the document is read from disk;
// didOpen of a file outside the workspace is still served from the buffer.
func TestCloseGoesBackToDisk(t *testing.T) {
	s := newSession(t, lsptest.InitOptions{}, lspserver.Options{})
	ctx := lsptest.Context(t)
	s.write(t, "f.txt", "disk text\n")
	u := s.uri("f.txt")
	if err := s.c.DidOpen(ctx, u, "plaintext", 3, "buffer text\n"); err != nil {
		t.Fatal(err)
	}
	checkDoc(t, s, u, 3, "buffer text\n", "open")
	if err := s.c.DidSave(ctx, u); err != nil {
		t.Fatal(err)
	}
	checkDoc(t, s, u, 3, "buffer text\n", "saved but still open")
	if err := s.c.DidClose(ctx, u); err != nil {
		t.Fatal(err)
	}
	d, err := s.c.Document(ctx, u)
	if err != nil {
		t.Fatal(err)
	}
	if d.Version != nil || d.Text != "disk text\n" {
		t.Fatalf("after close: version %v text %q, want null and the disk text", d.Version, d.Text)
	}
	// An untitled buffer is keyed by its URI.
	if err := s.c.DidOpen(ctx, "untitled:Untitled-1", "plaintext", 1, "scratch"); err != nil {
		t.Fatal(err)
	}
	checkDoc(t, s, "untitled:Untitled-1", 1, "scratch", "untitled")
}

func checkDoc(t *testing.T, s *session, u uri.URI, version int32, want, when string) {
	t.Helper()
	d, err := s.c.Document(lsptest.Context(t), u)
	if err != nil {
		t.Fatalf("%s: %v", when, err)
	}
	if d.Version == nil || *d.Version != version {
		got := "null"
		if d.Version != nil {
			got = fmt.Sprint(*d.Version)
		}
		t.Errorf("%s: version %s, want %d", when, got, version)
	}
	if d.Text != want {
		t.Fatalf("%s: server text differs from the reference\n got: %q\nwant: %q", when, d.Text, want)
	}
}
