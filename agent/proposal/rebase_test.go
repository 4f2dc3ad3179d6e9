package proposal

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/agentls/agentls/internal/text"
	"github.com/aymanbagabas/go-udiff"
)

// userEdit is a user's change: replace del bytes at (first index of at in
// the text) + skip with ins.
type userEdit struct {
	at   string
	skip int
	del  int
	ins  string
}

func (u userEdit) edit(t testing.TB, s string) udiff.Edit {
	t.Helper()
	i := strings.Index(s, u.at)
	if i < 0 {
		t.Fatalf("anchor %q not in %q", u.at, s)
	}
	return udiff.Edit{Start: i + u.skip, End: i + u.skip + u.del, New: u.ins}
}

// modes deliver a user's edit to the store in each way lspserver can.
var modes = []struct {
	name string
	send func(t testing.TB, s *Store, path, old string, e udiff.Edit) string
}{
	{"diff", func(t testing.TB, s *Store, path, old string, e udiff.Edit) string {
		nt := old[:e.Start] + e.New + old[e.End:]
		s.DocumentChanged(path, ver(9), nt)
		return nt
	}},
	{"edits", func(t testing.TB, s *Store, path, old string, e udiff.Edit) string {
		nt := old[:e.Start] + e.New + old[e.End:]
		if err := s.DocumentChangedEdits(path, ver(9), nt, []udiff.Edit{e}); err != nil {
			t.Fatal(err)
		}
		return nt
	}},
	{"lsp", func(t testing.TB, s *Store, path, old string, e udiff.Edit) string {
		nt := old[:e.Start] + e.New + old[e.End:]
		r := text.NewIndex(old).Range(e.Start, e.End, text.UTF16)
		changeLSP(t, s, path, ver(9), []text.Change{{Range: &r, Text: e.New}}, text.UTF16, nt)
		return nt
	}},
}

type rebaseCase struct {
	name           string
	base, proposed string
	user           userEdit
	want           []Status // statuses of the remaining hunks, in order
	final          string   // text after accepting every pending hunk
}

func runRebaseCases(t *testing.T, cases []rebaseCase) {
	for _, tc := range cases {
		for _, m := range modes {
			if e := tc.user.edit(t, tc.base); m.name == "lsp" && (splitsCRLF(tc.base, e.Start) || splitsCRLF(tc.base, e.End)) {
				continue // LSP positions cannot name a place inside a CRLF
			}
			t.Run(tc.name+"/"+m.name, func(t *testing.T) {
				s := New()
				s.Put("r1", "f", tc.base, ver(1), tc.proposed, tc.base == "")
				nt := m.send(t, s, "f", tc.base, tc.user.edit(t, tc.base))
				checkInvariants(t, s)
				var got []Status
				for _, p := range s.List("f") {
					if p.Text != nt {
						t.Fatalf("store text %q, want %q", p.Text, nt)
					}
					got = append(got, statuses(p.Hunks)...)
				}
				if !reflect.DeepEqual(got, tc.want) {
					t.Fatalf("statuses %v, want %v (hunks %+v)", got, tc.want, s.Select(Filter{}))
				}
				plan, err := s.Accept(Filter{}, text.UTF16)
				if err != nil {
					t.Fatal(err)
				}
				checkPlan(t, plan)
				conflicts := 0
				for _, st := range tc.want {
					if st == StatusConflicted {
						conflicts++
					}
				}
				if len(plan.Conflicts) != conflicts {
					t.Fatalf("plan conflicts %+v, want %d", plan.Conflicts, conflicts)
				}
				final := nt
				if !plan.Empty() {
					final = onlyFile(t, plan).Expected
					s.Applied(plan)
				}
				if final != tc.final {
					t.Fatalf("final text %q, want %q", final, tc.final)
				}
			})
		}
	}
}

// goBase has two hunks: "\treturn 1" (A) and "\treturn 2" (B).
const goBase = "package main\n\nfunc a() int {\n\treturn 1\n} // a\n\nfunc b() int {\n\treturn 2\n} // b\n"
const goProposed = "package main\n\nfunc a() int {\n\treturn 10\n} // a\n\nfunc b() int {\n\treturn 20\n} // b\n"

func TestRebaseAroundHunks(t *testing.T) {
	P, C := StatusPending, StatusConflicted
	// both: the proposed text with the user's edit too (old → new).
	both := func(old, new string) string { return strings.Replace(goProposed, old, new, 1) }
	// onlyB: the user's text with just B applied (A conflicted).
	onlyB := func(u userEdit) string {
		e := u.edit(t, goBase)
		return strings.Replace(goBase[:e.Start]+e.New+goBase[e.End:], "\treturn 2\n", "\treturn 20\n", 1)
	}
	runRebaseCases(t, []rebaseCase{
		{"type on an earlier line", goBase, goProposed, userEdit{"package main", 7, 0, "x"}, []Status{P, P},
			both("package main", "packagex main")},
		{"type at the end of the line before A", goBase, goProposed, userEdit{"func a() int {", 14, 0, " // x"}, []Status{P, P},
			both("func a() int {", "func a() int { // x")},
		{"insert a whole line right before A", goBase, goProposed, userEdit{"\treturn 1", 0, 0, "\t// c\n"}, []Status{P, P},
			both("\treturn 10\n", "\t// c\n\treturn 10\n")},
		{"insert a whole line right after A", goBase, goProposed, userEdit{"} // a", 0, 0, "\t// after\n"}, []Status{P, P},
			both("} // a", "\t// after\n} // a")},
		{"type at the start of the line after A", goBase, goProposed, userEdit{"} // a", 0, 0, "x"}, []Status{P, P},
			both("} // a", "x} // a")},
		{"delete the line after A", goBase, goProposed, userEdit{"} // a\n", 0, 7, ""}, []Status{P, P},
			both("} // a\n", "")},
		{"type between the hunks", goBase, goProposed, userEdit{"} // a\n\n", 7, 0, "// note"}, []Status{P, P},
			both("} // a\n\n", "} // a\n// note\n")},
		{"type after the last hunk", goBase, goProposed, userEdit{"} // b", 6, 0, "!"}, []Status{P, P},
			both("} // b", "} // b!")},
		{"type inside A", goBase, goProposed, userEdit{"\treturn 1", 8, 0, "5"}, []Status{C, P},
			strings.Replace(goProposed, "\treturn 10", "\treturn 51", 1)},
		{"type before the change on A's line", goBase, goProposed, userEdit{"\treturn 1", 1, 0, "  "}, []Status{C, P},
			strings.Replace(goProposed, "\treturn 10", "\t  return 1", 1)},
		{"type at column 0 of A's line", goBase, goProposed, userEdit{"\treturn 1", 0, 0, "x"}, []Status{C, P},
			strings.Replace(goProposed, "\treturn 10", "x\treturn 1", 1)},
		{"join the line before with A", goBase, goProposed, userEdit{"func a() int {\n", 14, 1, ""}, []Status{C, P},
			strings.Replace(goProposed, "func a() int {\n\treturn 10", "func a() int {\treturn 1", 1)},
		{"delete A's newline", goBase, goProposed, userEdit{"\treturn 1\n", 9, 1, ""}, []Status{C, P},
			strings.Replace(goProposed, "\treturn 10\n", "\treturn 1", 1)},
		{"delete A's whole line", goBase, goProposed, userEdit{"\treturn 1\n", 0, 10, ""}, []Status{C, P},
			strings.Replace(goProposed, "\treturn 10\n", "", 1)},
		{"replace across A and the next line", goBase, goProposed, userEdit{"\treturn 1\n", 5, 8, "X"}, []Status{C, P},
			onlyB(userEdit{"\treturn 1\n", 5, 8, "X"})},
		{"one edit across both hunks", goBase, goProposed, userEdit{"1\n", 0, 40, "Z"}, []Status{C, C},
			strings.Replace(goBase, goBase[strings.Index(goBase, "1\n"):strings.Index(goBase, "1\n")+40], "Z", 1)},
		{"the user typed what A proposes", goBase, goProposed, userEdit{"\treturn 1", 9, 0, "0"}, []Status{P},
			goProposed},
	})
}

func TestRebaseSpecialHunks(t *testing.T) {
	P, C := StatusPending, StatusConflicted
	runRebaseCases(t, []rebaseCase{
		// A pure insertion of "x\n" between a and b.
		{"insertion: whole line at its point", "a\nb\n", "a\nx\nb\n", userEdit{"b", 0, 0, "y\n"}, []Status{P}, "a\nx\ny\nb\n"},
		{"insertion: type at the start of the next line", "a\nb\n", "a\nx\nb\n", userEdit{"b", 0, 0, "z"}, []Status{P}, "a\nx\nzb\n"},
		{"insertion: type at the end of the line before", "a\nb\n", "a\nx\nb\n", userEdit{"a", 1, 0, "z"}, []Status{P}, "az\nx\nb\n"},
		{"insertion: join the lines around it", "a\nb\n", "a\nx\nb\n", userEdit{"a\n", 1, 1, ""}, []Status{C}, "ab\n"},
		{"insertion: delete the next line", "a\nb\n", "a\nx\nb\n", userEdit{"b\n", 0, 2, ""}, []Status{P}, "a\nx\n"},
		{"insertion: delete the line before", "a\nb\n", "a\nx\nb\n", userEdit{"a\n", 0, 2, ""}, []Status{P}, "x\nb\n"},
		{"insertion: the user inserted it", "a\nb\n", "a\nx\nb\n", userEdit{"b", 0, 0, "x\n"}, nil, "a\nx\nb\n"},
		// A deletion of "b\n".
		{"deletion: type on the line before", "a\nb\nc\n", "a\nc\n", userEdit{"a", 1, 0, "z"}, []Status{P}, "az\nc\n"},
		{"deletion: type in the deleted line", "a\nb\nc\n", "a\nc\n", userEdit{"b", 1, 0, "z"}, []Status{C}, "a\nbz\nc\n"},
		{"deletion: the user deleted it", "a\nb\nc\n", "a\nc\n", userEdit{"b\n", 0, 2, ""}, nil, "a\nc\n"},
		// The last line has no newline.
		{"EOF: append to the changed last line", "a\nb", "a\nc", userEdit{"b", 1, 0, "x"}, []Status{C}, "a\nbx"},
		{"EOF: add a newline to the changed last line", "a\nb", "a\nc", userEdit{"b", 1, 0, "\n"}, []Status{C}, "a\nb\n"},
		{"EOF: type on the line before", "a\nb", "a\nc", userEdit{"a", 1, 0, "z"}, []Status{P}, "az\nc"},
		// An insertion at the end of the text.
		{"EOF insertion: user appends a line", "a\n", "a\nz\n", userEdit{"a\n", 2, 0, "b\n"}, []Status{P}, "a\nz\nb\n"},
		{"EOF insertion: user deletes the last newline", "a\n", "a\nz\n", userEdit{"a\n", 1, 1, ""}, []Status{C}, "a"},
		// CRLF text.
		{"CRLF: type on the line before", "a\r\nb\r\nc\r\n", "a\r\nB\r\nc\r\n", userEdit{"a", 1, 0, "z"}, []Status{P}, "az\r\nB\r\nc\r\n"},
		{"CRLF: insert a line before", "a\r\nb\r\nc\r\n", "a\r\nB\r\nc\r\n", userEdit{"b", 0, 0, "n\r\n"}, []Status{P}, "a\r\nn\r\nB\r\nc\r\n"},
		{"CRLF: split the CRLF before the hunk", "a\r\nb\r\nc\r\n", "a\r\nB\r\nc\r\n", userEdit{"a\r\n", 2, 1, ""}, []Status{C}, "a\rb\r\nc\r\n"},
		{"CRLF: type in the hunk", "a\r\nb\r\nc\r\n", "a\r\nB\r\nc\r\n", userEdit{"b", 1, 0, "z"}, []Status{C}, "a\r\nbz\r\nc\r\n"},
	})
}

func TestCreatedFile(t *testing.T) {
	s := New()
	s.Put("r1", "new.go", "", nil, "package x\n", true)
	ps := s.List("new.go")
	if len(ps) != 1 || !ps[0].Created || ps[0].Hunks[0].Start != 0 || ps[0].Hunks[0].End != 0 {
		t.Fatalf("%+v", ps)
	}
	// Someone else creates the file with other content.
	s.DocumentChanged("new.go", ver(1), "package y\n")
	h := s.List("new.go")[0].Hunks[0]
	if h.Status != StatusConflicted || h.Reason != "the file was created since the proposal" || h.End != len("package y\n") {
		t.Fatalf("hunk %+v", h)
	}
	plan, err := s.Accept(Filter{}, text.UTF16)
	if err != nil || !plan.Empty() || len(plan.Conflicts) != 1 {
		t.Fatalf("plan %+v, %v", plan, err)
	}
	// It is emptied again: the proposal applies again.
	s.DocumentChanged("new.go", ver(2), "")
	plan, err = s.Accept(Filter{}, text.UTF16)
	if err != nil {
		t.Fatal(err)
	}
	fe := onlyFile(t, plan)
	if !fe.Created || fe.Expected != "package x\n" || *fe.Version != 2 {
		t.Fatalf("file edit %+v", fe)
	}
	// One edit over the whole document, past its end (see createEdit).
	want := []text.Edit{{Range: text.Range{End: text.Position{Line: 1}}, NewText: "package x\n"}}
	if !reflect.DeepEqual(fe.TextEdits, want) {
		t.Fatalf("text edits %+v", fe.TextEdits)
	}
	s.Applied(plan)
	if n := len(s.List("")); n != 0 {
		t.Fatalf("%d proposals left", n)
	}

	// A file created with exactly the proposed content resolves it.
	s.Put("r2", "n2.go", "", nil, "package z\n", true)
	s.DocumentChanged("n2.go", ver(1), "package z\n")
	if n := len(s.List("")); n != 0 {
		t.Fatalf("resolved proposal still listed")
	}
}

func TestConflictHealsWhenTheUserUndoes(t *testing.T) {
	for _, m := range modes {
		t.Run(m.name, func(t *testing.T) {
			s := New()
			s.Put("r1", "f", goBase, ver(1), goProposed, false)
			cur := goBase
			for _, u := range []userEdit{
				{"\treturn 1", 8, 0, "5"},     // inside A: conflicted
				{"package", 0, 0, "// top\n"}, // elsewhere: region shifts
				{"\treturn 51", 8, 1, ""},     // undo
			} {
				cur = m.send(t, s, "f", cur, u.edit(t, cur))
				checkInvariants(t, s)
			}
			if st := statuses(s.List("f")[0].Hunks); !reflect.DeepEqual(st, []Status{StatusPending, StatusPending}) {
				t.Fatalf("statuses %v", st)
			}
			if got := acceptAll(t, s, "f"); got != "// top\n"+goProposed {
				t.Fatalf("got %q", got)
			}
		})
	}
	t.Run("column 0", func(t *testing.T) {
		s := New()
		s.Put("r1", "f", goBase, ver(1), goProposed, false)
		cur := goBase
		for _, u := range []userEdit{{"\treturn 1", 0, 0, "x"}, {"x\treturn 1", 0, 1, ""}} {
			cur = modes[1].send(t, s, "f", cur, u.edit(t, cur))
		}
		if got := acceptAll(t, s, "f"); got != goProposed {
			t.Fatalf("got %q", got)
		}
	})
	t.Run("rejoined lines", func(t *testing.T) {
		s := New()
		s.Put("r1", "f", goBase, ver(1), goProposed, false)
		cur := goBase
		for _, u := range []userEdit{{"{\n\treturn 1", 1, 1, ""}, {"{\treturn 1", 1, 0, "\n"}} {
			cur = modes[1].send(t, s, "f", cur, u.edit(t, cur))
		}
		if got := acceptAll(t, s, "f"); got != goProposed {
			t.Fatalf("got %q", got)
		}
	})
}

func TestConflictReasonAndRange(t *testing.T) {
	s := New()
	s.Put("r1", "f", goBase, ver(1), goProposed, false)
	nt := strings.Replace(goBase, "\treturn 1\n", "\treturn 1 + 1\n", 1)
	s.DocumentChanged("f", ver(2), nt)
	h := s.List("f")[0].Hunks[0]
	if h.Status != StatusConflicted || nt[h.Start:h.End] != "\treturn 1 + 1\n" {
		t.Fatalf("hunk %+v covers %q", h, nt[h.Start:h.End])
	}
	if want := `the lines were edited since the proposal; they now read "\treturn 1 + 1\n"`; h.Reason != want {
		t.Fatalf("reason %q", h.Reason)
	}
	// Later edits elsewhere keep tracking the region.
	nt2 := "// hi\n" + nt
	s.DocumentChanged("f", ver(3), nt2)
	h = s.List("f")[0].Hunks[0]
	if nt2[h.Start:h.End] != "\treturn 1 + 1\n" {
		t.Fatalf("region drifted: %q", nt2[h.Start:h.End])
	}
}

func TestDocumentChangedIgnoresUnknownPaths(t *testing.T) {
	s := New()
	s.DocumentChanged("nope", nil, "x")
	if err := s.DocumentChangedEdits("nope", nil, "x", []udiff.Edit{{Start: 5, End: 9}}); err != nil {
		t.Fatal(err)
	}
	if len(s.List("")) != 0 {
		t.Fatal("unknown path created a proposal")
	}
}

func TestBadEditsFallBackToDiff(t *testing.T) {
	s := New()
	s.Put("r1", "f", goBase, ver(1), goProposed, false)
	nt := "// top\n" + goBase
	for _, bad := range [][]udiff.Edit{
		{{Start: 0, End: 0, New: "wrong"}},     // does not produce nt
		{{Start: -1, End: 0, New: "// top\n"}}, // out of bounds
		{{Start: 0, End: 9999, New: ""}},       // out of bounds
	} {
		s2 := New()
		s2.Put("r1", "f", goBase, ver(1), goProposed, false)
		if err := s2.DocumentChangedEdits("f", ver(2), nt, bad); err == nil {
			t.Fatalf("edits %v accepted", bad)
		}
		if got := acceptAll(t, s2, "f"); got != "// top\n"+goProposed {
			t.Fatalf("after fallback: %q", got)
		}
	}
	// LSP changes read against a revision the store has left (an accept's
	// Applied moved the text first) are refused; nothing is applied.
	rev, _ := s.Revision("f")
	s.DocumentChanged("f", ver(2), nt)
	top := text.Range{}
	if err := s.DocumentChangedLSP("f", rev, ver(3), []text.Change{{Range: &top, Text: "x"}}, text.UTF16); !errors.Is(err, ErrStale) {
		t.Fatalf("change on a stale revision: %v, want ErrStale", err)
	}
	if got, _ := storeText(t, s, "f"); got != nt {
		t.Fatalf("store text after a refused change: %q", got)
	}
	// A change text that is not UTF-8 is refused as the editor's buffer
	// refuses it.
	rev, _ = s.Revision("f")
	if err := s.DocumentChangedLSP("f", rev, ver(3), []text.Change{{Range: &top, Text: "\xff"}}, text.UTF16); err == nil {
		t.Fatal("invalid UTF-8 change accepted")
	}
	if got, _ := storeText(t, s, "f"); got != nt {
		t.Fatalf("store text after a refused change: %q", got)
	}
	if got := acceptAll(t, s, "f"); got != "// top\n"+goProposed {
		t.Fatalf("after fallback: %q", got)
	}
	// Invalid UTF-8 edits splitting a rune are refused.
	s3 := New()
	s3.Put("r1", "f", "é\nb\n", nil, "é\nB\n", false)
	if err := s3.DocumentChangedEdits("f", nil, "\xc3x\xa9\nb\n", []udiff.Edit{{Start: 1, End: 1, New: "x"}}); err == nil {
		t.Fatal("edit inside a rune accepted")
	}
	checkInvariants(t, s3)
}
