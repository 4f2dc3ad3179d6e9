package proposal

import (
	"reflect"
	"strings"
	"testing"
)

func TestPutComputesHunks(t *testing.T) {
	type hk struct {
		start, end int
		old, new   string
	}
	tests := []struct {
		name           string
		base, proposed string
		want           []hk
	}{
		{"one line changed", "a\nb\nc\n", "a\nB\nc\n", []hk{{2, 4, "b\n", "B\n"}}},
		{"two separate changes", "a\nb\nc\nd\ne\n", "A\nb\nc\nd\nE\n",
			[]hk{{0, 2, "a\n", "A\n"}, {8, 10, "e\n", "E\n"}}},
		{"adjacent lines form one hunk", "a\nb\nc\nd\n", "a\nB\nC\nd\n", []hk{{2, 6, "b\nc\n", "B\nC\n"}}},
		{"pure insertion", "a\nb\n", "a\nx\ny\nb\n", []hk{{2, 2, "", "x\ny\n"}}},
		{"insertion at EOF", "a\n", "a\nz\n", []hk{{2, 2, "", "z\n"}}},
		{"deletion", "a\nb\nc\n", "a\nc\n", []hk{{2, 4, "b\n", ""}}},
		{"last line without newline changed", "a\nb", "a\nc", []hk{{2, 3, "b", "c"}}},
		{"newline added at EOF", "a\nb", "a\nb\n", []hk{{2, 3, "b", "b\n"}}},
		{"line appended after unterminated last line", "a\nb", "a\nb\nc", []hk{{2, 3, "b", "b\nc"}}},
		{"CRLF", "a\r\nb\r\nc\r\n", "a\r\nB\r\nc\r\n", []hk{{3, 6, "b\r\n", "B\r\n"}}},
		{"new file", "", "package x\n", []hk{{0, 0, "", "package x\n"}}},
		{"everything deleted", "a\nb\n", "", []hk{{0, 4, "a\nb\n", ""}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := New()
			s.Put("r1", "f", tt.base, ver(1), tt.proposed, tt.base == "")
			ps := s.List("f")
			if len(ps) != 1 {
				t.Fatalf("got %d proposals", len(ps))
			}
			var got []hk
			for _, h := range ps[0].Hunks {
				got = append(got, hk{h.Start, h.End, h.OldText, h.NewText})
				if h.Status != StatusPending || h.RunID != "r1" || h.Path != "f" || !strings.HasPrefix(h.ID, "r1#") {
					t.Errorf("hunk %+v", h)
				}
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("hunks = %+v, want %+v", got, tt.want)
			}
			if r := ps[0].Result(); r != tt.proposed {
				t.Fatalf("Result() = %q, want %q", r, tt.proposed)
			}
			if final := acceptAll(t, s, "f"); final != tt.proposed {
				t.Fatalf("accept all gives %q, want %q", final, tt.proposed)
			}
			if n := len(s.List("")); n != 0 {
				t.Fatalf("%d proposals left after accepting everything", n)
			}
		})
	}
}

func TestPutSameTextProposesNothing(t *testing.T) {
	s := New()
	s.Put("r1", "f", "a\n", nil, "a\n", false)
	if ps := s.List(""); len(ps) != 0 {
		t.Fatalf("got %+v", ps)
	}
	s.Put("r1", "f", "a\n", nil, "b\n", false)
	s.Put("r1", "f", "a\n", nil, "a\n", false) // the agent reverted its edit
	if ps := s.List(""); len(ps) != 0 {
		t.Fatalf("a reverted proposal is still listed: %+v", ps)
	}
}

func TestPutTwiceKeepsStableIDs(t *testing.T) {
	s := New()
	base := "a\nb\nc\nd\ne\nf\n"
	s.Put("r1", "f", base, ver(3), "A\nb\nc\nD\ne\nf\n", false)
	first := s.List("f")[0].Hunks
	idA, idD := first[0].ID, first[1].ID

	// The agent edits the same file again: d's change is redone differently,
	// a's stays, f gets a change.
	s.Put("r1", "f", base, ver(3), "A\nb\nc\nDD\ne\nF\n", false)
	second := s.List("f")[0].Hunks
	if len(second) != 3 {
		t.Fatalf("got %d hunks: %+v", len(second), second)
	}
	if second[0].ID != idA {
		t.Fatalf("unchanged hunk lost its id: %s → %s", idA, second[0].ID)
	}
	if second[1].ID == idD || second[2].ID == idD || second[1].ID == second[2].ID {
		t.Fatalf("changed hunks must get fresh ids, got %s %s (old %s)", second[1].ID, second[2].ID, idD)
	}
	if _, ok := s.Hunk(idD); ok {
		t.Fatalf("replaced hunk %s is still found", idD)
	}
	// Re-listing and a third identical Put keep every id.
	s.Put("r1", "f", base, ver(3), "A\nb\nc\nDD\ne\nF\n", false)
	third := s.List("f")[0].Hunks
	for i := range third {
		if third[i].ID != second[i].ID {
			t.Fatalf("ids changed on an identical Put: %v vs %v", third, second)
		}
	}
	// Ids are never reused, even after hunks are gone.
	seen := map[string]bool{idA: true, idD: true}
	s.Reject(Filter{})
	s.Put("r1", "g", "x\n", nil, "y\n", false)
	for _, h := range s.Select(Filter{}) {
		if seen[h.ID] {
			t.Fatalf("id %s reused", h.ID)
		}
	}
}

func TestPutKeepsIDsAfterRebase(t *testing.T) {
	s := New()
	base := "a\nb\nc\nd\n"
	s.Put("r1", "f", base, ver(1), "a\nB\nc\nd\n", false)
	id := s.List("f")[0].Hunks[0].ID
	s.DocumentChanged("f", ver(2), "top\na\nb\nc\nd\n") // user typed above
	// The run edits again, still against its base: the known hunk keeps
	// its id and lands rebased onto the user's text.
	s.Put("r1", "f", base, ver(1), "a\nB\nc\nD\n", false)
	hs := s.List("f")[0].Hunks
	if len(hs) != 2 || hs[0].ID != id || hs[0].Start != 6 {
		t.Fatalf("hunks after re-Put: %+v", hs)
	}
	if got := acceptAll(t, s, "f"); got != "top\na\nB\nc\nD\n" {
		t.Fatalf("result %q", got)
	}
}

func TestRejectedChangeIsNotProposedAgain(t *testing.T) {
	s := New()
	base := "a\nb\nc\nd\n"
	s.Put("r1", "f", base, nil, "A\nb\nc\nd\n", false)
	if n := s.Reject(Filter{RunID: "r1"}); n != 1 {
		t.Fatalf("rejected %d", n)
	}
	// The agent goes on editing elsewhere; its staged text still holds the
	// rejected change.
	s.Put("r1", "f", base, nil, "A\nb\nc\nD\n", false)
	hs := s.List("f")[0].Hunks
	if len(hs) != 1 || hs[0].OldText != "d\n" {
		t.Fatalf("hunks %+v", hs)
	}
	// Another run may propose the same change: the memory is per run.
	s.Put("r2", "f", base, nil, "A\nb\nc\nd\n", false)
	if hs := s.Select(Filter{RunID: "r2"}); len(hs) != 1 {
		t.Fatalf("r2 hunks %+v", hs)
	}
	// Once the run is over its memory goes.
	s.ForgetRun("r1")
	s.Put("r1", "f", base, nil, "A\nb\nc\nD\n", false)
	if hs := s.Select(Filter{RunID: "r1"}); len(hs) != 2 {
		t.Fatalf("r1 hunks after ForgetRun %+v", hs)
	}
}

func TestAcceptedChangeIsNotProposedAgain(t *testing.T) {
	s := New()
	base := "a\nb\nc\nd\n"
	s.Put("r1", "f", base, ver(1), "A\nb\nc\nd\n", false)
	after := acceptAll(t, s, "f")
	// The run's later Put still uses its old base; the server then tells
	// the store the current text, as the package doc asks.
	s.Put("r1", "f", base, ver(1), "A\nb\nc\nD\n", false)
	s.DocumentChanged("f", ver(2), after)
	ps := s.List("f")
	if len(ps) != 1 || len(ps[0].Hunks) != 1 || ps[0].Text != after || ps[0].Hunks[0].OldText != "d\n" {
		t.Fatalf("after re-Put: %+v", ps)
	}
}

func TestTwoRunsOnOneFileShareTheCurrentText(t *testing.T) {
	s := New()
	s.Put("r1", "f", "a\nb\nc\n", ver(1), "A\nb\nc\n", false)
	s.DocumentChanged("f", ver(2), "a\nb\nc\nuser\n")
	// r2 read the file before the user's edit.
	s.Put("r2", "f", "a\nb\nc\n", ver(1), "a\nb\nC\n", false)
	ps := s.List("f")
	if len(ps) != 2 || ps[0].RunID != "r1" || ps[1].RunID != "r2" {
		t.Fatalf("proposals %+v", ps)
	}
	for _, p := range ps {
		if p.Text != "a\nb\nc\nuser\n" || *p.Version != 2 {
			t.Fatalf("%s text %q version %v", p.RunID, p.Text, *p.Version)
		}
	}
	if got := acceptAll(t, s, "f"); got != "A\nb\nC\nuser\n" {
		t.Fatalf("got %q", got)
	}
}
