package proposal

import (
	"strings"
	"testing"

	"github.com/agentls/agentls/internal/text"
)

// TestSuggest: a suggestion is listed with its source beside an agent
// run's proposal, a newer one replaces it, the user's edit of its lines
// drops it (where a run's hunk would conflict), an edit elsewhere keeps
// it, and accepting it lands it like any proposal.
func TestSuggest(t *testing.T) {
	s := New()
	base := "def f(b):\n    return a + 1\n\nx = 1\n\ny = 2\n"
	id := s.Suggest("next-edit", "f.py", base, ver(1), strings.Replace(base, "return a", "return b", 1))
	if id == "" {
		t.Fatal("no suggestion recorded")
	}
	s.Put("run-1", "f.py", base, ver(1), strings.Replace(base, "y = 2", "y = 3", 1), false)
	list := s.List("f.py")
	if len(list) != 2 || list[0].Source != "next-edit" || list[0].RunID != id || list[1].Source != "" {
		t.Fatalf("list = %+v", list)
	}

	// A newer suggestion replaces the older one.
	id2 := s.Suggest("next-edit", "f.py", base, ver(1), strings.Replace(base, "x = 1", "x = 10", 1))
	if id2 == id || len(s.Select(Filter{RunID: id})) != 0 || len(s.Select(Filter{RunID: id2})) != 1 {
		t.Fatalf("replace: old %v new %v", s.Select(Filter{RunID: id}), s.Select(Filter{RunID: id2}))
	}

	// An edit elsewhere rebases it; an edit of its lines drops it, while
	// the run's hunk there would stay as a conflict.
	cur := "# top\n" + base
	s.DocumentChanged("f.py", ver(2), cur)
	if h := s.Select(Filter{RunID: id2}); len(h) != 1 || h[0].Status != StatusPending {
		t.Fatalf("after an edit elsewhere: %+v", h)
	}
	cur = strings.Replace(cur, "x = 1", "x = 5", 1)
	cur = strings.Replace(cur, "y = 2", "y = 7", 1)
	s.DocumentChanged("f.py", ver(3), cur)
	if h := s.Select(Filter{RunID: id2}); len(h) != 0 {
		t.Fatalf("suggestion kept after the user edited its lines: %+v", h)
	}
	if h := s.Select(Filter{RunID: "run-1"}); len(h) != 1 || h[0].Status != StatusConflicted {
		t.Fatalf("run's hunk: %+v", h)
	}

	// Accepted like any proposal.
	id3 := s.Suggest("next-edit", "f.py", cur, ver(3), strings.Replace(cur, "return a", "return b", 1))
	plan, err := s.Accept(Filter{RunID: id3}, text.UTF16)
	if err != nil || len(plan.Files) != 1 {
		t.Fatalf("accept: %+v %v", plan, err)
	}
	s.Applied(plan)
	if got := plan.Files[0].Expected; !strings.Contains(got, "return b + 1") {
		t.Fatalf("accepted text %q", got)
	}
	// A suggestion the document already holds records nothing.
	done := plan.Files[0].Expected
	s.DocumentChanged("f.py", ver(4), done)
	if id := s.Suggest("next-edit", "f.py", cur, ver(3), done); id != "" || len(s.sources) != 0 {
		t.Fatalf("suggestion of the current text: %q, sources %v", id, s.sources)
	}
	checkInvariants(t, s)
}
