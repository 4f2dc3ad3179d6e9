package proposal

import (
	"github.com/agentls/agentls/internal/text"
)

// List returns snapshots of the proposals for path ("" = every path),
// ordered by path, then by when the run first proposed a change to it.
// Hunk ranges are byte offsets (Range is left zero; see ListLSP).
func (s *Store) List(path string) []Proposal {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.list(path, nil)
}

// ListLSP is List with each hunk's Range filled in enc, for
// agentls/proposals.
func (s *Store) ListLSP(path string, enc text.Encoding) []Proposal {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.list(path, &enc)
}

func (s *Store) list(path string, enc *text.Encoding) []Proposal {
	var files []*fileState
	if path != "" {
		if fs := s.files[path]; fs != nil {
			files = []*fileState{fs}
		}
	} else {
		files = s.sortedFiles()
	}
	var out []Proposal
	for _, fs := range files {
		for _, p := range fs.props {
			snap := Proposal{
				Path: fs.path, RunID: p.runID, Source: s.sources[p.runID], Base: p.base, BaseVersion: cloneVersion(p.baseVersion),
				Proposed: p.proposed, Created: p.created, Text: fs.str(), Version: cloneVersion(fs.version),
				Hunks: make([]Hunk, len(p.hunks)),
			}
			for i, h := range p.hunks {
				snap.Hunks[i] = h.snapshot()
				if enc != nil {
					snap.Hunks[i].Range = fs.rangeOf(h.start, h.end, *enc)
				}
			}
			out = append(out, snap)
		}
	}
	return out
}

func (h *hunk) snapshot() Hunk {
	reason := h.reason
	if reason == reasonEdited {
		reason = editedReason(&h.prop.file.text, h.start, h.end)
	}
	return Hunk{
		ID: h.id, RunID: h.prop.runID, Source: h.prop.source, Path: h.prop.file.path,
		Start: h.start, End: h.end, OldText: h.oldText, NewText: h.newText,
		Status: h.status, Reason: reason, SupersededBy: h.superseded, LastError: h.lastError, Applying: h.plan != 0,
	}
}

// Hunk returns a snapshot of the hunk with that id.
func (s *Store) Hunk(id string) (Hunk, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	h := s.byID[id]
	if h == nil {
		return Hunk{}, false
	}
	return h.snapshot(), true
}

// Select returns snapshots of the hunks f matches, pending and conflicted
// alike (check Status), ordered by path, proposal, then position. The zero
// Filter selects everything the store holds.
func (s *Store) Select(f Filter) []Hunk {
	s.mu.Lock()
	defer s.mu.Unlock()
	if f.HunkID != "" {
		h := s.byID[f.HunkID]
		if h == nil || !f.matches(h.prop.runID, h.prop.file.path, h.id) {
			return nil
		}
		return []Hunk{h.snapshot()}
	}
	var files []*fileState
	if f.Path != "" {
		if fs := s.files[f.Path]; fs != nil {
			files = []*fileState{fs}
		}
	} else {
		files = s.sortedFiles()
	}
	var out []Hunk
	for _, fs := range files {
		for _, p := range fs.props {
			if f.RunID != "" && f.RunID != p.runID {
				continue
			}
			for _, h := range p.hunks {
				out = append(out, h.snapshot())
			}
		}
	}
	return out
}

// HunksAt returns the hunks of path that the byte span [start, end) of the
// current text touches, for code actions and hover. The match is by line,
// whatever the columns: the span's lines (a span that ends at the start of
// a line, after its own start line, does not take that line) against the
// hunk's lines; a pure-insertion hunk sits on the line it inserts before,
// or on the last line when it appends after the end of the text. So a
// cursor anywhere on a line, or the range of any diagnostic on it, finds
// an insertion at that line's column 0. Ordered by position.
func (s *Store) HunksAt(path string, start, end int) []Hunk {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.hunksAt(path, start, end, nil)
}

// HunksAtLSP is HunksAt for an LSP range in enc; results carry Range.
func (s *Store) HunksAtLSP(path string, r text.Range, enc text.Encoding) []Hunk {
	s.mu.Lock()
	defer s.mu.Unlock()
	fs := s.files[path]
	if fs == nil {
		return nil
	}
	b := fs.buffer()
	start, end := b.Offset(r.Start, enc), b.Offset(r.End, enc)
	if start > end {
		start, end = end, start
	}
	return s.hunksAt(path, start, end, &enc)
}

func (s *Store) hunksAt(path string, start, end int, enc *text.Encoding) []Hunk {
	fs := s.files[path]
	if fs == nil {
		return nil
	}
	// The span's lines as bytes: [ls, le), from the start of its first line
	// to the start of the line after its last (or the end of the text).
	b := fs.buffer()
	first, last := b.Position(start, text.UTF8).Line, b.Position(end, text.UTF8)
	if end > start && last.Line > first && last.Character == 0 {
		last.Line--
	}
	ls := b.Offset(text.Position{Line: first}, text.UTF8)
	le := b.Offset(text.Position{Line: last.Line + 1}, text.UTF8)
	if last.Line+1 >= uint32(b.LineCount()) {
		le = fs.text.Len()
	}
	n := fs.text.Len()
	var out []*hunk
	for _, p := range fs.props {
		for _, h := range p.hunks {
			if h.start > le {
				break // hunks are sorted by start
			}
			var on bool
			if h.start == h.end {
				// An insertion sits on the line it inserts before; one
				// appended after the last line also sits on that line.
				on = ls <= h.start && (h.start < le || h.start == n && le == n)
			} else {
				on = h.start < le && ls < h.end
			}
			if on {
				out = append(out, h)
			}
		}
	}
	if len(fs.props) > 1 {
		sortHunks(out)
	}
	res := make([]Hunk, len(out))
	for i, h := range out {
		res[i] = h.snapshot()
		if enc != nil {
			res[i].Range = fs.rangeOf(h.start, h.end, *enc)
		}
	}
	return res
}
