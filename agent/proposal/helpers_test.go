package proposal

import (
	"testing"

	"github.com/agentls/agentls/internal/text"
	"github.com/aymanbagabas/go-udiff"
)

func ver(v int32) *int32 { return &v }

var allEncodings = []text.Encoding{text.UTF8, text.UTF16, text.UTF32}

// applyTextEdits applies LSP edits (all relative to before) the way a
// client does: positions converted with an independent index, then
// applied as one batch.
func applyTextEdits(t testing.TB, before string, edits []text.Edit, enc text.Encoding) string {
	t.Helper()
	ix := text.NewIndex(before)
	var bs []udiff.Edit
	for _, e := range edits {
		s, en := ix.RangeOffsets(e.Range, enc)
		bs = append(bs, udiff.Edit{Start: s, End: en, New: e.NewText})
	}
	out, err := udiff.Apply(before, bs)
	if err != nil {
		t.Fatalf("client cannot apply edits %+v: %v", edits, err)
	}
	return out
}

// checkPlan asserts the internal consistency of a plan: byte edits and
// LSP edits (in the plan's encoding) both turn Before into Expected.
func checkPlan(t testing.TB, p AcceptPlan) {
	t.Helper()
	for _, fe := range p.Files {
		got, err := udiff.Apply(fe.Before, fe.Edits)
		if err != nil || got != fe.Expected {
			t.Fatalf("%s: byte edits give %q (%v), want %q", fe.Path, got, err, fe.Expected)
		}
		if got := applyTextEdits(t, fe.Before, fe.TextEdits, p.Encoding); got != fe.Expected {
			t.Fatalf("%s: text edits in %v give %q, want %q", fe.Path, p.Encoding, got, fe.Expected)
		}
		if len(fe.HunkIDs) != len(fe.Edits) {
			t.Fatalf("%s: %d hunk ids for %d edits", fe.Path, len(fe.HunkIDs), len(fe.Edits))
		}
	}
}

// checkInvariants asserts what must hold of every snapshot: pending hunks
// cover whole lines of the current text holding exactly their old text,
// are ordered and do not overlap within a proposal; every range is in
// bounds.
func checkInvariants(t testing.TB, s *Store) {
	t.Helper()
	for _, p := range s.List("") {
		last := -1
		for _, h := range p.Hunks {
			if h.Start < 0 || h.End > len(p.Text) || h.Start > h.End {
				t.Fatalf("%s %s: range [%d,%d) out of bounds of %d bytes", p.Path, h.ID, h.Start, h.End, len(p.Text))
			}
			if h.Status != StatusPending {
				if h.Reason == "" {
					t.Fatalf("%s %s: conflicted without a reason", p.Path, h.ID)
				}
				continue
			}
			if p.Created && emptyDoc(strText(p.Text)) {
				// An empty document, maybe one line ending: the hunk
				// replaces all of it with the file's text.
				if h.Start != 0 || h.End != len(p.Text) || h.OldText != "" || h.NewText != p.Proposed {
					t.Fatalf("%s %s: created hunk %+v on %q", p.Path, h.ID, h, p.Text)
				}
				continue
			}
			if got := p.Text[h.Start:h.End]; got != h.OldText {
				t.Fatalf("%s %s: range holds %q, old text is %q", p.Path, h.ID, got, h.OldText)
			}
			if !alignedIn(strText(p.Text), h.Start, h.End) {
				t.Fatalf("%s %s: [%d,%d) is not line aligned in %q", p.Path, h.ID, h.Start, h.End, p.Text)
			}
			if h.Start < last {
				t.Fatalf("%s %s: overlaps the previous pending hunk", p.Path, h.ID)
			}
			last = h.End
		}
	}
}

// onlyFile returns the single FileEdit of a plan.
func onlyFile(t testing.TB, p AcceptPlan) FileEdit {
	t.Helper()
	if len(p.Files) != 1 {
		t.Fatalf("plan has %d files, want 1: %+v", len(p.Files), p)
	}
	return p.Files[0]
}

// acceptAll accepts every pending hunk of path, lands the plan the way a
// client does (didChange first, then the applyEdit answer) and returns
// the new text.
func acceptAll(t testing.TB, s *Store, path string) string {
	t.Helper()
	plan, err := s.Accept(Filter{Path: path}, text.UTF16)
	if err != nil {
		t.Fatal(err)
	}
	if len(plan.Conflicts) > 0 {
		t.Fatalf("unexpected conflicts %+v", plan.Conflicts)
	}
	checkPlan(t, plan)
	fe := onlyFile(t, plan)
	s.DocumentChanged(path, nil, fe.Expected)
	s.Applied(plan)
	checkInvariants(t, s)
	return fe.Expected
}

func statuses(hs []Hunk) []Status {
	var out []Status
	for _, h := range hs {
		out = append(out, h.Status)
	}
	return out
}

// changeLSP sends one didChange the way lspserver does (Revision, then
// DocumentChangedLSP) and checks that the store's text became want, as the
// editor's would.
func changeLSP(t testing.TB, s *Store, path string, version *int32, changes []text.Change, enc text.Encoding, want string) {
	t.Helper()
	rev, _ := s.Revision(path)
	if err := s.DocumentChangedLSP(path, rev, version, changes, enc); err != nil {
		t.Fatal(err)
	}
	if got, ok := storeText(t, s, path); ok && got != want {
		t.Fatalf("store text after the changes %q, want %q", got, want)
	}
}

// storeText is the store's current text of path, if it tracks path,
// checking that its two copies (pieces and buffer) agree.
func storeText(t testing.TB, s *Store, path string) (string, bool) {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	fs := s.files[path]
	if fs == nil {
		return "", false
	}
	got := fs.text.Slice(0, fs.text.Len()) // not String: that would join the pieces
	if fs.buf != nil && fs.buf.String() != got {
		t.Fatalf("%s: the store's buffer holds %q, its text %q", path, fs.buf.String(), got)
	}
	return got, true
}
