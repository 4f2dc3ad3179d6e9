package proposal

import "strconv"

// Suggestions are proposals nobody asked an agent run for: next edits
// guessed from the user's typing. They live in the store like any
// proposal (listed, previewed, accepted and rejected through the same
// calls) with three differences, because a suggestion is only worth
// something while it fits what the user is doing:
//
//   - a source (Proposal.Source, e.g. "next-edit") tells them apart;
//   - a hunk of theirs that the user's edits (or another accepted
//     change) conflict is dropped, not kept as a conflict to review;
//   - a source holds at most one proposal per path: a new suggestion
//     replaces the older one.
//
// Each suggestion gets a run id of its own (source-N), so its hunk ids
// are new and a change the user already decided on for an older one does
// not keep a later, equal suggestion away.

// Suggest records source's suggestion for path (see Put for base,
// baseVersion and proposed), replacing the source's earlier one for path,
// and returns its run id. A suggestion that changes nothing only drops
// the earlier one and returns "". Call DocumentChanged next with the
// text the server holds now, as after Put.
func (s *Store) Suggest(source, path, base string, baseVersion *int32, proposed string) string {
	s.DropSuggestion(source, path)
	if base == proposed {
		return ""
	}
	s.mu.Lock()
	s.gen.Add(1)
	s.suggestSeq++
	runID := source + "-" + strconv.FormatUint(s.suggestSeq, 10)
	s.sources[runID] = source
	s.mu.Unlock()
	s.Put(runID, path, base, baseVersion, proposed, false)
	s.mu.Lock()
	defer s.mu.Unlock()
	if fs := s.files[path]; fs == nil || fs.find(runID) == nil {
		delete(s.sources, runID) // the document already holds the change
		return ""
	}
	return runID
}

// DropSuggestion removes source's suggestion for path, if any; it reports
// whether there was one.
func (s *Store) DropSuggestion(source, path string) bool {
	s.mu.Lock()
	s.gen.Add(1)
	fs := s.files[path]
	if fs == nil {
		s.mu.Unlock()
		return false
	}
	var drop *proposal
	for _, p := range fs.props {
		if s.sources[p.runID] == source {
			drop = p
			break
		}
	}
	if drop == nil {
		s.mu.Unlock()
		return false
	}
	s.removeProposal(drop)
	s.unlockAndNotify([]string{path})
	return true
}

// pruneSuggestions drops the conflicted hunks of suggestions in paths:
// the user's edit or another accepted change outdated them. Called with
// s.mu held, before the paths are announced.
func (s *Store) pruneSuggestions(paths []string) {
	if len(s.sources) == 0 {
		return
	}
	for _, path := range paths {
		fs := s.files[path]
		if fs == nil {
			continue
		}
		for _, p := range append([]*proposal(nil), fs.props...) {
			if s.sources[p.runID] == "" {
				continue
			}
			for _, h := range append([]*hunk(nil), p.hunks...) {
				if h.status == StatusConflicted && h.plan == 0 {
					s.removeHunk(h)
				}
			}
		}
	}
}
