package proposal

import (
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/agentls/agentls/internal/text"
)

const fourBase = "l0\nl1\nl2\nl3\nl4\nl5\nl6\nl7\nl8\nl9\n"
const fourProposed = "L0\nl1\nl2\nL3 changed\nl4\nl5\nl6 gone\nl8\nl9\nnew\n"

// clients are the orders in which a client's answer to an applyEdit can
// reach the store.
var clients = []struct {
	name string
	land func(t testing.TB, s *Store, p AcceptPlan)
}{
	{"didChange then Applied", func(t testing.TB, s *Store, p AcceptPlan) {
		for _, fe := range p.Files {
			s.DocumentChanged(fe.Path, ver(50), fe.Expected)
		}
		s.Applied(p)
	}},
	{"Applied then didChange", func(t testing.TB, s *Store, p AcceptPlan) {
		s.Applied(p)
		for _, fe := range p.Files {
			s.DocumentChanged(fe.Path, ver(50), fe.Expected)
		}
	}},
	{"incremental didChange then Applied", func(t testing.TB, s *Store, p AcceptPlan) {
		// As VS Code reports an applied WorkspaceEdit: one content change
		// per TextEdit, last first, so earlier positions stay valid.
		for _, fe := range p.Files {
			var changes []text.Change
			for i := len(fe.TextEdits) - 1; i >= 0; i-- {
				r := fe.TextEdits[i].Range
				changes = append(changes, text.Change{Range: &r, Text: fe.TextEdits[i].NewText})
			}
			changeLSP(t, s, fe.Path, ver(50), changes, p.Encoding, fe.Expected)
		}
		s.Applied(p)
	}},
	{"Applied, file not open", func(t testing.TB, s *Store, p AcceptPlan) {
		s.Applied(p)
	}},
}

func TestAcceptOneThenTheOthersStillLand(t *testing.T) {
	for _, c := range clients {
		t.Run(c.name, func(t *testing.T) {
			s := New()
			s.Put("r1", "f", fourBase, ver(1), fourProposed, false)
			hs := s.List("f")[0].Hunks
			if len(hs) != 4 {
				t.Fatalf("want 4 hunks, got %+v", hs)
			}
			plan, err := s.Accept(Filter{HunkID: hs[1].ID}, text.UTF16)
			if err != nil {
				t.Fatal(err)
			}
			checkPlan(t, plan)
			fe := onlyFile(t, plan)
			if !slices.Equal(fe.HunkIDs, []string{hs[1].ID}) || *fe.Version != 1 || fe.Before != fourBase {
				t.Fatalf("plan %+v", fe)
			}
			wantEdits := []text.Edit{{Range: text.Range{Start: text.Position{Line: 3, Character: 0}, End: text.Position{Line: 3, Character: 1}}, NewText: "L"},
				{Range: text.Range{Start: text.Position{Line: 3, Character: 2}, End: text.Position{Line: 3, Character: 2}}, NewText: " changed"}}
			if !reflect.DeepEqual(fe.TextEdits, wantEdits) {
				t.Fatalf("text edits %+v", fe.TextEdits)
			}
			if h, _ := s.Hunk(hs[1].ID); !h.Applying {
				t.Fatal("accepted hunk not marked applying")
			}
			c.land(t, s, plan)
			checkInvariants(t, s)
			if _, ok := s.Hunk(hs[1].ID); ok {
				t.Fatal("accepted hunk still listed")
			}
			rest := s.List("f")[0]
			if rest.Text != fe.Expected || len(rest.Hunks) != 3 {
				t.Fatalf("after accept: %+v", rest)
			}
			// The user types between hunks, then accepts the last one, then
			// the rest.
			cur := strings.Replace(rest.Text, "l5\n", "l5 typed\n", 1)
			s.DocumentChanged("f", ver(60), cur)
			plan, err = s.Accept(Filter{HunkID: hs[3].ID}, text.UTF8)
			if err != nil {
				t.Fatal(err)
			}
			checkPlan(t, plan)
			c.land(t, s, plan)
			got := acceptAll(t, s, "f")
			want := strings.Replace(fourProposed, "l5\n", "l5 typed\n", 1)
			if got != want {
				t.Fatalf("final %q, want %q", got, want)
			}
			if len(s.List("")) != 0 {
				t.Fatal("proposals left")
			}
		})
	}
}

func TestAcceptFailedKeepsHunksPending(t *testing.T) {
	s := New()
	s.Put("r1", "f", fourBase, ver(1), fourProposed, false)
	plan, _ := s.Accept(Filter{Path: "f"}, text.UTF16)
	ids := onlyFile(t, plan).HunkIDs
	s.Failed(plan, "document version mismatch")
	for _, id := range ids {
		h, ok := s.Hunk(id)
		if !ok || h.Status != StatusPending || h.Applying || h.LastError != "document version mismatch" {
			t.Fatalf("hunk after failure: %+v", h)
		}
	}
	s.Failed(plan, "again") // unknown by now: no effect
	s.Applied(plan)         // likewise
	if h, _ := s.Hunk(ids[0]); h.LastError != "document version mismatch" {
		t.Fatalf("late answers changed the hunk: %+v", h)
	}
	if got := acceptAll(t, s, "f"); got != fourProposed {
		t.Fatalf("retry gives %q", got)
	}
}

func TestFailedAfterUserEditLeavesRebasedHunks(t *testing.T) {
	s := New()
	s.Put("r1", "f", fourBase, ver(1), fourProposed, false)
	plan, _ := s.Accept(Filter{}, text.UTF16)
	// The user typed before the client got the edit; the client refuses it.
	s.DocumentChanged("f", ver(2), "top\n"+fourBase)
	s.Failed(plan, "version 1 is not 2")
	checkInvariants(t, s)
	if got := acceptAll(t, s, "f"); got != "top\n"+fourProposed {
		t.Fatalf("got %q", got)
	}
}

func TestAcceptWhileAnEarlierAcceptIsInFlight(t *testing.T) {
	s := New()
	s.Put("r1", "f", fourBase, ver(1), fourProposed, false)
	s.Put("r1", "g", "x\n", ver(1), "y\n", false)
	first, _ := s.Accept(Filter{Path: "f", HunkID: s.List("f")[0].Hunks[0].ID}, text.UTF16)
	second, err := s.Accept(Filter{}, text.UTF16)
	if err != nil {
		t.Fatal(err)
	}
	// g is free; every hunk of f waits.
	if len(second.Files) != 1 || second.Files[0].Path != "g" || len(second.Conflicts) != 4 {
		t.Fatalf("second plan %+v", second)
	}
	if second.Conflicts[0].Reason != "an earlier accept of this change is still being applied" ||
		second.Conflicts[1].Reason != "an earlier accept of this file is still being applied" {
		t.Fatalf("conflicts %+v", second.Conflicts)
	}
	// Once the first landed (didChange seen), f is free again even before
	// the applyEdit answer.
	s.DocumentChanged("f", ver(2), onlyFile(t, first).Expected)
	third, _ := s.Accept(Filter{Path: "f"}, text.UTF16)
	if fe := onlyFile(t, third); len(fe.HunkIDs) != 3 || *fe.Version != 2 {
		t.Fatalf("third plan %+v", fe)
	}
	s.Applied(first)
	s.Applied(second)
	s.DocumentChanged("f", ver(3), onlyFile(t, third).Expected)
	s.Applied(third)
	if len(s.List("")) != 0 {
		t.Fatalf("left: %+v", s.List(""))
	}
}

func TestAcceptNeverIncludesConflictedHunks(t *testing.T) {
	s := New()
	s.Put("r1", "f", fourBase, ver(1), fourProposed, false)
	cur := strings.Replace(fourBase, "l3\n", "l3 mine\n", 1)
	s.DocumentChanged("f", ver(2), cur)
	plan, err := s.Accept(Filter{}, text.UTF16)
	if err != nil {
		t.Fatal(err)
	}
	checkPlan(t, plan)
	fe := onlyFile(t, plan)
	if len(fe.HunkIDs) != 3 || len(plan.Conflicts) != 1 || plan.Conflicts[0].Path != "f" ||
		!strings.HasPrefix(plan.Conflicts[0].Reason, "the lines were edited since the proposal") {
		t.Fatalf("plan %+v", plan)
	}
	if strings.Contains(fe.Expected, "L3 changed") || !strings.Contains(fe.Expected, "l3 mine") {
		t.Fatalf("conflicted hunk applied: %q", fe.Expected)
	}
	// Accepting only the conflicted hunk gives an empty plan and its reason.
	s.Applied(plan)
	s.DocumentChanged("f", ver(3), fe.Expected)
	only, _ := s.Accept(Filter{HunkID: plan.Conflicts[0].HunkID}, text.UTF16)
	if !only.Empty() || len(only.Conflicts) != 1 {
		t.Fatalf("plan %+v", only)
	}
}

func TestAcceptUnknownHunk(t *testing.T) {
	s := New()
	if _, err := s.Accept(Filter{HunkID: "r9#1"}, text.UTF16); !errors.Is(err, ErrNotFound) {
		t.Fatalf("err = %v", err)
	}
	plan, err := s.Accept(Filter{RunID: "nobody"}, text.UTF16)
	if err != nil || !plan.Empty() || len(plan.Conflicts) != 0 {
		t.Fatalf("plan %+v, %v", plan, err)
	}
}

func TestAcceptOverlappingRuns(t *testing.T) {
	s := New()
	base := "a\nb\nc\n"
	s.Put("r1", "f", base, ver(1), "a\nB1\nc\n", false)
	s.Put("r2", "f", base, ver(1), "a\nB2\nc\nd\n", false)
	plan, _ := s.Accept(Filter{}, text.UTF16)
	checkPlan(t, plan)
	fe := onlyFile(t, plan)
	if len(fe.HunkIDs) != 2 || len(plan.Conflicts) != 1 ||
		!strings.HasPrefix(plan.Conflicts[0].Reason, "overlaps change r1#1 of run r1") {
		t.Fatalf("plan %+v", plan)
	}
	if fe.Expected != "a\nB1\nc\nd\n" {
		t.Fatalf("expected %q", fe.Expected)
	}
	s.DocumentChanged("f", ver(2), fe.Expected)
	s.Applied(plan)
	// r2's change of b is now a conflict: r1's change took its line.
	hs := s.Select(Filter{})
	if len(hs) != 1 || hs[0].RunID != "r2" || hs[0].Status != StatusConflicted {
		t.Fatalf("left %+v", hs)
	}

	// Two runs proposing the same change: accepting one conflicts the
	// other for good, naming the accepted hunk, and it never applies.
	s2 := New()
	s2.Put("r1", "f", base, ver(1), "a\nB\nc\n", false)
	s2.Put("r2", "f", base, ver(1), "a\nB\nc\n", false)
	p2, _ := s2.Accept(Filter{RunID: "r1"}, text.UTF16)
	s2.DocumentChanged("f", ver(2), onlyFile(t, p2).Expected)
	s2.Applied(p2)
	left := s2.Select(Filter{})
	if len(left) != 1 || left[0].RunID != "r2" || left[0].Status != StatusConflicted || left[0].SupersededBy != "r1#1" ||
		!strings.Contains(left[0].Reason, "change r1#1 of run r1, which was accepted, already makes this change") {
		t.Fatalf("left %+v", left)
	}
	if p3, _ := s2.Accept(Filter{}, text.UTF16); !p3.Empty() || len(p3.Conflicts) != 1 {
		t.Fatalf("accept after: %+v", p3)
	}
}

func TestAcceptSeveralFilesPartialFailure(t *testing.T) {
	s := New()
	s.Put("r1", "a.go", "a\n", ver(1), "A\n", false)
	s.Put("r1", "b.go", "b\n", nil, "B\n", false)
	plan, _ := s.Accept(Filter{RunID: "r1"}, text.UTF32)
	checkPlan(t, plan)
	if len(plan.Files) != 2 || plan.Files[0].Path != "a.go" || plan.Files[1].Path != "b.go" || plan.Files[1].Version != nil {
		t.Fatalf("plan %+v", plan)
	}
	// The client applied a.go, then failed on b.go.
	s.DocumentChanged("a.go", ver(2), "A\n")
	s.Failed(plan, "b.go: permission denied")
	if len(s.List("a.go")) != 0 {
		t.Fatal("a.go's applied hunk came back")
	}
	hs := s.Select(Filter{Path: "b.go"})
	if len(hs) != 1 || hs[0].LastError != "b.go: permission denied" || hs[0].Applying {
		t.Fatalf("b.go %+v", hs)
	}
}

func TestReject(t *testing.T) {
	s := New()
	s.Put("r1", "f", fourBase, ver(1), fourProposed, false)
	s.Put("r2", "f", fourBase, ver(1), strings.Replace(fourBase, "l8", "L8", 1), false)
	s.Put("r2", "g", "x\n", nil, "y\n", false)
	id := s.List("f")[0].Hunks[2].ID
	if n := s.Reject(Filter{HunkID: id}); n != 1 {
		t.Fatalf("rejected %d", n)
	}
	if _, ok := s.Hunk(id); ok {
		t.Fatal("rejected hunk still there")
	}
	if n := s.Reject(Filter{HunkID: id}); n != 0 {
		t.Fatalf("second reject dropped %d", n)
	}
	if n := s.Reject(Filter{RunID: "r2", Path: "f"}); n != 1 {
		t.Fatalf("rejected %d", n)
	}
	// An in-flight hunk is not rejected.
	plan, _ := s.Accept(Filter{Path: "g"}, text.UTF16)
	if n := s.Reject(Filter{}); n != 3 {
		t.Fatalf("reject all dropped %d, want the 3 left of r1", n)
	}
	if hs := s.Select(Filter{}); len(hs) != 1 || hs[0].Path != "g" {
		t.Fatalf("left %+v", hs)
	}
	s.Applied(plan)
	if len(s.List("")) != 0 {
		t.Fatal("not empty")
	}
}

func TestSelectAndHunk(t *testing.T) {
	s := New()
	s.Put("r1", "f", fourBase, ver(1), fourProposed, false)
	s.Put("r2", "g", "x\n", nil, "y\n", false)
	if n := len(s.Select(Filter{})); n != 5 {
		t.Fatalf("select all: %d", n)
	}
	if n := len(s.Select(Filter{RunID: "r1"})); n != 4 {
		t.Fatalf("select r1: %d", n)
	}
	if n := len(s.Select(Filter{Path: "g"})); n != 1 {
		t.Fatalf("select g: %d", n)
	}
	id := s.Select(Filter{Path: "g"})[0].ID
	if hs := s.Select(Filter{HunkID: id, RunID: "r1"}); len(hs) != 0 {
		t.Fatalf("mismatched run selected %+v", hs)
	}
	if h, ok := s.Hunk(id); !ok || h.OldText != "x\n" || h.NewText != "y\n" || h.RunID != "r2" {
		t.Fatalf("hunk %+v", h)
	}
	// Snapshots are copies.
	ps := s.List("f")
	ps[0].Hunks[0].NewText = "mutated"
	*ps[0].Version = 99
	if again := s.List("f"); again[0].Hunks[0].NewText == "mutated" || *again[0].Version == 99 {
		t.Fatal("snapshot aliases the store")
	}
}

// TestLandedSurvivesLaterTyping: once the document became the plan's
// expected text, Landed stays true while the user types on, until the plan
// is settled.
func TestLandedSurvivesLaterTyping(t *testing.T) {
	s := New()
	s.Put("r1", "f", fourBase, ver(1), fourProposed, false)
	p, err := s.Accept(Filter{}, text.UTF16)
	if err != nil || len(p.Files) != 1 {
		t.Fatalf("Accept = %+v, %v", p, err)
	}
	if s.Landed(p, "f") {
		t.Fatal("landed before any change")
	}
	s.DocumentChanged("f", ver(2), fourBase+"typed before\n")
	if s.Landed(p, "f") {
		t.Fatal("landed on a change that is not the plan's")
	}
	s.Failed(p, "stale")
	p, _ = s.Accept(Filter{}, text.UTF16)
	s.DocumentChanged("f", ver(3), p.Files[0].Expected)
	s.DocumentChanged("f", ver(4), p.Files[0].Expected+"typed after\n")
	if !s.Landed(p, "f") {
		t.Fatal("typing after the edit landed hid it")
	}
	s.Applied(p)
	if s.Landed(p, "f") {
		t.Fatal("a settled plan still reports landed")
	}
	if got := s.List("f"); len(got) != 0 {
		t.Fatalf("hunks left after the plan landed: %+v", got)
	}
}

// TestPlanLandsBeforeTypingInOneDidChange: a client that sends the edit's
// didChange late (eglot, from an idle timer) sends, in the same
// notification, the changes of the edit and then what the user typed
// after it. The plan lands at the change after which the document is its
// result; the typing after it is rebased as the user's. A didChange whose
// texts never equal the plan's result (here the typing comes first, so
// the edit's ranges land elsewhere) lands nothing.
func TestPlanLandsBeforeTypingInOneDidChange(t *testing.T) {
	for _, typedFirst := range []bool{false, true} {
		s := New()
		s.Put("r1", "f", fourBase, ver(1), fourProposed, false)
		s.Put("r2", "f", fourBase, ver(1), strings.Replace(fourBase, "l5\n", "L5\n", 1), false)
		p, err := s.Accept(Filter{RunID: "r1"}, text.UTF16) // four edits
		if err != nil || len(p.Files) != 1 || len(p.Files[0].TextEdits) < 2 {
			t.Fatalf("Accept = %+v, %v", p, err)
		}
		fe := p.Files[0]
		var changes []text.Change
		for i := len(fe.TextEdits) - 1; i >= 0; i-- {
			r := fe.TextEdits[i].Range
			changes = append(changes, text.Change{Range: &r, Text: fe.TextEdits[i].NewText})
		}
		// The user types "!?" at the end of line 4, away from every hunk.
		at := func(c uint32) *text.Range {
			return &text.Range{Start: text.Position{Line: 4, Character: c}, End: text.Position{Line: 4, Character: c}}
		}
		typing := []text.Change{{Range: at(2), Text: "!"}, {Range: at(3), Text: "?"}}
		all := append(append([]text.Change(nil), changes...), typing...)
		if typedFirst {
			all = append(append([]text.Change(nil), typing...), changes...)
		}
		final, err := text.ApplyChanges(fourBase, all, text.UTF16)
		if err != nil {
			t.Fatal(err)
		}
		changeLSP(t, s, "f", ver(5), all, text.UTF16, final)
		checkInvariants(t, s)
		if got := s.Landed(p, "f"); got == typedFirst {
			t.Fatalf("typed first %v: Landed = %v", typedFirst, got)
		}
		if typedFirst {
			s.Failed(p, "not applied")
			if got := s.List("f"); len(got) != 2 || got[0].Hunks[0].LastError != "not applied" {
				t.Fatalf("after a didChange that is not the plan's: %+v", got)
			}
			continue
		}
		s.Applied(p)
		if final != strings.Replace(fe.Expected, "l4\n", "l4!?\n", 1) {
			t.Fatalf("text %q", final)
		}
		// Run r2's hunk still makes its change on the user's text.
		got := s.List("f")
		if want := strings.Replace(final, "l5\n", "L5\n", 1); len(got) != 1 || got[0].RunID != "r2" || got[0].Result() != want {
			t.Fatalf("proposals now %+v, want r2's making %q", got, want)
		}
	}
}
