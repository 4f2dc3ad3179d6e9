package proposal

import (
	"fmt"
	"sort"

	"github.com/agentls/agentls/internal/text"
	"github.com/aymanbagabas/go-udiff"
)

// plan is the store's own copy of an in-flight AcceptPlan.
type plan struct {
	id    uint64
	files map[string]*planFile
}

type planFile struct {
	path     string
	hunkIDs  []string
	edits    []udiff.Edit
	before   string
	expected string
	landed   bool // the document already became expected
	// victims are the other hunks of the file that the plan's hunks clash
	// with, found when the plan was built: superseded when the plan lands
	// on a text that moved on (land finds them afresh otherwise).
	victims []victim
}

// victim is a hunk that an accepted hunk supersedes once applied.
type victim struct {
	h, by *hunk
	kind  clashKind
}

// Accept builds the plan that applies the selected pending hunks, with
// TextEdits in enc, and marks those hunks as applying until Applied or
// Failed is called with the plan. Selected hunks that cannot be included
// are reported in Conflicts: conflicted hunks, hunks already in an
// in-flight plan, hunks of a file with an earlier plan still in flight,
// and a hunk clashing with one already taken from another run (clash.go).
// Per file the plan is one edit: the client applies all of it or none,
// and every selected hunk is either in it or in Conflicts. Once the plan
// lands, the hunks its hunks clash with are conflicted for good (see
// land). A filter naming an unknown hunk id is an error wrapping
// ErrNotFound; a filter that selects nothing gives an empty plan.
func (s *Store) Accept(f Filter, enc text.Encoding) (AcceptPlan, error) {
	s.mu.Lock()
	s.gen.Add(1)
	defer s.mu.Unlock()
	if f.HunkID != "" && s.byID[f.HunkID] == nil {
		return AcceptPlan{}, fmt.Errorf("accept %s: %w", f.HunkID, ErrNotFound)
	}
	s.planSeq++
	out := AcceptPlan{ID: s.planSeq, Encoding: enc}
	pl := &plan{id: out.ID, files: map[string]*planFile{}}
	for _, fs := range s.sortedFiles() {
		if f.Path != "" && f.Path != fs.path {
			continue
		}
		busy := s.busy(fs.path)
		var sel []*hunk
		for _, p := range fs.props {
			for _, h := range p.hunks {
				if !f.matches(p.runID, fs.path, h.id) {
					continue
				}
				switch {
				case h.plan != 0:
					out.Conflicts = append(out.Conflicts, Conflict{fs.path, h.id, "an earlier accept of this change is still being applied"})
				case h.status == StatusConflicted:
					out.Conflicts = append(out.Conflicts, Conflict{fs.path, h.id, h.snapshot().Reason})
				case busy:
					out.Conflicts = append(out.Conflicts, Conflict{fs.path, h.id, "an earlier accept of this file is still being applied"})
				default:
					sel = append(sel, h)
				}
			}
		}
		if len(sel) == 0 {
			continue
		}
		fe, conflicts, err := buildFileEdit(fs, sel, enc)
		out.Conflicts = append(out.Conflicts, conflicts...)
		if err != nil {
			return AcceptPlan{}, err
		}
		taken := make([]*hunk, len(fe.HunkIDs))
		for i, id := range fe.HunkIDs {
			taken[i] = s.byID[id]
			taken[i].plan = out.ID
		}
		out.Files = append(out.Files, fe)
		pl.files[fs.path] = &planFile{path: fs.path, hunkIDs: fe.HunkIDs, edits: fe.Edits, before: fe.Before, expected: fe.Expected,
			victims: victims(fs, taken)}
	}
	if len(pl.files) > 0 {
		s.plans[pl.id] = pl
	}
	return out, nil
}

// buildFileEdit turns the selected hunks of one file into its FileEdit,
// taking them in document order (the earlier proposal first at equal
// places): a hunk that clashes with one taken already (clash.go) is left
// out as a conflict, so the edit never applies a change twice.
func buildFileEdit(fs *fileState, sel []*hunk, enc text.Encoding) (FileEdit, []Conflict, error) {
	sortHunks(sel)
	before := fs.str()
	fe := FileEdit{Path: fs.path, Version: cloneVersion(fs.version), Before: before}
	var conflicts []Conflict
	var taken []*hunk
	cc := clashes{}
next:
	for _, h := range sel {
		for _, t := range taken {
			if k := cc.clash(t, h); k != clashNone {
				conflicts = append(conflicts, Conflict{fs.path, h.id, clashReason(k, t, true)})
				continue next
			}
		}
		if k := len(taken) - 1; k >= 0 && h.start < taken[k].end {
			// Unreachable: hunks of one proposal never overlap.
			conflicts = append(conflicts, Conflict{fs.path, h.id, clashReason(clashOverlap, taken[k], true)})
			continue
		}
		taken = append(taken, h)
		fe.HunkIDs = append(fe.HunkIDs, h.id)
		fe.Edits = append(fe.Edits, udiff.Edit{Start: h.start, End: h.end, New: h.newText})
		fe.Created = fe.Created || h.prop.created && emptyDoc(strText(before))
	}
	expected, err := udiff.Apply(before, fe.Edits)
	if err != nil {
		return FileEdit{}, nil, fmt.Errorf("accept in %s: %w", fs.path, err)
	}
	fe.Expected = expected
	if fe.Created {
		fe.TextEdits = []text.Edit{createEdit(fs, expected, enc)}
		return fe, conflicts, nil
	}
	for _, e := range fe.Edits {
		for _, r := range refine(before[e.Start:e.End], e.New) {
			fe.TextEdits = append(fe.TextEdits, text.Edit{
				Range:   fs.rangeOf(e.Start+r.Start, e.Start+r.End, enc),
				NewText: r.New,
			})
		}
	}
	return fe, conflicts, nil
}

// createEdit is the one TextEdit that fills a new file's empty document
// with content: it replaces the whole document and ends at the start of
// the line after its first, past the end of an empty one. Neovim (0.7.2
// included) shows an empty buffer as one empty line with an implicit final
// newline ('eol'); an edit that reaches past its last line makes it drop
// the line left empty after the insertion, so the buffer (and the saved
// file) holds exactly the content instead of one blank line more. Other
// clients clamp the position to the end of the document.
func createEdit(fs *fileState, content string, enc text.Encoding) text.Edit {
	end := fs.rangeOf(0, fs.text.Len(), enc).End
	if end.Line == 0 {
		end = text.Position{Line: 1}
	}
	return text.Edit{Range: text.Range{End: end}, NewText: content}
}

// victims returns the hunks of fs that the taken hunks clash with.
func victims(fs *fileState, taken []*hunk) []victim {
	in := make(map[*hunk]bool, len(taken))
	for _, a := range taken {
		in[a] = true
	}
	var out []victim
	cc := clashes{}
	for _, p := range fs.props {
		for _, h := range p.hunks {
			if in[h] {
				continue
			}
			for _, a := range taken {
				if k := cc.clash(a, h); k != clashNone {
					out = append(out, victim{h, a, k})
					break
				}
			}
		}
	}
	return out
}

// busy reports whether an in-flight plan has edits for path that have not
// landed yet: a second plan computed on the same text would be misplaced
// by the first.
func (s *Store) busy(path string) bool {
	for _, pl := range s.plans {
		if pf := pl.files[path]; pf != nil && !pf.landed {
			return true
		}
	}
	return false
}

// landPlans lands the in-flight plan (if any) whose edits take fs from its
// current text to newText: its hunks are removed as applied and the other
// hunks are rebased through its exact edits. The caller then moves fs's
// text to newText.
func (s *Store) landPlans(fs *fileState, newText source) bool {
	for _, pl := range s.plans {
		pf := pl.files[fs.path]
		if pf == nil || pf.landed || !equalText(newText, pf.expected) || !equalText(&fs.text, pf.before) {
			continue
		}
		s.land(fs, pf)
		return true
	}
	return false
}

// land applies pf to fs: fs's text must be pf.before. Every other hunk
// that an accepted one clashes with is superseded (clash.go), the plan's
// hunks are removed as applied and the others rebased through its exact
// edits; a pure-insertion hunk sharing its point with an accepted one of
// the same proposal keeps its order relative to it. The caller moves fs's
// text to pf.expected.
func (s *Store) land(fs *fileState, pf *planFile) {
	pf.landed = true
	order := map[*hunk]int{}
	for _, p := range fs.props {
		for i, h := range p.hunks {
			order[h] = i
		}
	}
	accepted := make([]*hunk, len(pf.hunkIDs))
	var live []*hunk
	for i, id := range pf.hunkIDs {
		if h := s.byID[id]; h != nil {
			accepted[i] = h
			live = append(live, h)
		}
	}
	for _, v := range victims(fs, live) {
		v.h.supersede(v.by, v.kind)
	}
	for _, h := range live {
		s.decide(h)
		s.removeHunk(h)
	}
	s.rebaseFile(fs, strText(pf.expected), pf.edits, &origin{hunks: accepted, order: order})
}

// Landed reports whether the store saw path's document become the
// expected text of plan (in flight: neither Applied nor Failed yet), even
// if the user has typed since. An accept checks this rather than the
// current text, which a keystroke right after the edit makes differ.
func (s *Store) Landed(p AcceptPlan, path string) bool {
	s.mu.Lock()
	s.gen.Add(1)
	defer s.mu.Unlock()
	pl := s.plans[p.ID]
	if pl == nil {
		return false
	}
	pf := pl.files[path]
	return pf != nil && pf.landed
}

// Applied records that the client applied plan: its hunks are removed as
// accepted and, where the store has not yet seen the resulting text, the
// remaining hunks are rebased onto it exactly (the document version is
// left as it was until the client's didChange reports the new one, so an
// edit computed meanwhile is refused by the client rather than misplaced).
// Calling it twice, or for a plan the store does not know, does nothing.
func (s *Store) Applied(p AcceptPlan) {
	s.mu.Lock()
	s.gen.Add(1)
	pl := s.plans[p.ID]
	if pl == nil {
		s.mu.Unlock()
		return
	}
	delete(s.plans, p.ID)
	var paths []string
	for _, pf := range sortedPlanFiles(pl) {
		paths = append(paths, pf.path)
		if pf.landed {
			continue
		}
		fs := s.files[pf.path]
		if fs != nil && equalText(&fs.text, pf.before) {
			s.land(fs, pf)
			s.setText(fs, pf.expected)
			continue
		}
		// The document moved on (its changes were rebased already): the
		// plan's hunks are in it now, and the hunks they clash with are
		// superseded, wherever the rebase left them.
		for _, v := range pf.victims {
			if s.byID[v.h.id] == v.h && v.h.superseded == "" {
				v.h.supersede(v.by, v.kind)
			}
		}
		for _, id := range pf.hunkIDs {
			if h := s.byID[id]; h != nil && h.plan == pl.id {
				s.decide(h)
				s.removeHunk(h)
			}
		}
	}
	s.unlockAndNotify(paths)
}

// Failed records that the client refused or failed to apply plan, with its
// reason: the plan's hunks stay (pending, or conflicted if the document
// changed under them) and carry reason as LastError. Files whose change the
// store already saw land stay applied.
func (s *Store) Failed(p AcceptPlan, reason string) {
	s.mu.Lock()
	s.gen.Add(1)
	pl := s.plans[p.ID]
	if pl == nil {
		s.mu.Unlock()
		return
	}
	delete(s.plans, p.ID)
	var paths []string
	for _, pf := range sortedPlanFiles(pl) {
		if pf.landed {
			continue
		}
		paths = append(paths, pf.path)
		for _, id := range pf.hunkIDs {
			if h := s.byID[id]; h != nil && h.plan == pl.id {
				h.plan, h.lastError = 0, reason
			}
		}
	}
	s.unlockAndNotify(paths)
}

// Reject drops the selected hunks (pending or conflicted) and returns how
// many. Hunks in an in-flight accept plan are kept: their edit is already
// on its way to the client. A rejected change is not proposed again by a
// later Put of the same run.
func (s *Store) Reject(f Filter) int {
	s.mu.Lock()
	s.gen.Add(1)
	var drop []*hunk
	for _, fs := range s.sortedFiles() {
		for _, p := range fs.props {
			for _, h := range p.hunks {
				if h.plan == 0 && f.matches(p.runID, fs.path, h.id) {
					drop = append(drop, h)
				}
			}
		}
	}
	var paths []string
	for _, h := range drop {
		paths = append(paths, h.prop.file.path)
		s.decide(h)
		s.removeHunk(h)
	}
	s.unlockAndNotify(paths)
	return len(drop)
}

func sortedPlanFiles(pl *plan) []*planFile {
	out := make([]*planFile, 0, len(pl.files))
	for _, pf := range pl.files {
		out = append(out, pf)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].path < out[j].path })
	return out
}

// hunksSorted reports whether hunks are in sortHunks order already (after a
// keystroke they nearly always are, and checking does not allocate).
func hunksSorted(hs []*hunk) bool {
	for i := 1; i < len(hs); i++ {
		if a, b := hs[i-1], hs[i]; a.start > b.start || a.start == b.start && a.end > b.end {
			return false
		}
	}
	return true
}

// sortHunks orders hunks by range (start, then end), stably.
func sortHunks(hs []*hunk) {
	sort.SliceStable(hs, func(i, j int) bool {
		if hs[i].start != hs[j].start {
			return hs[i].start < hs[j].start
		}
		return hs[i].end < hs[j].end
	})
}
