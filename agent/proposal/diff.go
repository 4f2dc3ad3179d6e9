package proposal

import (
	"fmt"
	"slices"
	"unicode/utf8"

	"github.com/aymanbagabas/go-udiff"
)

// diffEdits returns a minimal set of byte edits turning old into new. The
// common prefix and suffix are trimmed first (on rune boundaries), so a
// keystroke in a large file costs two comparisons and no diff at all.
func diffEdits(old, new string) []udiff.Edit {
	if old == new {
		return nil
	}
	n := min(len(old), len(new))
	p := 0
	for p < n && old[p] == new[p] {
		p++
	}
	for p > 0 && (p < len(old) && !utf8.RuneStart(old[p]) || p < len(new) && !utf8.RuneStart(new[p])) {
		p--
	}
	q := 0 // common suffix length, not overlapping the prefix
	for q < n-p && old[len(old)-1-q] == new[len(new)-1-q] {
		q++
	}
	for q > 0 && (!utf8.RuneStart(old[len(old)-q]) || !utf8.RuneStart(new[len(new)-q])) {
		q--
	}
	om, nm := old[p:len(old)-q], new[p:len(new)-q]
	if om == "" || nm == "" || !utf8.ValidString(om) || !utf8.ValidString(nm) {
		// One edit; udiff.Strings would misplace offsets in invalid UTF-8.
		return slideToLines(old, []udiff.Edit{{Start: p, End: p + len(om), New: nm}})
	}
	edits := udiff.Strings(om, nm)
	for i := range edits {
		edits[i].Start += p
		edits[i].End += p
	}
	return slideToLines(old, edits)
}

// slideToLines moves each pure insertion or deletion that does not cover
// whole lines to an equivalent place where it does, if there is one. A diff
// cannot tell where a user typed among equal texts (adding "\tx\n" before
// "\treturn" looks like adding "x\n\t" one byte later, inside the next
// line); whole lines are what people add and delete, and they keep the
// rebase from seeing a conflict in a line the user did not touch. The
// result is the same text; edits keep their order and do not overlap.
func slideToLines(old string, edits []udiff.Edit) []udiff.Edit {
	for i, e := range edits {
		lo, hi := 0, len(old) // room to slide without crossing neighbours
		if i > 0 {
			lo = edits[i-1].End
		}
		if i+1 < len(edits) {
			hi = edits[i+1].Start
		}
		switch {
		case e.Start == e.End && e.New != "":
			edits[i] = slideInsertion(old, e, lo, hi)
		case e.Start < e.End && e.New == "":
			edits[i] = slideDeletion(old, e, lo, hi)
		}
	}
	return edits
}

func lineStart(s string, i int) bool { return i == 0 || s[i-1] == '\n' }

// slideInsertion finds the nearest place in [lo, hi] where inserting a
// rotation of e.New is the same change and covers whole lines.
func slideInsertion(old string, e udiff.Edit, lo, hi int) udiff.Edit {
	t, p := e.New, e.Start
	if lineStart(old, p) && t[len(t)-1] == '\n' {
		return e
	}
	// Left: old[p-k:p] must equal the last k bytes of t.
	for k := 1; k <= len(t) && p-k >= lo; k++ {
		if old[p-k] != t[len(t)-k] {
			break
		}
		if q := p - k; lineStart(old, q) && onRune(old, q) {
			if r := old[q:p] + t[:len(t)-k]; r[len(r)-1] == '\n' {
				return udiff.Edit{Start: q, End: q, New: r}
			}
		}
	}
	// Right: old[p:p+k] must equal the first k bytes of t.
	for k := 1; k <= len(t) && p+k <= hi; k++ {
		if old[p+k-1] != t[k-1] {
			break
		}
		if q := p + k; lineStart(old, q) && onRune(old, q) {
			if r := t[k:] + old[p:q]; r[len(r)-1] == '\n' {
				return udiff.Edit{Start: q, End: q, New: r}
			}
		}
	}
	return e
}

// slideDeletion finds the nearest place in [lo, hi] where deleting the same
// number of bytes is the same change and removes whole lines.
func slideDeletion(old string, e udiff.Edit, lo, hi int) udiff.Edit {
	a, b := e.Start, e.End
	whole := func(a, b int) bool { return lineStart(old, a) && old[b-1] == '\n' && onRune(old, a) && onRune(old, b) }
	if whole(a, b) {
		return e
	}
	for k := 1; a-k >= lo && old[a-k] == old[b-k]; k++ {
		if whole(a-k, b-k) {
			return udiff.Edit{Start: a - k, End: b - k}
		}
	}
	for k := 1; b+k <= hi && old[a+k-1] == old[b+k-1]; k++ {
		if whole(a+k, b+k) {
			return udiff.Edit{Start: a + k, End: b + k}
		}
	}
	return e
}

// refine splits the replacement of old by new into a minimal set of
// character-level edits relative to old, for the TextEdits sent to the
// client (smaller edits keep the user's cursor and marks in place). No edit
// boundary falls between the "\r" and "\n" of a CRLF (positions cannot name
// that place) or inside a rune.
func refine(old, new string) []udiff.Edit {
	raw := diffEdits(old, new)
	type group struct {
		start, end int
		members    []udiff.Edit
	}
	var groups []group
	for _, e := range raw {
		a, b := e.Start, e.End
		if splitsCRLF(old, a) {
			a--
		}
		if splitsCRLF(old, b) {
			b++
		}
		if k := len(groups) - 1; k >= 0 && a < groups[k].end {
			groups[k].end = max(groups[k].end, b)
			groups[k].members = append(groups[k].members, e)
			continue
		}
		groups = append(groups, group{a, b, []udiff.Edit{e}})
	}
	out := make([]udiff.Edit, 0, len(groups))
	for _, g := range groups {
		if len(g.members) == 1 && g.start == g.members[0].Start && g.end == g.members[0].End {
			out = append(out, g.members[0])
			continue
		}
		local := make([]udiff.Edit, len(g.members))
		for i, m := range g.members {
			local[i] = udiff.Edit{Start: m.Start - g.start, End: m.End - g.start, New: m.New}
		}
		repl, err := udiff.Apply(old[g.start:g.end], local)
		if err != nil { // unreachable: members come from one valid diff
			return []udiff.Edit{{Start: 0, End: len(old), New: new}}
		}
		out = append(out, udiff.Edit{Start: g.start, End: g.end, New: repl})
	}
	return out
}

// splitsCRLF reports whether offset i falls between a "\r" and a "\n".
func splitsCRLF(s string, i int) bool {
	return i > 0 && i < len(s) && s[i-1] == '\r' && s[i] == '\n'
}

// checkEdits validates caller-supplied edits against old and returns them
// sorted (a copy): in bounds, not overlapping, on rune boundaries, and
// producing want.
func checkEdits(old, want string, edits []udiff.Edit) ([]udiff.Edit, error) {
	edits = slices.Clone(edits)
	udiff.SortEdits(edits)
	for _, e := range edits {
		if e.Start < 0 || e.End > len(old) || e.Start > e.End {
			return nil, fmt.Errorf("edit %v is out of bounds of a %d-byte text", e, len(old))
		}
		if !onRune(old, e.Start) || !onRune(old, e.End) {
			return nil, fmt.Errorf("edit %v splits a UTF-8 sequence", e)
		}
	}
	got, err := udiff.Apply(old, edits)
	if err != nil {
		return nil, fmt.Errorf("apply edits: %w", err)
	}
	if got != want {
		return nil, fmt.Errorf("edits do not produce the new text (%d bytes, want %d)", len(got), len(want))
	}
	return edits, nil
}

func onRune(s string, i int) bool { return i == len(s) || utf8.RuneStart(s[i]) }
