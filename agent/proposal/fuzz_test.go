package proposal

import (
	"testing"
	"unicode/utf8"

	"github.com/agentls/agentls/internal/text"
)

// FuzzStore drives a store with arbitrary texts: a proposal, a second run
// proposing the same change (the same prompt twice) and a third an
// arbitrary one, three arbitrary document changes (by diff, by exact
// edits, and back by LSP changes), accepts landed in the order the choice
// byte picks, and a final reject. Whatever the input, no call panics,
// every snapshot keeps the invariants (pending hunks hold their old text
// on whole lines; ranges in bounds), every plan's byte edits and LSP
// edits both produce its expected text, no plan holds two clashing hunks,
// and once a hunk is accepted its twin from the repeated run never
// applies.
//
//	go test ./agent/proposal -run '^$' -fuzz FuzzStore -fuzztime 60s
func FuzzStore(f *testing.F) {
	f.Add(goBase, goProposed, "// top\n"+goBase, goProposed, byte(0))
	f.Add("a\r\nb\r\nc\r\n", "a\r\nB\r\nc\r\n", "a\r\nbz\r\nc\r\n", "a\r\nb\r\n", byte(1))
	f.Add("😀\n你好\nb", "😀\n你好!\nc", "😀😀\n你好\nb", "", byte(2))
	f.Add("", "new file\n", "", "other\n", byte(3))
	f.Add("a\nb\n", "a\nx\nb\n", "ab\n", "a\nb\n", byte(4))
	f.Add("x\n", "x\n", "y\n", "x\n", byte(5))
	f.Add("", "import os\n", "\n", "\r\n", byte(8))                        // a new file in an editor with 'eol'
	f.Add("a\nb\n", "a\nx()\ny()\nb\n", "a\nb\n", "a\nx()\nb\n", byte(16)) // overlapping insertions
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
		s.Put("r2", "f", base, ver(1), user2, false)                          // a second run on the same file
		s.Put("r3", "f", base, ver(1), proposed, base == "" && choice&8 != 0) // the same prompt again
		checkInvariants(t, s)

		s.DocumentChanged("f", ver(2), user1)
		checkInvariants(t, s)
		cur := user1
		if len(s.List("f")) == 0 {
			return
		}
		// r3's hunks that are twins of r1's (same place, same change).
		twins := map[string]string{} // r1 hunk id → r3 hunk id
		for _, a := range s.Select(Filter{RunID: "r1"}) {
			for _, b := range s.Select(Filter{RunID: "r3"}) {
				if a.Start == b.Start && a.End == b.End && a.OldText == b.OldText && a.NewText == b.NewText {
					twins[a.ID] = b.ID
				}
			}
		}
		plan, err := s.Accept(Filter{RunID: "r1"}, enc)
		if err != nil {
			t.Fatal(err)
		}
		checkPlan(t, plan)
		checkNoClash(t, s, plan)
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
			for _, id := range onlyFile(t, plan).HunkIDs {
				if twin, ok := twins[id]; ok {
					if h, live := s.Hunk(twin); live && h.Status == StatusPending {
						t.Fatalf("r1's %s was applied, its twin %+v is still pending", id, h)
					}
				}
			}
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
		checkNoClash(t, s, plan)
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

// checkNoClash asserts that no two hunks of plan (still listed, applying)
// clash.
func checkNoClash(t testing.TB, s *Store, plan AcceptPlan) {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, fe := range plan.Files {
		for i, a := range fe.HunkIDs {
			for _, b := range fe.HunkIDs[i+1:] {
				if ha, hb := s.byID[a], s.byID[b]; ha != nil && hb != nil && clash(ha, hb) != clashNone {
					t.Fatalf("plan holds clashing hunks %s and %s", a, b)
				}
			}
		}
	}
}
