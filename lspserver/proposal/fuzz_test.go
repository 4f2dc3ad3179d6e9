package proposal

import (
	"testing"
	"unicode/utf8"

	"github.com/agentls/agentls/internal/text"
)

// FuzzStore drives a store with arbitrary texts: a proposal, three arbitrary
// document changes (by diff, by exact edits, and back by LSP changes),
// accepts landed in the order the choice byte picks, and a final reject. Whatever the input, no
// call panics, every snapshot keeps the invariants (pending hunks hold
// their old text on whole lines; ranges in bounds) and every plan's byte
// edits and LSP edits both produce its expected text.
//
//	go test ./lspserver/proposal -run '^$' -fuzz FuzzStore -fuzztime 60s
func FuzzStore(f *testing.F) {
	f.Add(goBase, goProposed, "// top\n"+goBase, goProposed, byte(0))
	f.Add("a\r\nb\r\nc\r\n", "a\r\nB\r\nc\r\n", "a\r\nbz\r\nc\r\n", "a\r\nb\r\n", byte(1))
	f.Add("😀\n你好\nb", "😀\n你好!\nc", "😀😀\n你好\nb", "", byte(2))
	f.Add("", "new file\n", "", "other\n", byte(3))
	f.Add("a\nb\n", "a\nx\nb\n", "ab\n", "a\nb\n", byte(4))
	f.Add("x\n", "x\n", "y\n", "x\n", byte(5))
	f.Add("l0\nl1\nl2\nl3\n", "L0\nl1\nl2\nL3\n", "l0\nl1\nl1.5\nl2\nl3\n", "l0\nl3\n", byte(6))
	f.Fuzz(func(t *testing.T, base, proposed, user1, user2 string, choice byte) {
		for _, s := range []string{base, proposed, user1, user2} {
			if !utf8.ValidString(s) {
				return // LSP text is UTF-8; the server refuses anything else first
			}
		}
		enc := allEncodings[int(choice)%3]
		s := New()
		s.Put("r1", "f", base, ver(1), proposed, base == "" && choice&8 != 0)
		s.Put("r2", "f", base, ver(1), user2, false) // a second run on the same file
		checkInvariants(t, s)

		s.DocumentChanged("f", ver(2), user1)
		checkInvariants(t, s)
		cur := user1
		if len(s.List("f")) == 0 {
			return
		}
		plan, err := s.Accept(Filter{RunID: "r1"}, enc)
		if err != nil {
			t.Fatal(err)
		}
		checkPlan(t, plan)
		for _, c := range plan.Conflicts {
			if h, ok := s.Hunk(c.HunkID); ok && h.Status == StatusPending && !h.Applying {
				// Only an overlap with another hunk of the same plan may
				// leave a pending hunk out, and there is one run here.
				t.Fatalf("pending hunk %+v reported as conflict %+v", h, c)
			}
		}
		if !plan.Empty() {
			clients[int(choice>>4)%len(clients)].land(t, s, plan)
			cur = onlyFile(t, plan).Expected
			checkInvariants(t, s)
		}

		// user2 as exact edits.
		if err := s.DocumentChangedEdits("f", ver(3), user2, diffEdits(cur, user2)); err != nil && len(s.List("f")) > 0 {
			t.Fatal(err)
		}
		checkInvariants(t, s)

		// Back to user1 as LSP changes (the keystroke path), last first.
		// (A diff edit may split a CRLF, which positions cannot name: the
		// store must then agree with the editor's reading of the changes.)
		if cur, ok := storeText(t, s, "f"); ok && cur == user2 {
			var changes []text.Change
			ix := text.NewIndex(user2)
			es := diffEdits(user2, user1)
			for i := len(es) - 1; i >= 0; i-- {
				r := ix.Range(es[i].Start, es[i].End, enc)
				changes = append(changes, text.Change{Range: &r, Text: es[i].New})
			}
			want, err := text.ApplyChanges(user2, changes, enc)
			if err != nil {
				t.Fatal(err)
			}
			changeLSP(t, s, "f", ver(4), changes, enc, want)
			checkInvariants(t, s)
		}
		plan, err = s.Accept(Filter{}, enc)
		if err != nil {
			t.Fatal(err)
		}
		checkPlan(t, plan)
		s.Failed(plan, "fuzz")
		checkInvariants(t, s)
		total := len(s.Select(Filter{}))
		if n := s.Reject(Filter{}); n != total {
			t.Fatalf("rejected %d of %d", n, total)
		}
		if left := s.List(""); len(left) != 0 {
			t.Fatalf("left after reject: %+v", left)
		}
	})
}
