package proposal

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/aymanbagabas/go-udiff"
)

// The property for two runs on one file (the same prompt run twice, or two
// different tasks): whatever is accepted (a hunk, a run, the file, all),
// in whatever order, whatever the client answers and wherever the user
// types outside the hunks' lines,
//
//   - a hunk is applied at most once, and two hunks that clash (the same
//     lines, or the same change) are never both applied;
//   - the text is the base with the user's edits and exactly the applied
//     hunks' changes (a reference built from independent blocks);
//   - every selected pending hunk is either in the plan or reported as a
//     conflict, never both;
//   - a hunk that clashes with an applied one is conflicted, for good;
//     every other hunk is pending exactly where its lines are, so the
//     preview shows only hunks that can apply.

// block is a region of the base that hunks of either run cover or touch,
// in the reference model; the user never edits inside it.
type block struct {
	start, end int // in the base
	hunks      []refHunk
}

// refHunk is a hunk as first proposed, relative to its block.
type refHunk struct {
	id, run          string
	start, end       int // relative to the block's start
	oldText, newText string
}

// variant returns a second proposal for base: the same as p1 (the same
// prompt twice), p1 with some of its lines changed, or an independent one.
func variant(r *rand.Rand, base, p1 string, crlf bool) string {
	switch r.IntN(3) {
	case 0:
		return p1
	case 1:
		var out strings.Builder
		for _, l := range strings.SplitAfter(p1, "\n") {
			switch r.IntN(8) {
			case 0:
				out.WriteString(randLines(r, 1, crlf))
			case 1:
				out.WriteString(randLines(r, 1, crlf))
				out.WriteString(l)
			default:
				out.WriteString(l)
			}
		}
		return out.String()
	}
	return proposeOn(r, base, crlf)
}

// buildBlocks groups the hunks of both proposals (base offsets) into
// blocks, and the segments of the base around them for userEdits.
func buildBlocks(base string, hs []Hunk) ([]block, []seg) {
	sort.SliceStable(hs, func(i, j int) bool {
		if hs[i].Start != hs[j].Start {
			return hs[i].Start < hs[j].Start
		}
		return hs[i].End < hs[j].End
	})
	var blocks []block
	for _, h := range hs {
		if k := len(blocks) - 1; k >= 0 && h.Start <= blocks[k].end {
			blocks[k].end = max(blocks[k].end, h.End)
			blocks[k].hunks = append(blocks[k].hunks, refHunk{id: h.ID, run: h.RunID, start: h.Start, end: h.End, oldText: h.OldText, newText: h.NewText})
			continue
		}
		blocks = append(blocks, block{start: h.Start, end: h.End,
			hunks: []refHunk{{id: h.ID, run: h.RunID, start: h.Start, end: h.End, oldText: h.OldText, newText: h.NewText}}})
	}
	var segs []seg
	off := 0
	for i := range blocks {
		b := &blocks[i]
		for j := range b.hunks {
			b.hunks[j].start -= b.start
			b.hunks[j].end -= b.start
		}
		segs = append(segs, seg{text: base[off:b.start]})
		// A block starting with an insertion point takes no user text
		// at its start (the store keeps such a hunk before typed text).
		startsEmpty := b.hunks[0].start == 0 && b.hunks[0].end == 0
		segs = append(segs, seg{text: base[b.start:b.end], id: fmt.Sprint("block", i), empty: startsEmpty})
		off = b.end
	}
	return blocks, append(segs, seg{text: base[off:]})
}

// blockText is block b's text with the applied hunks' changes.
func blockText(t testing.TB, base string, b block, applied map[string]bool) string {
	t.Helper()
	var edits []udiff.Edit
	for _, h := range b.hunks {
		if applied[h.id] {
			edits = append(edits, udiff.Edit{Start: h.start, End: h.end, New: h.newText})
		}
	}
	out, err := udiff.Apply(base[b.start:b.end], edits)
	if err != nil {
		t.Fatalf("applied hunks of one block overlap: %v (%+v)", err, edits)
	}
	return out
}

// refPosition is where pending hunk h of block b starts in the block's
// current text: its place moved by the applied edits before it (an
// insertion at a replaced range's start goes before it).
func refPosition(b block, h refHunk, applied map[string]bool) int {
	pos := h.start
	for _, e := range b.hunks {
		if applied[e.id] && e.end <= h.start && (e.start < h.start || h.start != h.end) {
			pos += len(e.newText) - (e.end - e.start)
		}
	}
	return pos
}

// asHunk is a live hunk for clash(), one proposal per run.
func asHunk(h refHunk, b block, props map[string]*proposal) *hunk {
	if props[h.run] == nil {
		props[h.run] = &proposal{runID: h.run}
	}
	return &hunk{id: h.id, prop: props[h.run], start: b.start + h.start, end: b.start + h.end, oldText: h.oldText, newText: h.newText}
}

func TestPropertyTwoRunsOverlap(t *testing.T) {
	iterations := 500
	if testing.Short() {
		iterations = 80
	}
	for seed := range iterations {
		r := rand.New(rand.NewPCG(uint64(seed), 11))
		base, p1 := randProposal(r)
		crlf := strings.Contains(base, "\r\n")
		p2 := variant(r, base, p1, crlf)
		mode := seed % 3
		t.Run(fmt.Sprintf("seed%d", seed), func(t *testing.T) {
			s := New()
			s.Put("r1", "f", base, ver(1), p1, false)
			s.Put("r2", "f", base, ver(1), p2, false)
			blocks, segs := buildBlocks(base, s.Select(Filter{}))
			props := map[string]*proposal{}
			all := map[string]*hunk{}
			where := map[string]int{} // hunk id → block index
			for i, b := range blocks {
				for _, h := range b.hunks {
					all[h.id] = asHunk(h, b, props)
					where[h.id] = i
				}
			}
			applied, rejected := map[string]bool{}, map[string]bool{}
			superseded := map[string]bool{} // clashed with a hunk when it was applied

			// check compares the store with the reference.
			check := func(step string) {
				t.Helper()
				checkInvariants(t, s)
				for i, b := range blocks {
					segs[2*i+1].text = blockText(t, base, b, applied)
				}
				doc := joinSegs(segs)
				if got, ok := storeText(t, s, "f"); ok && got != doc {
					t.Fatalf("%s: store text %q, reference %q", step, got, doc)
				}
				offsets := make([]int, len(blocks))
				off := 0
				for i := range segs {
					if i%2 == 1 {
						offsets[i/2] = off
					}
					off += len(segs[i].text)
				}
				for id, h := range all {
					got, live := s.Hunk(id)
					if applied[id] || rejected[id] {
						if live {
							t.Fatalf("%s: hunk %s still listed after it was applied or rejected: %+v", step, id, got)
						}
						continue
					}
					switch {
					case !live:
						t.Fatalf("%s: hunk %s (%q → %q) vanished", step, id, h.oldText, h.newText)
					case superseded[id]:
						if got.Status != StatusConflicted || got.SupersededBy == "" || !strings.Contains(got.Reason, "which was accepted") {
							t.Fatalf("%s: hunk %s clashes with an applied one but is %+v", step, id, got)
						}
					default:
						b := blocks[where[id]]
						var rh refHunk
						for _, x := range b.hunks {
							if x.id == id {
								rh = x
							}
						}
						want := offsets[where[id]] + refPosition(b, rh, applied)
						if got.Status != StatusPending || got.Start != want || got.End != want+len(rh.oldText) {
							t.Fatalf("%s: hunk %s is %+v, want pending at %d in %q", step, id, got, want, doc)
						}
					}
				}
				// No two applied hunks of different runs change the same
				// lines (at the base, which applying others never undoes),
				// nor make the same change side by side.
				ids := slices.Sorted(func(yield func(string) bool) {
					for id := range applied {
						if !yield(id) {
							return
						}
					}
				})
				for i, a := range ids {
					for _, b := range ids[i+1:] {
						x, y := all[a], all[b]
						touch := x.start <= y.end && y.start <= x.end
						if x.prop != y.prop && (overlap(x, y) || touch && x.oldText == y.oldText && x.newText == y.newText) {
							t.Fatalf("%s: applied hunks %s and %s clash", step, a, b)
						}
					}
				}
			}
			check("put")

			for round := 0; round < 6 && len(s.List("")) > 0; round++ {
				if r.IntN(2) == 0 {
					max := 3
					if mode == 0 {
						max = 1
					}
					edits := userEdits(r, segs, mode != 0, max)
					old := joinSegs(segs)
					applyToSegs(t, segs, edits)
					deliver(t, r, s, mode, old, joinSegs(segs), edits)
					check(fmt.Sprintf("round %d: user edits %v", round, edits))
				}
				listed := s.Select(Filter{})
				var f Filter
				switch r.IntN(5) {
				case 0:
					f.HunkID = listed[r.IntN(len(listed))].ID
				case 1:
					f.RunID = []string{"r1", "r2"}[r.IntN(2)]
				case 2:
					f.Path = "f"
				case 3: // reject a hunk
					id := listed[r.IntN(len(listed))].ID
					if n := s.Reject(Filter{HunkID: id}); n != 1 {
						t.Fatalf("reject %s: %d", id, n)
					}
					rejected[id] = true
					check(fmt.Sprintf("round %d: reject %s", round, id))
					continue
				}
				pending := map[string]bool{}
				for _, h := range s.Select(f) {
					if h.Status == StatusPending {
						pending[h.ID] = true
					}
				}
				plan, err := s.Accept(f, allEncodings[r.IntN(3)])
				if err != nil {
					t.Fatal(err)
				}
				checkPlan(t, plan)
				inPlan := map[string]bool{}
				for _, fe := range plan.Files {
					for _, id := range fe.HunkIDs {
						if inPlan[id] || applied[id] || !pending[id] {
							t.Fatalf("round %d: plan holds %s (twice, applied, or not pending)", round, id)
						}
						inPlan[id] = true
					}
				}
				reported := map[string]bool{}
				for _, c := range plan.Conflicts {
					if inPlan[c.HunkID] || reported[c.HunkID] || c.Reason == "" {
						t.Fatalf("round %d: conflict %+v also in the plan, twice, or without a reason", round, c)
					}
					reported[c.HunkID] = true
				}
				for id := range pending {
					if !inPlan[id] && !reported[id] {
						t.Fatalf("round %d: selected pending hunk %s neither applied nor reported", round, id)
					}
				}
				if plan.Empty() {
					continue
				}
				if r.IntN(6) == 0 {
					s.Failed(plan, "the editor refused")
					check(fmt.Sprintf("round %d: failed accept of %v", round, f))
					continue
				}
				// What the plan's hunks clash with, where everything is now:
				// those must end conflicted for good; within the plan, no
				// two may clash.
				now := map[string]*hunk{}
				for _, h := range s.Select(Filter{}) {
					now[h.ID] = &hunk{id: h.ID, prop: props[h.RunID], start: h.Start, end: h.End, oldText: h.OldText, newText: h.NewText}
				}
				for id := range inPlan {
					for other, h := range now {
						if other == id {
							continue
						}
						if k := clash(now[id], h); k != clashNone {
							if inPlan[other] {
								t.Fatalf("round %d: plan holds clashing %s and %s", round, id, other)
							}
							superseded[other] = true
						}
					}
				}
				clients[r.IntN(len(clients))].land(t, s, plan)
				for id := range inPlan {
					applied[id] = true
				}
				check(fmt.Sprintf("round %d: accept %+v", round, f))
			}
		})
	}
}
