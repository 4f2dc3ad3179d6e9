package proposal

import (
	"fmt"
	"strings"
)

// A session's follow-up run may be asked to change a file that an earlier
// run of the session proposed to create and that is still in review
// (nothing on disk yet). The follow-up reads that proposed text and writes
// its own version, a second proposal to create the same file. Both create
// the file, so they clash (clash.go) and accepting them would keep the
// first one's text, not the follow-up's. The front-end, which knows the
// runs belong to one session and that the follow-up's version was written
// from the earlier one's text, calls ReplaceCreated: the earlier proposal
// is superseded by the later one at once, the same way an accepted hunk
// supersedes the hunks it clashes with, so accepting everything creates
// the file once, with the follow-up's text.

// ReplaceCreated supersedes oldRun's proposal to create path with newRun's
// proposal to create it (or to fill it while it is an empty document: the
// user opened the path, so newRun changed that empty buffer): every hunk of the old proposal becomes
// conflicted for good (SupersededBy names the new proposal's hunk), so it
// can never be applied, before or after the new one. It does nothing, and
// returns 0, unless both proposals exist, are different runs', the old
// one creates the file and the new one creates or fills it; a hunk of the old proposal in an accept plan still in
// flight is left alone (if that plan lands, the file exists and the new
// proposal is conflicted: "the file was created since the proposal"). It
// returns the number of hunks superseded (or re-pointed at newRun's
// current hunk: call it after every Put of newRun's proposal).
func (s *Store) ReplaceCreated(path, oldRun, newRun string) int {
	s.mu.Lock()
	s.gen.Add(1)
	fs := s.files[path]
	if fs == nil || oldRun == newRun {
		s.mu.Unlock()
		return 0
	}
	old, neu := fs.find(oldRun), fs.find(newRun)
	if old == nil || neu == nil || !old.created || !neu.created && !emptyDoc(strText(neu.base)) || len(neu.hunks) == 0 {
		s.mu.Unlock()
		return 0
	}
	by := neu.hunks[0]
	n := 0
	for _, h := range old.hunks {
		// Already replaced by newRun: keep pointing at its current hunk
		// (a later Put of newRun may have changed the hunk's id).
		again := strings.HasPrefix(h.superseded, newRun+"#")
		if h.superseded == by.id || h.superseded != "" && !again || h.plan != 0 {
			continue
		}
		h.status = StatusConflicted
		h.superseded = by.id
		h.reason = fmt.Sprintf("replaced by change %s of run %s, a new version of this file written after reading this one; accept or reject that one instead", by.id, newRun)
		n++
	}
	if n == 0 {
		s.mu.Unlock()
		return 0
	}
	s.unlockAndNotify([]string{path})
	return n
}
