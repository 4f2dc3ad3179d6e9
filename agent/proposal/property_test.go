package proposal

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/agentls/agentls/internal/text"
	"github.com/aymanbagabas/go-udiff"
)

// The property: whatever the user types outside the hunks' lines, in
// whatever way the edits reach the store, every hunk stays pending, its
// range is exactly where its lines are, and accepting hunks (any subset,
// any client answer order) yields the user's text with those hunks'
// changes — the same text a reference built from independent segments
// gives.

// seg is a piece of the document in the reference model: a gap the user
// may edit, or a hunk's old lines (id set) that nobody touches.
type seg struct {
	text    string
	id      string // hunk id, "" for a gap
	newText string
	empty   bool // pure-insertion hunk
}

func joinSegs(segs []seg) string {
	var b strings.Builder
	for _, s := range segs {
		b.WriteString(s.text)
	}
	return b.String()
}

var lineWords = []string{"a", "b", "a", "bb", "x = 1", "\tfoo()", "😀 go", "你好", "", "}", "  end", "é"}

func randLines(r *rand.Rand, n int, crlf bool) string {
	var b strings.Builder
	for range n {
		b.WriteString(lineWords[r.IntN(len(lineWords))])
		if crlf && r.IntN(8) != 0 || !crlf && r.IntN(12) == 0 {
			b.WriteString("\r\n")
		} else {
			b.WriteString("\n")
		}
	}
	return b.String()
}

// randProposal returns a base text and a proposal for it.
func randProposal(r *rand.Rand) (string, string) {
	crlf := r.IntN(3) == 0
	n := r.IntN(14)
	baseLines := strings.SplitAfter(randLines(r, n, crlf), "\n")
	base := strings.Join(baseLines, "")
	if r.IntN(5) == 0 && strings.HasSuffix(base, "\n") { // no final newline
		base = strings.TrimRight(base, "\r\n") + ""
	}
	return base, proposeOn(r, base, crlf)
}

// proposeOn returns a random proposal for base: lines deleted, replaced,
// inserted before, and maybe appended.
func proposeOn(r *rand.Rand, base string, crlf bool) string {
	var out strings.Builder
	for _, l := range strings.SplitAfter(base, "\n") {
		switch r.IntN(6) {
		case 0: // delete
		case 1: // replace
			out.WriteString(randLines(r, 1+r.IntN(2), crlf))
		case 2: // insert before
			out.WriteString(randLines(r, 1, crlf))
			out.WriteString(l)
		default:
			out.WriteString(l)
		}
	}
	if r.IntN(4) == 0 {
		out.WriteString(randLines(r, 1, crlf))
	}
	return out.String()
}

// userEdits picks non-overlapping edits of gaps only, on the text of segs.
// Whole-line deletions only when exact (a diff cannot place them).
func userEdits(r *rand.Rand, segs []seg, exact bool, max int) []udiff.Edit {
	doc := joinSegs(segs)
	var edits []udiff.Edit
	ok := func(e udiff.Edit) bool {
		for _, o := range edits {
			if e.Start <= o.End && o.Start <= e.End {
				return false
			}
		}
		return true
	}
	off := 0
	type span struct{ start, end, seg int }
	var gaps []span
	for i, s := range segs {
		if s.id == "" {
			gaps = append(gaps, span{off, off + len(s.text), i})
		}
		off += len(s.text)
	}
	for try := 0; try < 20 && len(edits) < max; try++ {
		g := gaps[r.IntN(len(gaps))]
		p := g.start + r.IntN(g.end-g.start+1)
		if !onRune(doc, p) || splitsCRLF(doc, p) {
			continue
		}
		nl := "\n"
		if r.IntN(2) == 0 {
			nl = "\r\n"
		}
		var e udiff.Edit
		switch op := r.IntN(4); {
		case lineStart(doc, p) && op <= 1:
			// Whole lines, not at the end of a gap followed by a pure
			// insertion (that hunk would come first: see the package doc).
			if p == g.end && g.seg+1 < len(segs) && segs[g.seg+1].empty {
				continue
			}
			e = udiff.Edit{Start: p, End: p, New: fmt.Sprintf("U%d%s", r.IntN(100), nl)}
		case !lineStart(doc, p) && op <= 2:
			if strings.LastIndexByte(doc[:p], '\n')+1 < g.start {
				continue // on the unterminated last line of a hunk
			}
			e = udiff.Edit{Start: p, End: p, New: []string{"U", "Ü", "🎉", "ok "}[r.IntN(4)]}
		case !lineStart(doc, p) || exact:
			// Delete inside one line's content, or (exact) the whole line.
			ls := strings.LastIndexByte(doc[:p], '\n') + 1
			le := strings.IndexByte(doc[p:], '\n')
			if le < 0 {
				le = len(doc)
			} else {
				le += p
			}
			if ls < g.start || le > g.end {
				continue
			}
			if lineStart(doc, p) {
				end := min(le+1, len(doc))
				if end > g.end || end == ls || !strings.HasSuffix(doc[ls:end], "\n") {
					continue
				}
				e = udiff.Edit{Start: ls, End: end}
				break
			}
			ce := le
			if ce > ls && doc[ce-1] == '\r' && ce < len(doc) {
				ce--
			}
			if p >= ce {
				continue
			}
			end := p + 1 + r.IntN(ce-p)
			for !onRune(doc, end) {
				end++
			}
			if end > ce {
				continue
			}
			e = udiff.Edit{Start: p, End: end}
		default:
			continue
		}
		if ok(e) {
			edits = append(edits, e)
		}
	}
	udiff.SortEdits(edits)
	return edits
}

// applyToSegs applies edits (absolute, sorted, each inside one gap). An
// insertion at the point of a pure-insertion hunk belongs to the gap after
// it (the hunk keeps its place before inserted text).
func applyToSegs(t testing.TB, segs []seg, edits []udiff.Edit) {
	for i := len(edits) - 1; i >= 0; i-- {
		e := edits[i]
		off, done := 0, false
		for j := range segs {
			s := &segs[j]
			end := off + len(s.text)
			atEmptyHunk := e.Start == e.End && e.Start == end && j+1 < len(segs) && segs[j+1].empty
			if s.id == "" && e.Start >= off && e.End <= end && !atEmptyHunk {
				s.text = s.text[:e.Start-off] + e.New + s.text[e.End-off:]
				done = true
				break
			}
			off = end
		}
		if !done {
			t.Fatalf("edit %v is in no gap", e)
		}
	}
}

// deliver sends the user's edits to the store in one of three ways.
func deliver(t testing.TB, r *rand.Rand, s *Store, mode int, old, nt string, edits []udiff.Edit) {
	switch mode {
	case 0:
		s.DocumentChanged("f", ver(r.Int32()), nt)
	case 1:
		if err := s.DocumentChangedEdits("f", ver(r.Int32()), nt, edits); err != nil {
			t.Fatal(err)
		}
	case 2:
		enc := allEncodings[r.IntN(3)]
		cur := old
		var changes []text.Change
		for i := len(edits) - 1; i >= 0; i-- {
			e := edits[i]
			rg := text.NewIndex(cur).Range(e.Start, e.End, enc)
			changes = append(changes, text.Change{Range: &rg, Text: e.New})
			cur = cur[:e.Start] + e.New + cur[e.End:]
		}
		changeLSP(t, s, "f", ver(r.Int32()), changes, enc, nt)
	}
}

// checkSegs asserts the store matches the reference: its text is the
// segments' text and every hunk is pending exactly at its segment.
func checkSegs(t testing.TB, s *Store, segs []seg) {
	t.Helper()
	checkInvariants(t, s)
	doc := joinSegs(segs)
	ps := s.List("f")
	live := 0
	off := 0
	for _, sg := range segs {
		if sg.id != "" {
			live++
			h, ok := s.Hunk(sg.id)
			if !ok || h.Status != StatusPending || h.Start != off || h.End != off+len(sg.text) {
				t.Fatalf("hunk %s: %+v, want pending at [%d,%d) in %q", sg.id, h, off, off+len(sg.text), doc)
			}
		}
		off += len(sg.text)
	}
	n := 0
	for _, p := range ps {
		if p.Text != doc {
			t.Fatalf("store text %q, reference %q", p.Text, doc)
		}
		n += len(p.Hunks)
	}
	if n != live {
		t.Fatalf("store has %d hunks, reference %d", n, live)
	}
}

func TestPropertyUserEditsOutsideHunks(t *testing.T) {
	iterations := 400
	if testing.Short() {
		iterations = 60
	}
	for seed := range iterations {
		r := rand.New(rand.NewPCG(uint64(seed), 7))
		base, proposed := randProposal(r)
		mode := seed % 3 // diff, exact edits, LSP changes
		t.Run(fmt.Sprintf("seed%d", seed), func(t *testing.T) {
			s := New()
			s.Put("r1", "f", base, ver(1), proposed, false)
			segs := buildSegs(s, base)
			checkSegs(t, s, segs)
			for round := 0; round < 4 && len(s.List("")) > 0; round++ {
				max := 3
				if mode == 0 {
					max = 1 // a diff guesses one edit well; several may be placed differently
				}
				edits := userEdits(r, segs, mode != 0, max)
				old := joinSegs(segs)
				applyToSegs(t, segs, edits)
				nt := joinSegs(segs)
				deliver(t, r, s, mode, old, nt, edits)
				checkSegs(t, s, segs)

				// Accept one hunk or all of them; the client answers in a
				// random order.
				f := Filter{}
				if hs := s.Select(Filter{}); r.IntN(3) != 0 && len(hs) > 0 {
					f.HunkID = hs[r.IntN(len(hs))].ID
				}
				plan, err := s.Accept(f, allEncodings[r.IntN(3)])
				if err != nil {
					t.Fatal(err)
				}
				checkPlan(t, plan)
				if len(plan.Conflicts) != 0 {
					t.Fatalf("conflicts %+v", plan.Conflicts)
				}
				if !plan.Empty() {
					fe := onlyFile(t, plan)
					accepted := map[string]bool{}
					for _, id := range fe.HunkIDs {
						accepted[id] = true
					}
					for i := range segs {
						if accepted[segs[i].id] {
							segs[i] = seg{text: segs[i].newText}
						}
					}
					segs = mergeGaps(segs)
					if fe.Expected != joinSegs(segs) {
						t.Fatalf("plan expects %q, reference %q", fe.Expected, joinSegs(segs))
					}
					clients[r.IntN(len(clients))].land(t, s, plan)
					if len(s.List("")) > 0 && s.List("")[0].Text != fe.Expected {
						// "Applied, file not open" leaves the text as the plan
						// said; every other order too.
						t.Fatalf("store text %q after landing", s.List("")[0].Text)
					}
					checkSegs(t, s, segs)
				}
			}
			final := acceptAllOrNothing(t, s)
			for i := range segs {
				if segs[i].id != "" {
					segs[i].text = segs[i].newText
				}
			}
			if final != "" && final != joinSegs(segs) {
				t.Fatalf("final %q, reference %q", final, joinSegs(segs))
			}
		})
	}
}

// buildSegs cuts base into gaps and the hunks the store listed.
func buildSegs(s *Store, base string) []seg {
	var segs []seg
	off := 0
	for _, p := range s.List("f") {
		for _, h := range p.Hunks {
			segs = append(segs, seg{text: base[off:h.Start]})
			segs = append(segs, seg{text: h.OldText, id: h.ID, newText: h.NewText, empty: h.Start == h.End})
			off = h.End
		}
	}
	return append(segs, seg{text: base[off:]})
}

// mergeGaps joins adjacent gaps, keeping gaps between hunks (possibly
// empty) so every hunk has a gap on each side.
func mergeGaps(segs []seg) []seg {
	var out []seg
	for _, s := range segs {
		if k := len(out) - 1; s.id == "" && k >= 0 && out[k].id == "" {
			out[k].text += s.text
			continue
		}
		out = append(out, s)
	}
	return out
}

func acceptAllOrNothing(t testing.TB, s *Store) string {
	if len(s.List("f")) == 0 {
		return ""
	}
	return acceptAll(t, s, "f")
}
