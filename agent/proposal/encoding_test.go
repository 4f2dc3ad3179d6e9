package proposal

import (
	"strings"
	"testing"

	"github.com/agentls/agentls/internal/text"
	"github.com/aymanbagabas/go-udiff"
)

func pos(l, c uint32) text.Position { return text.Position{Line: l, Character: c} }

// TestTextEditsCountCharactersInTheEncoding: an emoji (4 bytes, 2 UTF-16
// units, 1 code point) and CJK (3 bytes, 1 unit, 1 code point each) before
// the change on the same line.
func TestTextEditsCountCharactersInTheEncoding(t *testing.T) {
	base := "first\nx := \"😀你好\" + a\nlast\n"
	proposed := "first\nx := \"😀你好\" + b\nlast\n"
	want := map[text.Encoding]uint32{text.UTF8: 6 + 4 + 6 + 4, text.UTF16: 6 + 2 + 2 + 4, text.UTF32: 6 + 1 + 2 + 4}
	for _, enc := range allEncodings {
		t.Run(enc.String(), func(t *testing.T) {
			s := New()
			s.Put("r1", "f", base, ver(1), proposed, false)
			plan, err := s.Accept(Filter{}, enc)
			if err != nil {
				t.Fatal(err)
			}
			checkPlan(t, plan)
			te := onlyFile(t, plan).TextEdits
			c := want[enc]
			if len(te) != 1 || te[0].Range != (text.Range{Start: pos(1, c), End: pos(1, c+1)}) || te[0].NewText != "b" {
				t.Fatalf("text edits %+v, want one at 1:%d", te, c)
			}
			// The hunk itself covers whole lines.
			ps := s.ListLSP("f", enc)
			if r := ps[0].Hunks[0].Range; r != (text.Range{Start: pos(1, 0), End: pos(2, 0)}) {
				t.Fatalf("hunk range %+v", r)
			}
		})
	}
}

// TestUserTypesNonASCIIBeforeAHunk: the user's edit arrives as UTF-16 /
// UTF-8 / UTF-32 ranges on a line full of emoji, before a hunk; the
// accept still lands exactly.
func TestUserTypesNonASCIIBeforeAHunk(t *testing.T) {
	base := "// 😀😀 你好 😀\nvalue = 1\nend\n"
	proposed := "// 😀😀 你好 😀\nvalue = 2\nend\n"
	for _, enc := range allEncodings {
		t.Run(enc.String(), func(t *testing.T) {
			s := New()
			s.Put("r1", "f", base, ver(1), proposed, false)
			// Insert "世界🎉" after "你好" on line 0.
			off := strings.Index(base, " 😀\n")
			p := text.NewIndex(base).Position(off, enc)
			r := text.Range{Start: p, End: p}
			nt := base[:off] + "世界🎉" + base[off:]
			changeLSP(t, s, "f", ver(2), []text.Change{{Range: &r, Text: "世界🎉"}}, enc, nt)
			ps := s.ListLSP("f", enc)
			h := ps[0].Hunks[0]
			if h.Status != StatusPending || h.Range != (text.Range{Start: pos(1, 0), End: pos(2, 0)}) || nt[h.Start:h.End] != "value = 1\n" {
				t.Fatalf("hunk %+v", h)
			}
			plan, _ := s.Accept(Filter{}, enc)
			checkPlan(t, plan)
			if got := onlyFile(t, plan).Expected; got != strings.Replace(proposed, "你好", "你好世界🎉", 1) {
				t.Fatalf("got %q", got)
			}
		})
	}
}

func TestConflictRangeInEncodings(t *testing.T) {
	base := "a\n🎉 x = 1\nb\n"
	s := New()
	s.Put("r1", "f", base, ver(1), "a\n🎉 x = 2\nb\n", false)
	// The user types inside the hunk's line, after the emoji.
	s.DocumentChanged("f", ver(2), "a\n🎉 x = 1 + 0\nb\n")
	for _, enc := range allEncodings {
		h := s.ListLSP("f", enc)[0].Hunks[0]
		if h.Status != StatusConflicted || h.Range.Start != pos(1, 0) || h.Range.End != pos(2, 0) {
			t.Fatalf("%v: hunk %+v", enc, h)
		}
	}
	// Cursor lookups in LSP positions: on the emoji line, in each encoding.
	for _, enc := range allEncodings {
		r := text.Range{Start: pos(1, 3), End: pos(1, 3)}
		if hs := s.HunksAtLSP("f", r, enc); len(hs) != 1 || hs[0].Range.Start != pos(1, 0) {
			t.Fatalf("%v: HunksAtLSP %+v", enc, hs)
		}
		if hs := s.HunksAtLSP("f", text.Range{Start: pos(0, 0), End: pos(0, 1)}, enc); len(hs) != 0 {
			t.Fatalf("%v: line 0 selects %+v", enc, hs)
		}
	}
}

// TestConflictRegionStartsMidLine: a user's deletion from the middle of
// the line before (after an emoji) into the hunk grows the conflict region
// to the deletion's start; its character differs per encoding.
func TestConflictRegionStartsMidLine(t *testing.T) {
	s := New()
	s.Put("r1", "f", "🎉ab\nx = 1\nc\n", ver(1), "🎉ab\nx = 2\nc\n", false)
	if err := s.DocumentChangedEdits("f", ver(2), "🎉a = 1\nc\n", []udiff.Edit{{Start: 5, End: 8}}); err != nil {
		t.Fatal(err)
	}
	for enc, c := range map[text.Encoding]uint32{text.UTF8: 5, text.UTF16: 3, text.UTF32: 2} {
		h := s.ListLSP("f", enc)[0].Hunks[0]
		if h.Status != StatusConflicted || h.Range != (text.Range{Start: pos(0, c), End: pos(1, 0)}) {
			t.Fatalf("%v: hunk %+v", enc, h)
		}
	}
}

// TestCRLFTextEditsNeverSplitALineEnding: refined edits are widened so no
// position falls between "\r" and "\n", which LSP positions cannot name.
func TestCRLFTextEditsNeverSplitALineEnding(t *testing.T) {
	tests := []struct{ base, proposed string }{
		{"a\r\nab\r\nc\r\n", "a\r\nab\nc\r\n"},            // CRLF → LF on one line
		{"a\r\nb\r\nc\r\n", "a\r\nb\r\r\nc\r\n"},          // a CR inserted before CRLF
		{"a\r\nb\r\nc\r\n", "a\r\nb\n\r\nc\r\n"},          // LF inserted
		{"a\r\nb\r\nc\r\n", "a\r\nb\rX\r\nc\r\n"},         // text after a lone CR
		{"x\r\ny\r\n", "x\r\nyy\r\nz\r\n"},                // change and insertion
		{"p\r\nq\r\n", "p\nq\n"},                          // whole file to LF
		{"only\r\n", "only\r\nmore\r\n"},                  // insertion at EOF
		{"a\r\nb\r\n", "a\r\n"},                           // deletion at EOF
		{"😀\r\n你\r\n", "😀\r\n你好\r\n"},                     // non-ASCII before CRLF
		{"t\r\n\r\n\r\nu\r\n", "t\r\n\r\nX\r\n\r\nu\r\n"}, // empty CRLF lines
	}
	for _, tc := range tests {
		for _, enc := range allEncodings {
			s := New()
			s.Put("r1", "f", tc.base, ver(1), tc.proposed, false)
			plan, err := s.Accept(Filter{}, enc)
			if err != nil {
				t.Fatal(err)
			}
			checkPlan(t, plan) // converts positions independently and applies
			fe := onlyFile(t, plan)
			if fe.Expected != tc.proposed {
				t.Fatalf("%q → %q: expected %q", tc.base, tc.proposed, fe.Expected)
			}
			ix := text.NewIndex(fe.Before)
			for _, e := range fe.TextEdits {
				for _, p := range []text.Position{e.Range.Start, e.Range.End} {
					if off := ix.Offset(p, enc); splitsCRLF(fe.Before, off) {
						t.Fatalf("%q: edit %+v splits a CRLF", tc.base, e)
					}
				}
			}
		}
	}
}

func TestRefine(t *testing.T) {
	tests := []struct {
		old, new string
		want     []udiff.Edit
	}{
		{"ab\r\n", "ab\n", []udiff.Edit{{Start: 2, End: 4, New: "\n"}}},
		{"a\r\n", "a\r\r\n", []udiff.Edit{{Start: 1, End: 3, New: "\r\r\n"}}},
		{"hello world\n", "hello there world\n", []udiff.Edit{{Start: 6, End: 6, New: "there "}}},
		{"", "x", []udiff.Edit{{Start: 0, End: 0, New: "x"}}},
	}
	for _, tc := range tests {
		got := refine(tc.old, tc.new)
		if len(got) != len(tc.want) {
			t.Fatalf("refine(%q, %q) = %v, want %v", tc.old, tc.new, got, tc.want)
		}
		for i := range got {
			if got[i] != tc.want[i] {
				t.Fatalf("refine(%q, %q) = %v, want %v", tc.old, tc.new, got, tc.want)
			}
		}
		if out, _ := udiff.Apply(tc.old, got); out != tc.new {
			t.Fatalf("refine(%q, %q) applies to %q", tc.old, tc.new, out)
		}
	}
}
