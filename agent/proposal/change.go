package proposal

import (
	"errors"
	"fmt"
	"unicode/utf8"

	"github.com/agentls/agentls/internal/text"
	"github.com/aymanbagabas/go-udiff"
)

// ErrStale is returned (wrapped) by DocumentChangedLSP when the store's
// text for the path is no longer the revision the caller read: nothing was
// applied, and the caller should tell the store the document's full text
// with DocumentChanged.
var ErrStale = errors.New("the store's text changed since its revision was read")

// DocumentChanged tells the store that path's document is now newText at
// version (nil when not open): the file changed on disk, the editor sent
// its full text, or the server learnt the current text after a Put. Hunks
// are rebased through a minimal diff of the old and new text (see the
// package doc for the rules); a text equal to an in-flight accept plan's
// expected result lands that plan exactly. A path without proposals is
// ignored, so callers may forward every change.
func (s *Store) DocumentChanged(path string, version *int32, newText string) {
	s.mu.Lock()
	s.gen.Add(1)
	fs := s.files[path]
	if fs == nil {
		s.mu.Unlock()
		return
	}
	changed := s.changeTo(fs, newText, func() []udiff.Edit { return diffEdits(fs.str(), newText) })
	fs.version = cloneVersion(version)
	s.unlockAndNotify(pathIf(changed, path))
}

// DocumentChangedEdits is DocumentChanged with the exact byte edits the user
// made (relative to the text the store holds for path, non-overlapping, any
// order), which place the user's change precisely instead of guessing it by
// diff. If the edits do not turn the store's text into newText (the caller
// missed a change), the store falls back to a diff and returns an error
// describing the mismatch, after updating.
func (s *Store) DocumentChangedEdits(path string, version *int32, newText string, edits []udiff.Edit) error {
	s.mu.Lock()
	s.gen.Add(1)
	fs := s.files[path]
	if fs == nil {
		s.mu.Unlock()
		return nil
	}
	old := fs.str()
	checked, err := checkEdits(old, newText, edits)
	if err != nil {
		err = fmt.Errorf("document %s: %w; rebased by diff instead", path, err)
		checked = diffEdits(old, newText)
	}
	changed := s.changeTo(fs, newText, func() []udiff.Edit { return checked })
	fs.version = cloneVersion(version)
	s.unlockAndNotify(pathIf(changed, path))
	return err
}

// DocumentChangedLSP applies the content changes of one didChange (ranges
// in enc, each relative to the text the previous one left, as LSP sends
// them) to the store's own copy of path's text, one at a time, so each user
// edit is placed exactly. This is the keystroke path: it costs O(hunks)
// plus a position conversion per change, whatever the size of the
// document; the caller passes no text.
//
// rev is the Revision the caller read before the change reached its own
// copy of the document. If the store's text has changed since (an accept's
// Applied landed the edit first), nothing is applied and the error wraps
// ErrStale: the caller should send the full text with DocumentChanged. A
// change text that is not valid UTF-8 is refused with an error and nothing
// is applied (the editor's buffer refuses it as well). A path without
// proposals is ignored.
func (s *Store) DocumentChangedLSP(path string, rev uint64, version *int32, changes []text.Change, enc text.Encoding) error {
	for i, c := range changes {
		if !utf8.ValidString(c.Text) {
			return fmt.Errorf("document %s: change %d of %d: new text is not valid UTF-8", path, i+1, len(changes))
		}
	}
	s.mu.Lock()
	s.gen.Add(1)
	fs := s.files[path]
	if fs == nil {
		s.mu.Unlock()
		return nil
	}
	if fs.rev != rev {
		s.mu.Unlock()
		return fmt.Errorf("document %s: %w", path, ErrStale)
	}
	changed := false
	if len(changes) > 1 && s.busy(path) {
		if k := s.landPrefix(fs, changes, enc); k > 0 {
			changed, changes = true, changes[k:]
		}
	}
	for _, c := range changes {
		changed = s.applyChange(fs, c, enc) || changed
	}
	fs.version = cloneVersion(version)
	s.unlockAndNotify(pathIf(changed, path))
	return nil
}

// maxLandPrefix bounds how many content changes of one didChange
// landPrefix looks through (each costs a copy of the document).
const maxLandPrefix = 512

// landPrefix lands the in-flight plan whose result the document reaches
// after the first k changes of one didChange, and returns k (0: none
// did). A client may send an applied accept plan as several changes, and
// may send, in the same didChange, what the user typed after the edit
// (eglot sends everything pending from one idle timer, which may run only
// after the user went on typing): the plan lands at the change after which
// the document is exactly its result, and the caller applies the changes
// after it one by one, as the user's. A text that never equals the
// plan's result lands nothing: the edit is not taken as applied, whatever
// the client answered. Only while a plan is in flight, since this copies
// the text per change.
func (s *Store) landPrefix(fs *fileState, changes []text.Change, enc text.Encoding) int {
	final, err := text.ApplyChanges(fs.str(), changes, enc)
	if err != nil {
		return 0
	}
	if s.landPlans(fs, strText(final)) {
		s.setText(fs, final)
		return len(changes)
	}
	cur := fs.str()
	for k := 1; k < len(changes) && k <= maxLandPrefix; k++ {
		if cur, err = text.ApplyChanges(cur, changes[k-1:k], enc); err != nil {
			return 0
		}
		if s.landPlans(fs, strText(cur)) {
			s.setText(fs, cur)
			return k
		}
	}
	return 0
}

// applyChange applies one LSP content change to fs: a ranged change is
// converted to a byte edit with fs's buffer, the hunks are rebased through
// it (reading the new text through a spliced view) and the text is edited
// in place; a change without a range replaces the text as DocumentChanged
// does. It reports whether the set of hunks or a status changed.
func (s *Store) applyChange(fs *fileState, c text.Change, enc text.Encoding) bool {
	if c.Range == nil {
		return s.changeTo(fs, c.Text, func() []udiff.Edit { return diffEdits(fs.str(), c.Text) })
	}
	b := fs.buffer()
	start := b.Offset(c.Range.Start, enc)
	end := start // as Buffer.Apply converts, so text and buffer agree
	if c.Range.End != c.Range.Start {
		end = b.Offset(c.Range.End, enc)
	}
	if start > end {
		start, end = end, start
	}
	if end-start == len(c.Text) && fs.text.HasAt(start, c.Text) {
		return false // the text does not change
	}
	e := udiff.Edit{Start: start, End: end, New: c.Text}
	next := spliced{old: &fs.text, e: e}
	changed := s.landPlans(fs, next) || s.rebaseFile(fs, next, []udiff.Edit{e}, nil)
	s.editText(fs, c, e, enc)
	return changed
}

// changeTo moves fs to newText: an in-flight plan whose expected text this
// is lands; otherwise every proposal is rebased through edits(). It reports
// whether the set of hunks or a status changed.
func (s *Store) changeTo(fs *fileState, newText string, edits func() []udiff.Edit) bool {
	if equalText(&fs.text, newText) {
		return false
	}
	changed := s.landPlans(fs, strText(newText)) || s.rebaseFile(fs, strText(newText), edits(), nil)
	s.setText(fs, newText)
	return changed
}

// rebaseFile rebases every proposal of fs through edits (relative to fs's
// text) onto new. It does not change fs's text: the caller does, after.
func (s *Store) rebaseFile(fs *fileState, new source, edits []udiff.Edit, org *origin) bool {
	changed := false
	for _, p := range append([]*proposal(nil), fs.props...) {
		resolved, c := rebaseProposal(p, &fs.text, new, edits, org)
		changed = changed || c
		for _, h := range resolved {
			s.decide(h)
			if s.byID[h.id] == h {
				delete(s.byID, h.id)
			}
		}
		if len(p.hunks) == 0 {
			s.removeProposal(p)
		}
	}
	return changed
}

func pathIf(ok bool, path string) []string {
	if ok {
		return []string{path}
	}
	return nil
}
