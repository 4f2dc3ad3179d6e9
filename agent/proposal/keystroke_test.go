package proposal

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/agentls/agentls/internal/text"
	"github.com/aymanbagabas/go-udiff"
)

// randEdit is one random edit of doc anywhere (inside hunks, on their
// boundaries, across lines), on rune boundaries.
func randEdit(r *rand.Rand, doc string) udiff.Edit {
	words := []string{"", "x", "\n", "a\n", "\r\n", "é", "😀", "b\nc", "line\n", "\r"}
	a := r.IntN(len(doc) + 1)
	for !onRune(doc, a) {
		a--
	}
	b := a
	if r.IntN(2) == 0 {
		b = min(len(doc), a+r.IntN(8))
		for !onRune(doc, b) {
			b++
		}
	}
	return udiff.Edit{Start: a, End: b, New: words[r.IntN(len(words))]}
}

// TestKeystrokePathMatchesEditsPath: the keystroke path (DocumentChangedLSP:
// pieces, a spliced view of the new text, the Buffer's conversions) must
// rebase exactly as the whole-text path does with the same edit
// (DocumentChangedEdits: plain strings). Two stores get the same random
// proposals and the same random single edits anywhere — inside hunks, at
// their boundaries, undoing earlier edits so conflicted hunks heal — and
// accepts landed by each path; their snapshots and announcements must stay
// identical.
func TestKeystrokePathMatchesEditsPath(t *testing.T) {
	rounds := 400
	if testing.Short() {
		rounds = 50
	}
	for round := range rounds {
		r := rand.New(rand.NewPCG(uint64(round), 7))
		enc := allEncodings[r.IntN(3)]
		lsp, whole := New(), New()
		var lspEv, wholeEv []string
		lsp.OnChange(func(p string) { lspEv = append(lspEv, p) })
		whole.OnChange(func(p string) { wholeEv = append(wholeEv, p) })
		base, prop := randProposal(r)
		_, prop2 := randProposal(r)
		for _, s := range []*Store{lsp, whole} {
			s.Put("r1", "f", base, ver(1), prop, false)
			s.Put("r2", "f", base, ver(1), base+prop2, false)
		}
		doc, history := base, []string{base}
		for step := range 30 {
			what := fmt.Sprintf("round %d step %d", round, step)
			v := ver(int32(step + 2))
			var e udiff.Edit
			switch op := r.IntN(8); {
			case op == 0: // undo towards an earlier text, one edit at a time
				if es := diffEdits(doc, history[r.IntN(len(history))]); len(es) > 0 {
					e = es[len(es)-1]
				}
			case op == 1: // accept, landed by each path
				plan, err := lsp.Accept(Filter{}, enc)
				wplan, werr := whole.Accept(Filter{}, enc)
				if err != nil || werr != nil || !reflect.DeepEqual(plan, wplan) {
					t.Fatalf("%s: plans differ\n%+v %v\n%+v %v", what, plan, err, wplan, werr)
				}
				if plan.Empty() {
					continue
				}
				fe := onlyFile(t, plan)
				var changes []text.Change
				for i := len(fe.TextEdits) - 1; i >= 0; i-- {
					rg := fe.TextEdits[i].Range
					changes = append(changes, text.Change{Range: &rg, Text: fe.TextEdits[i].NewText})
				}
				changeLSP(t, lsp, "f", v, changes, enc, fe.Expected)
				whole.DocumentChanged("f", v, fe.Expected)
				lsp.Applied(plan)
				whole.Applied(wplan)
				doc = fe.Expected
				history = append(history, doc)
				compareStores(t, what, lsp, whole, lspEv, wholeEv)
				continue
			default:
				e = randEdit(r, doc)
			}
			// The LSP change, and the byte edit it means (positions cannot
			// split a CRLF, so that may differ from e).
			ix := text.NewIndex(doc)
			rg := ix.Range(e.Start, e.End, enc)
			start, end := ix.RangeOffsets(rg, enc)
			e = udiff.Edit{Start: start, End: end, New: e.New}
			next := doc[:start] + e.New + doc[end:]
			changeLSP(t, lsp, "f", v, []text.Change{{Range: &rg, Text: e.New}}, enc, next)
			if err := whole.DocumentChangedEdits("f", v, next, []udiff.Edit{e}); err != nil {
				t.Fatalf("%s: %v", what, err)
			}
			doc = next
			history = append(history, doc)
			compareStores(t, what, lsp, whole, lspEv, wholeEv)
		}
	}
}

func compareStores(t *testing.T, what string, a, b *Store, aEv, bEv []string) {
	t.Helper()
	checkInvariants(t, a)
	for _, enc := range allEncodings {
		if la, lb := a.ListLSP("", enc), b.ListLSP("", enc); !reflect.DeepEqual(la, lb) {
			t.Fatalf("%s: snapshots differ\nkeystroke path %+v\nwhole-text path %+v", what, la, lb)
		}
	}
	if !reflect.DeepEqual(aEv, bEv) {
		t.Fatalf("%s: announcements differ: %v / %v", what, aEv, bEv)
	}
}

// TestManyKeystrokes types past maxPieces several times over (the store
// joins its text through its buffer then) and checks the keystroke path
// against the whole-text path all along: same snapshots, and the store's
// two copies of the text (pieces, buffer) agree with the editor's.
func TestManyKeystrokes(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	var sb strings.Builder
	for i := range 5000 { // large enough that pieces do not merge back
		fmt.Fprintf(&sb, "line %d: some text 😀\n", i)
	}
	base := sb.String()
	prop := strings.NewReplacer("line 10:", "LINE 10:", "line 150:", "LINE 150:", "line 4990:", "LINE 4990:").Replace(base)
	lsp, whole := New(), New()
	for _, s := range []*Store{lsp, whole} {
		s.Put("r1", "f", base, ver(1), prop, false)
	}
	doc := base
	for step := range 4 * maxPieces {
		// Type outside the first hunk's line, so the proposal lives on.
		off := len("line 0: some text 😀\n")*11 + r.IntN(len(doc)-len("line 0: some text 😀\n")*11)
		for !onRune(doc, off) {
			off--
		}
		ix := text.NewIndex(doc)
		rg := ix.Range(off, off, text.UTF16)
		start, end := ix.RangeOffsets(rg, text.UTF16)
		ins := "k"
		if step%3 == 2 {
			ins = ""
			rg.End.Character++ // delete the character after
			_, end = ix.RangeOffsets(rg, text.UTF16)
		}
		next := doc[:start] + ins + doc[end:]
		v := ver(int32(step + 2))
		changeLSP(t, lsp, "f", v, []text.Change{{Range: &rg, Text: ins}}, text.UTF16, next)
		if err := whole.DocumentChangedEdits("f", v, next, []udiff.Edit{{Start: start, End: end, New: ins}}); err != nil {
			t.Fatal(err)
		}
		doc = next
		if step%700 == 0 { // rarely: a listing joins the text
			compareStores(t, fmt.Sprintf("step %d", step), lsp, whole, nil, nil)
		}
	}
	compareStores(t, "end", lsp, whole, nil, nil)
	if got, _ := storeText(t, lsp, "f"); got != doc {
		t.Fatal("store text differs from the editor's")
	}
	if len(lsp.Select(Filter{})) == 0 {
		t.Fatal("every hunk went away: the test typed into all of them")
	}
}
