package proposal

import (
	"fmt"

	"github.com/aymanbagabas/go-udiff"
)

// rebaseProposal maps p's hunks from old to new through edits (sorted, not
// overlapping, relative to old, producing new). Both texts are read through
// source, so that a keystroke reads only the bytes around each hunk. Hunks
// the user resolved (their text now equals the hunk's result) are removed
// from p.hunks and returned; changed reports whether any status changed. org is nil for
// the user's edits, and says where each edit came from when the store lands
// an accept plan.
func rebaseProposal(p *proposal, old, new source, edits []udiff.Edit, org *origin) (resolved []*hunk, changed bool) {
	if p.created {
		return rebaseCreated(p, new)
	}
	kept := p.hunks[:0]
	for _, h := range p.hunks {
		before := h.status
		var done bool
		if h.status == StatusPending {
			done = h.rebasePending(old, new, edits, org)
		} else {
			h.rebaseConflicted(new, edits)
		}
		if done {
			resolved = append(resolved, h)
			changed = true
			continue
		}
		changed = changed || h.status != before
		kept = append(kept, h)
	}
	p.hunks = kept
	if !hunksSorted(p.hunks) {
		sortHunks(p.hunks)
	}
	return resolved, changed
}

// rebaseCreated maps the hunk of a proposal that creates its file (base
// "", one hunk) onto new: while the document is empty it is pending and
// covers the whole document (an editor with an implicit final newline,
// Neovim's 'eol', shows an empty buffer as one line ending: the hunk
// replaces it, so the file gets exactly the proposed text); once the
// document holds exactly the proposed text it is resolved; any other
// content conflicts it. A superseded hunk stays conflicted.
func rebaseCreated(p *proposal, new source) (resolved []*hunk, changed bool) {
	empty := emptyDoc(new)
	if !empty && equalText(new, p.proposed) {
		kept := p.hunks[:0]
		for _, h := range p.hunks {
			if h.superseded != "" {
				kept = append(kept, h)
			} else {
				resolved = append(resolved, h)
			}
		}
		p.hunks = kept
		changed = len(resolved) > 0
	}
	for _, h := range p.hunks {
		before := h.status
		h.start, h.end = 0, new.Len()
		switch {
		case h.superseded != "":
		case empty:
			h.status, h.reason = StatusPending, ""
		default:
			h.status, h.reason = StatusConflicted, "the file was created since the proposal"
		}
		changed = changed || h.status != before
	}
	return resolved, changed
}

// emptyDoc reports whether s is an empty document: no text, or a single
// line ending (how an editor with an implicit final newline, such as
// Neovim with 'eol', sends an empty buffer).
func emptyDoc(s source) bool {
	switch s.Len() {
	case 0:
		return true
	case 1:
		return s.At(0) == '\n'
	case 2:
		return s.At(0) == '\r' && s.At(1) == '\n'
	}
	return false
}

// origin describes the edits of a landing accept plan: the accepted hunk
// behind each edit (nil if it is gone) and every hunk's position in its
// proposal before the plan's hunks were removed.
type origin struct {
	hunks []*hunk
	order map[*hunk]int
}

// rebasePending maps a pending hunk through edits. It reports true when the
// edits produced exactly the hunk's change (the hunk is resolved);
// otherwise the hunk is shifted, or conflicted when an edit touched its
// lines.
//
// Text inserted at the point of a pure-insertion hunk goes after the hunk,
// except when it is a landing plan's: lines of the same proposal keep their
// order, another run's accepted lines go first. An insertion of exactly the
// hunk's lines there (by the user or by another run's accepted hunk)
// resolves the hunk.
func (h *hunk) rebasePending(old, new source, edits []udiff.Edit, org *origin) (resolved bool) {
	hs, he := h.start, h.end
	empty := hs == he
	delta, lo, hi := 0, -1, -1
	near := false // an edit ends at hs or starts at he (see below)
scan:
	for i, e := range edits {
		var before, after bool
		switch {
		case empty && e.Start == hs && e.End == hs: // insertion at the point
			var a *hunk
			if org != nil {
				a = org.hunks[i]
			}
			switch {
			case a != nil && a.prop == h.prop:
				before = org.order[a] < org.order[h]
			case lo < 0 && e.New == h.newText:
				return true
			default:
				before = org != nil
			}
			after = !before
		case empty:
			// A pure insertion follows a deletion that ends at its point.
			before = e.End <= hs && e.Start < hs
			after = e.Start >= hs
		default:
			before = e.End <= hs
			after = e.Start >= he
		}
		switch {
		case before:
			delta += len(e.New) - (e.End - e.Start)
			near = near || e.End >= hs
		case after:
			near = near || e.Start <= he
			break scan
		default:
			if lo < 0 {
				lo = i
			}
			hi = i + 1
		}
	}
	if lo < 0 {
		// A pending hunk covers whole lines (the invariant the rest of the
		// store keeps). When no edit ends at its start or starts at its end,
		// the byte before it, its last byte and whether it ends the text are
		// what they were, so it still does: no need to read the text (the
		// common case of a keystroke, for every hunk but its neighbours).
		ns, ne := hs+delta, he+delta
		if !near || alignedIn(new, ns, ne) {
			h.start, h.end = ns, ne
			return false
		}
		// Only a neighbouring line changed, but it joined the hunk's lines
		// (typing at column 0, deleting the newline before them).
		h.conflict(new, edits)
		return false
	}
	// The edits lo..hi touch the hunk: compare what the user has there now
	// with what the hunk would have made of the same region.
	cs, ce := min(hs, edits[lo].Start), max(he, edits[hi-1].End)
	cluster := 0
	for _, e := range edits[lo:hi] {
		cluster += len(e.New) - (e.End - e.Start)
	}
	ncs, nce := cs+delta, ce+delta+cluster
	if nce-ncs == hs-cs+len(h.newText)+ce-he &&
		new.HasAt(ncs, old.Slice(cs, hs)) &&
		new.HasAt(ncs+hs-cs, h.newText) &&
		new.HasAt(ncs+hs-cs+len(h.newText), old.Slice(he, ce)) {
		return true
	}
	h.conflict(new, edits)
	return false
}

// rebaseConflicted maps a conflicted hunk's region through edits and turns
// the hunk pending again when the region holds its old lines once more
// (the user undid the edit). A superseded hunk never does: the change that
// superseded it is in the text, or was undone by the user after it was
// accepted, and either way applying this one is not what anyone reviewed.
func (h *hunk) rebaseConflicted(new source, edits []udiff.Edit) {
	if h.superseded != "" {
		h.start, h.end = mapRegion(h.start, h.end, edits, true)
		return
	}
	for _, grow := range []bool{false, true} {
		if rs, re := mapRegion(h.start, h.end, edits, grow); re-rs == len(h.oldText) && new.HasAt(rs, h.oldText) && alignedIn(new, rs, re) {
			h.status, h.reason, h.start, h.end = StatusPending, "", rs, re
			return
		}
	}
	h.start, h.end = mapRegion(h.start, h.end, edits, true)
}

// reasonEdited is the reason of a hunk whose lines the user edited;
// snapshots add what the lines read now (editedReason), so the text quoted
// is never stale.
const reasonEdited = "the lines were edited since the proposal"

// conflict marks h conflicted, covering the region its lines became in new.
func (h *hunk) conflict(new source, edits []udiff.Edit) {
	rs, re := mapRegion(h.start, h.end, edits, true)
	h.status, h.start, h.end = StatusConflicted, rs, re
	h.reason = reasonEdited
}

// editedReason is reasonEdited with the region's current text, quoted (Go
// syntax: tabs and line ends stay visible) and shortened.
func editedReason(text source, start, end int) string {
	end = min(end, text.Len(), start+snippetLimit+1)
	if start >= end {
		return reasonEdited + "; they are gone now"
	}
	return fmt.Sprintf("%s; they now read %s", reasonEdited, snippet(text.Slice(start, end)))
}

// mapRegion maps [rs, re) through edits: an edit strictly containing an end
// moves that end to the edit's edge (so the region grows to cover it). Text
// inserted exactly at re stays outside the region; text inserted exactly at
// rs is inside when grow is set (so typing at the start of a hunk's first
// line is shown as part of the conflict) and outside otherwise.
func mapRegion(rs, re int, edits []udiff.Edit, grow bool) (int, int) {
	ns, d := rs, 0
	for _, e := range edits {
		if e.Start > rs || e.Start == rs && (grow || e.End > e.Start) {
			break
		}
		if e.End > rs { // strictly contains rs
			ns = e.Start + d
			break
		}
		d += len(e.New) - (e.End - e.Start)
		ns = rs + d
	}
	ne, d := re, 0
	for _, e := range edits {
		if e.Start >= re {
			break
		}
		if e.End > re { // strictly contains re
			ne = e.Start + d + len(e.New)
			return ns, max(ns, ne)
		}
		d += len(e.New) - (e.End - e.Start)
		ne = re + d
	}
	return ns, max(ns, ne)
}

// alignedIn reports whether [start, end) covers whole lines of s: it starts
// at a line start and ends at a line start or at the end of s.
func alignedIn(s source, start, end int) bool {
	if start < 0 || end > s.Len() || start > end {
		return false
	}
	if start > 0 && s.At(start-1) != '\n' {
		return false
	}
	return end == start || end == s.Len() || s.At(end-1) == '\n'
}

// snippetLimit is the length snippet shortens to.
const snippetLimit = 80

// snippet quotes s for a message, shortened to about snippetLimit bytes
// (only the first snippetLimit+1 bytes of s matter).
func snippet(s string) string {
	const limit = snippetLimit
	if len(s) <= limit {
		return fmt.Sprintf("%q", s)
	}
	cut := limit
	for cut > 0 && !onRune(s, cut) {
		cut--
	}
	return fmt.Sprintf("%q…", s[:cut])
}
