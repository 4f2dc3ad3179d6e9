package proposal

import (
	"strconv"

	"github.com/aymanbagabas/go-udiff"
)

// Put records run runID's proposed change to path: base is the file text
// the run staged its change against (baseVersion its document version, nil
// when not open), proposed the text the run wants, created whether the run
// creates the file. A second Put for the same run and path replaces the
// proposal (the agent edited the file again): hunks are recomputed against
// base, a hunk whose change is unchanged keeps its id, and changes the user
// already accepted or rejected are not proposed again. A Put whose proposed
// text equals base removes the run's proposal for path.
//
// If the store already tracks path (another proposal) and its current text
// differs from base, the new hunks are rebased onto that text at once. When
// the store did not track path, base becomes the current text: call
// DocumentChanged next with the text the server holds now, so that a user
// edit made while the run worked is taken into account.
func (s *Store) Put(runID, path, base string, baseVersion *int32, proposed string, created bool) {
	s.mu.Lock()
	s.gen.Add(1)
	fs := s.files[path]
	if fs == nil {
		fs = s.newFile(path, base, baseVersion)
	}
	old := fs.find(runID)
	p := &proposal{file: fs, runID: runID, source: s.sources[runID], base: base, baseVersion: cloneVersion(baseVersion),
		proposed: proposed, created: created}
	var oldHunks []*hunk
	if old != nil {
		oldHunks = old.hunks
	}
	p.hunks = s.assignIDs(p, diffHunks(base, proposed, s.decided[runPath{runID, path}]), oldHunks)
	if !equalText(&fs.text, base) {
		cur := fs.str()
		resolved, _ := rebaseProposal(p, strText(base), strText(cur), diffEdits(base, cur), nil)
		for _, h := range resolved {
			s.decide(h) // the document already has this change
		}
	}

	// Swap the new proposal in.
	for _, h := range oldHunks {
		if s.byID[h.id] == h {
			delete(s.byID, h.id)
		}
	}
	for _, h := range p.hunks {
		s.byID[h.id] = h
	}
	if old != nil {
		for i, x := range fs.props {
			if x == old {
				fs.props[i] = p
			}
		}
	} else if len(p.hunks) > 0 {
		fs.props = append(fs.props, p)
	}
	if len(p.hunks) == 0 && old != nil {
		s.removeProposal(p)
	}
	if len(fs.props) > 0 {
		s.files[path] = fs
	}
	s.unlockAndNotify([]string{path})
}

// diffHunks computes the hunks of base → proposed: one per run of adjacent
// changed lines, in base coordinates, without ids. Changes counted in
// decided are left out (first occurrences first).
func diffHunks(base, proposed string, decided map[hunkKey]int) []*hunk {
	if base == proposed {
		return nil
	}
	edits := udiff.Lines(base, proposed)
	var out []*hunk
	var skip map[hunkKey]int
	if len(decided) > 0 {
		skip = make(map[hunkKey]int, len(decided))
		for k, n := range decided {
			skip[k] = n
		}
	}
	for i := 0; i < len(edits); {
		e := edits[i]
		newText := e.New
		for i++; i < len(edits) && edits[i].Start == e.End; i++ {
			e.End = edits[i].End
			newText += edits[i].New
		}
		h := &hunk{start: e.Start, end: e.End, oldText: base[e.Start:e.End], newText: newText, status: StatusPending}
		if h.oldText == h.newText {
			continue
		}
		if skip[h.key()] > 0 {
			skip[h.key()]--
			continue
		}
		out = append(out, h)
	}
	return out
}

// assignIDs gives each fresh hunk the id of an old hunk with the same
// change (matching the n-th occurrence with the n-th), carrying over its
// last error, in-flight plan and supersession (the run still holds a
// change that another run's accepted change made already: it stays
// conflicted), or a new id.
func (s *Store) assignIDs(p *proposal, fresh, old []*hunk) []*hunk {
	pool := map[hunkKey][]*hunk{}
	for _, h := range old {
		pool[h.key()] = append(pool[h.key()], h)
	}
	for _, h := range fresh {
		h.prop = p
		if q := pool[h.key()]; len(q) > 0 {
			h.id, h.lastError, h.plan = q[0].id, q[0].lastError, q[0].plan
			if q[0].superseded != "" {
				h.status, h.reason, h.superseded = StatusConflicted, q[0].reason, q[0].superseded
			}
			pool[h.key()] = q[1:]
			continue
		}
		s.hunkSeq++
		h.id = p.runID + "#" + strconv.FormatUint(s.hunkSeq, 10)
	}
	return fresh
}
