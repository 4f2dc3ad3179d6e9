package proposal

import (
	"strings"
	"testing"

	"github.com/agentls/agentls/internal/text"
)

const clashBase = "package p\n\nfunc a() {}\n\nfunc b() {}\n"

// twoRunsSameBlock is the reported case: the same prompt run twice, both
// proposals pending, each inserting the same block.
func twoRunsSameBlock(t *testing.T) (*Store, string) {
	t.Helper()
	s := New()
	block := "// helper does it.\nfunc helper() int {\n\treturn 1\n}\n\n"
	proposed := strings.Replace(clashBase, "func b", block+"func b", 1)
	s.Put("r1", "f", clashBase, ver(1), proposed, false)
	s.Put("r2", "f", clashBase, ver(1), proposed, false)
	return s, proposed
}

func TestAcceptAllTwoRunsSameInsertionAppliesItOnce(t *testing.T) {
	for _, c := range clients {
		t.Run(c.name, func(t *testing.T) {
			s, proposed := twoRunsSameBlock(t)
			plan, err := s.Accept(Filter{Path: "f"}, text.UTF16)
			if err != nil {
				t.Fatal(err)
			}
			checkPlan(t, plan)
			fe := onlyFile(t, plan)
			if fe.Expected != proposed || len(fe.HunkIDs) != 1 || fe.HunkIDs[0] != "r1#1" {
				t.Fatalf("plan %+v", fe)
			}
			if len(plan.Conflicts) != 1 || plan.Conflicts[0].HunkID != "r2#2" ||
				plan.Conflicts[0].Reason != "change r1#1 of run r1, accepted at the same time, already makes this change" {
				t.Fatalf("conflicts %+v", plan.Conflicts)
			}
			c.land(t, s, plan)
			checkInvariants(t, s)
			h, ok := s.Hunk("r2#2")
			if !ok || h.Status != StatusConflicted || h.SupersededBy != "r1#1" || !strings.Contains(h.Reason, "r1#1") {
				t.Fatalf("r2's hunk after the accept: %+v (%v)", h, ok)
			}
			// Accepting again applies nothing, honestly.
			again, _ := s.Accept(Filter{}, text.UTF16)
			if !again.Empty() || len(again.Conflicts) != 1 || again.Conflicts[0].HunkID != "r2#2" {
				t.Fatalf("second accept %+v", again)
			}
			if n := s.Reject(Filter{RunID: "r2"}); n != 1 || len(s.List("")) != 0 {
				t.Fatalf("reject %d, left %+v", n, s.List(""))
			}
		})
	}
}

func TestAcceptOneRunThenTheOtherNeverDuplicates(t *testing.T) {
	for _, first := range []string{"r1", "r2"} {
		for _, c := range clients {
			t.Run(first+"/"+c.name, func(t *testing.T) {
				s, proposed := twoRunsSameBlock(t)
				plan, _ := s.Accept(Filter{RunID: first}, text.UTF8)
				checkPlan(t, plan)
				c.land(t, s, plan)
				// Whatever is accepted next (the other run, its hunk, all).
				for _, f := range []Filter{{RunID: "r1"}, {RunID: "r2"}, {HunkID: "r1#1"}, {HunkID: "r2#2"}, {}} {
					if _, ok := s.Hunk(f.HunkID); f.HunkID != "" && !ok {
						continue
					}
					p, err := s.Accept(f, text.UTF8)
					if err != nil {
						t.Fatal(err)
					}
					if !p.Empty() {
						t.Fatalf("accept %+v after %s applied %+v", f, first, p.Files)
					}
				}
				if got, _ := storeText(t, s, "f"); got != "" && got != proposed {
					t.Fatalf("text %q", got)
				}
			})
		}
	}
}

func TestSupersededNeverHeals(t *testing.T) {
	s, _ := twoRunsSameBlock(t)
	plan, _ := s.Accept(Filter{HunkID: "r1#1"}, text.UTF16)
	clients[0].land(t, s, plan)
	// The user undoes the accept: r2's old lines are back, yet its hunk
	// stays conflicted (it was superseded, not edited over).
	s.DocumentChanged("f", ver(60), clashBase)
	h, _ := s.Hunk("r2#2")
	if h.Status != StatusConflicted || h.SupersededBy != "r1#1" {
		t.Fatalf("after undo: %+v", h)
	}
	if p, _ := s.Accept(Filter{}, text.UTF16); !p.Empty() {
		t.Fatalf("superseded hunk applied after undo: %+v", p)
	}
	// The same run staging its file again (same change) keeps it
	// conflicted; a new proposal of the run is a fresh review.
	proposed := s.List("f")[0].Proposed
	s.Put("r2", "f", clashBase, ver(60), proposed+"// more\n", false)
	for _, h := range s.Select(Filter{RunID: "r2"}) {
		if h.ID == "r2#2" && h.Status != StatusConflicted {
			t.Fatalf("re-staged superseded hunk is %+v", h)
		}
	}
}

func TestClashRules(t *testing.T) {
	base := "a\nb\nc\nd\ne\nf\ng\n"
	tests := []struct {
		name   string
		p1, p2 string
		want   clashKind
	}{
		{"same replacement", "a\nB\nc\nd\ne\nf\ng\n", "a\nB\nc\nd\ne\nf\ng\n", clashSame},
		{"different replacement of one line", "a\nB1\nc\nd\ne\nf\ng\n", "a\nB2\nc\nd\ne\nf\ng\n", clashOverlap},
		{"same deletion", "a\nc\nd\ne\nf\ng\n", "a\nc\nd\ne\nf\ng\n", clashSame},
		{"same insertion", "a\nx = 1\nb\nc\nd\ne\nf\ng\n", "a\nx = 1\nb\nc\nd\ne\nf\ng\n", clashSame},
		{"different insertions at one point", "a\nx = 1\nb\nc\nd\ne\nf\ng\n", "a\ny = 2\nb\nc\nd\ne\nf\ng\n", clashOverlap},
		{"insertion inside a replaced block", "a\nB\nC\nd\ne\nf\ng\n", "a\nb\nx = 1\nc\nd\ne\nf\ng\n", clashOverlap},
		{"neighbouring lines", "a\nB\nc\nd\ne\nf\ng\n", "a\nb\nC\nd\ne\nf\ng\n", clashNone},
		{"insertion before a rewrite that holds it", "a\nx = 1\nB\nc\nd\ne\nf\ng\n", "a\nx = 1\nb\nc\nd\ne\nf\ng\n", clashSame},
		{"insertion after a rewrite, different text", "a\nB\nc\nd\ne\nf\ng\n", "a\nb\nx = 1\nc\nd\ne\nf\ng\n", clashNone},
		{"same two-line block, far apart", "a\nfunc h() {\n\treturn 1\n}\nb\nc\nd\ne\nf\ng\n", "a\nb\nc\nd\ne\nf\nfunc h() {\n\treturn 1\n}\ng\n", clashSame},
		{"same one line, far apart", "a\nx = 1\nb\nc\nd\ne\nf\ng\n", "a\nb\nc\nd\ne\nf\nx = 1\ng\n", clashNone},
		{"same closing brace, touching", "a\n}\nb\nc\nd\ne\nf\ng\n", "a\nB\n}\nc\nd\ne\nf\ng\n", clashNone},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := New()
			s.Put("r1", "f", base, nil, tc.p1, false)
			s.Put("r2", "f", base, nil, tc.p2, false)
			var got clashKind
			for _, a := range s.files["f"].props[0].hunks {
				for _, b := range s.files["f"].props[1].hunks {
					if k := clash(a, b); k != clashNone && got == clashNone {
						got = k
					}
					if clash(a, b) != clash(b, a) {
						t.Fatalf("clash is not symmetric for %+v and %+v", a, b)
					}
				}
			}
			if got != tc.want {
				t.Fatalf("clash = %d, want %d", got, tc.want)
			}
			// Accepting everything never applies two clashing hunks, and
			// leaves every clashing one conflicted.
			plan, _ := s.Accept(Filter{}, text.UTF16)
			checkPlan(t, plan)
			if (len(plan.Conflicts) > 0) != (tc.want != clashNone) {
				t.Fatalf("conflicts %+v", plan.Conflicts)
			}
			clients[0].land(t, s, plan)
			for _, h := range s.Select(Filter{}) {
				if h.Status != StatusConflicted {
					t.Fatalf("left pending after accept all: %+v", h)
				}
			}
		})
	}
}

// The client applied the plan together with a keystroke in one didChange,
// so the store never saw the plan's exact result: the hunks it clashes
// with are superseded all the same when the client says it applied.
func TestSupersedeWhenThePlanLandsOnMovedText(t *testing.T) {
	s, proposed := twoRunsSameBlock(t)
	plan, _ := s.Accept(Filter{RunID: "r1"}, text.UTF16)
	s.DocumentChanged("f", ver(9), "// typed\n"+proposed)
	s.Applied(plan)
	checkInvariants(t, s)
	for _, h := range s.Select(Filter{}) {
		if h.Status == StatusPending {
			t.Fatalf("pending after the accept: %+v", h)
		}
	}
	if p, _ := s.Accept(Filter{}, text.UTF16); !p.Empty() {
		t.Fatalf("applies again: %+v", p.Files)
	}
}

func TestCreatedFileInAnEditorWithAnImplicitFinalNewline(t *testing.T) {
	for _, tc := range []struct{ buffer, proposed string }{
		{"\n", "import pytest\n\n\ndef test_cart():\n    assert True\n"},
		{"\n", "no final newline"},
		{"\r\n", "a\r\nb\r\n"},
		{"", "x\n"},
	} {
		for _, enc := range allEncodings {
			s := New()
			s.Put("r1", "test_cart.py", "", nil, tc.proposed, true)
			// Neovim opens the path (no file yet): an empty buffer is one
			// line ending.
			s.DocumentChanged("test_cart.py", ver(0), tc.buffer)
			ps := s.List("test_cart.py")
			if len(ps) != 1 || ps[0].Status() != StatusPending || !ps[0].Created || ps[0].Result() != tc.proposed {
				t.Fatalf("%q: %+v", tc.buffer, ps)
			}
			plan, err := s.Accept(Filter{}, enc)
			if err != nil {
				t.Fatal(err)
			}
			checkPlan(t, plan)
			fe := onlyFile(t, plan)
			if !fe.Created || fe.Before != tc.buffer || fe.Expected != tc.proposed {
				t.Fatalf("%q: plan %+v", tc.buffer, fe)
			}
			s.DocumentChanged("test_cart.py", ver(1), tc.proposed)
			s.Applied(plan)
			if n := len(s.List("")); n != 0 {
				t.Fatalf("%d proposals left", n)
			}
		}
	}
	// Typing in the empty buffer conflicts it; emptying it again heals.
	s := New()
	s.Put("r1", "n.py", "", nil, "x = 1\n", true)
	s.DocumentChanged("n.py", ver(0), "\n")
	s.DocumentChanged("n.py", ver(1), "y\n")
	if h := s.Select(Filter{})[0]; h.Status != StatusConflicted {
		t.Fatalf("typed: %+v", h)
	}
	s.DocumentChanged("n.py", ver(2), "\n")
	if h := s.Select(Filter{})[0]; h.Status != StatusPending || h.Start != 0 || h.End != 1 {
		t.Fatalf("emptied: %+v", h)
	}
}

func TestTwoRunsCreateTheSameFile(t *testing.T) {
	s := New()
	s.Put("r1", "n.py", "", nil, "x = 1\n", true)
	s.Put("r2", "n.py", "", nil, "x = 1\n", true)
	plan, _ := s.Accept(Filter{}, text.UTF16)
	checkPlan(t, plan)
	if fe := onlyFile(t, plan); fe.Expected != "x = 1\n" || len(plan.Conflicts) != 1 {
		t.Fatalf("plan %+v", plan)
	}
	s.DocumentChanged("n.py", ver(1), "x = 1\n")
	s.Applied(plan)
	hs := s.Select(Filter{})
	if len(hs) != 1 || hs[0].RunID != "r2" || hs[0].Status != StatusConflicted || hs[0].SupersededBy == "" {
		t.Fatalf("left %+v", hs)
	}
	// Emptying the file does not bring r2's copy back.
	s.DocumentChanged("n.py", ver(2), "")
	if hs := s.Select(Filter{}); hs[0].Status != StatusConflicted {
		t.Fatalf("after emptying %+v", hs)
	}
}

// A conflicted hunk's reason quotes its lines as they read now, not as
// they read when the conflict began.
func TestConflictReasonQuotesTheCurrentText(t *testing.T) {
	s := New()
	s.Put("r1", "f", "a\n\tb := 1\nc\n", nil, "a\n\tb := 2\nc\n", false)
	s.DocumentChanged("f", ver(1), "a\n\tb := 10\nc\n")
	s.DocumentChanged("f", ver(2), "a\n\tb  :=  100\nc\n")
	h := s.Select(Filter{})[0]
	if want := `the lines were edited since the proposal; they now read "\tb  :=  100\n"`; h.Status != StatusConflicted || h.Reason != want {
		t.Fatalf("reason %q, want %q", h.Reason, want)
	}
	plan, _ := s.Accept(Filter{}, text.UTF16)
	if len(plan.Conflicts) != 1 || plan.Conflicts[0].Reason != h.Reason {
		t.Fatalf("accept conflicts %+v", plan.Conflicts)
	}
}
