package proposal

import (
	"fmt"

	"github.com/agentls/agentls/tools/text"
	"github.com/aymanbagabas/go-udiff"
)

// DocumentChanged tells the store that path's document is now newText at
// version (nil when not open): the user typed (didChange), the file changed
// on disk, or the server learnt the current text after a Put. Hunks are
// rebased through a minimal diff of the old and new text (see the package
// doc for the rules); a text equal to an in-flight accept plan's expected
// result lands that plan exactly. A path without proposals is ignored, so
// callers may forward every change.
func (s *Store) DocumentChanged(path string, version *int32, newText string) {
	s.mu.Lock()
	fs := s.files[path]
	if fs == nil {
		s.mu.Unlock()
		return
	}
	changed := s.changeTo(fs, newText, func() []udiff.Edit { return diffEdits(fs.text, newText) })
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
	fs := s.files[path]
	if fs == nil {
		s.mu.Unlock()
		return nil
	}
	checked, err := checkEdits(fs.text, newText, edits)
	if err != nil {
		err = fmt.Errorf("document %s: %w; rebased by diff instead", path, err)
		checked = diffEdits(fs.text, newText)
	}
	changed := s.changeTo(fs, newText, func() []udiff.Edit { return checked })
	fs.version = cloneVersion(version)
	s.unlockAndNotify(pathIf(changed, path))
	return err
}

// DocumentChangedLSP applies the content changes of one didChange (ranges
// in enc, each relative to the text the previous one left, as LSP sends
// them) one at a time, so each user edit is placed exactly. oldText and
// newText are the document before and after, as the server's own view has
// them: if the store's text is not oldText, or the changes do not produce
// newText, the store rebases by diff onto newText instead and returns an
// error saying so.
func (s *Store) DocumentChangedLSP(path string, version *int32, oldText, newText string, changes []text.Change, enc text.Encoding) error {
	s.mu.Lock()
	fs := s.files[path]
	if fs == nil {
		s.mu.Unlock()
		return nil
	}
	var err error
	changed := false
	switch {
	case fs.text != oldText:
		err = fmt.Errorf("document %s: the store's text is not the old text of the change; rebased by diff instead", path)
	case s.landPlans(fs, newText):
		changed = true
	default:
		cur := fs.text
		for _, c := range changes {
			next, edit := applyChange(cur, c, enc)
			if next == cur {
				continue
			}
			changed = s.changeTo(fs, next, func() []udiff.Edit { return edit }) || changed
			cur = next
		}
		if cur != newText {
			err = fmt.Errorf("document %s: the changes do not produce the new text; rebased by diff instead", path)
		}
	}
	if fs.text != newText {
		changed = s.changeTo(fs, newText, func() []udiff.Edit { return diffEdits(fs.text, newText) }) || changed
	}
	fs.version = cloneVersion(version)
	s.unlockAndNotify(pathIf(changed, path))
	return err
}

// applyChange applies one LSP content change to cur and returns the result
// and the byte edits it made.
func applyChange(cur string, c text.Change, enc text.Encoding) (string, []udiff.Edit) {
	if c.Range == nil {
		return c.Text, diffEdits(cur, c.Text)
	}
	start, end := text.OffsetOf(cur, c.Range.Start, enc), text.OffsetOf(cur, c.Range.End, enc)
	if start > end {
		start, end = end, start
	}
	e := udiff.Edit{Start: start, End: end, New: c.Text}
	return cur[:start] + c.Text + cur[end:], []udiff.Edit{e}
}

// changeTo moves fs to newText: an in-flight plan whose expected text this
// is lands; otherwise every proposal is rebased through edits(). It reports
// whether the set of hunks or a status changed.
func (s *Store) changeTo(fs *fileState, newText string, edits func() []udiff.Edit) bool {
	if fs.text == newText {
		return false
	}
	if s.landPlans(fs, newText) {
		return true
	}
	return s.rebaseFile(fs, newText, edits(), nil)
}

// rebaseFile rebases every proposal of fs through edits onto newText.
func (s *Store) rebaseFile(fs *fileState, newText string, edits []udiff.Edit, org *origin) bool {
	old := fs.text
	changed := false
	for _, p := range append([]*proposal(nil), fs.props...) {
		resolved, c := rebaseProposal(p, old, newText, edits, org)
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
	fs.setText(newText)
	return changed
}

func pathIf(ok bool, path string) []string {
	if ok {
		return []string{path}
	}
	return nil
}
