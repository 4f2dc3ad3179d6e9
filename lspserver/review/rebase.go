package review

import (
	"errors"

	"github.com/agentls/agentls/agent/proposal"
	"github.com/agentls/agentls/internal/text"
)

// Rebase hooks: every change of a document that has proposals reaches the
// store, so hunk ranges follow the user's typing, overlapping edits turn
// hunks conflicted, and an accept is always computed on the text the editor
// holds. didOpen/didChange/didClose call the hooks below (docs.Follower); disk
// changes of files that are not open arrive as view events (rv).
//
// Documents without proposals take the fast path: one map lookup, no copy
// of the text (BenchmarkDidChange). Documents with proposals cost the
// store's rebase of the exact changes, O(hunks) per keystroke with no copy
// of the text either (BenchmarkDidChangeWithProposal).

// tracks reports whether the store holds proposals for path. It takes the
// store's lock and looks up one map entry; nothing is copied.
func (r *reviewState) tracks(path string) bool {
	_, ok := r.store.Revision(path)
	return ok
}

// ChangeDocument applies a didChange to the view and, when the document has
// proposals, forwards the exact changes to the store (DocumentChangedLSP),
// which applies them to its own copy of the text: neither side builds the
// text before or after (a view snapshot copies and hashes the whole
// document, 1.2 ms per keystroke on a 10,000-line file; a copy alone was
// 400 µs with a proposal pending).
//
// The store's text is the view's as long as every update goes through
// these hooks under docMu. The one update that does not is an accept's
// Applied (it lands the plan once the view shows it, without docMu): the
// store's revision, read before the view changes, tells when it came
// first, and the store is then resynced from the view's text. Accept
// compares the buffer itself before sending any edit (staleFiles) in any
// case.
func (v *Review) ChangeDocument(key string, version int32, changes []text.Change, enc text.Encoding) error {
	path := v.docs.StorePath(key)
	if err := v.changeDocument(key, path, version, changes, enc); err != nil {
		return err
	}
	v.previewDocChanged(path, docTyped) // diagnostics follow the typing (diagnostics.go)
	return nil
}

func (v *Review) changeDocument(key, path string, version int32, changes []text.Change, enc text.Encoding) error {
	r := v.state()
	r.docMu.Lock()
	defer r.docMu.Unlock()
	rev, tracked := r.store.Revision(path)
	if err := v.view.Change(key, version, changes, enc); err != nil || !tracked {
		return err
	}
	if err := r.store.DocumentChangedLSP(path, rev, &version, changes, enc); err != nil {
		if errors.Is(err, proposal.ErrStale) {
			v.log.Debug("an accept landed before its didChange; resyncing proposals", "path", path)
		} else { // unreachable: the view accepted the same changes
			v.log.Warn("proposal rebase refused a change the view accepted; resyncing", "path", path, "err", err)
		}
		if snap, open := v.view.Overlay(key); open {
			r.store.DocumentChanged(path, snap.Version, snap.Text)
		}
	}
	return nil
}

// DocumentOpened is didOpen's hook, after the view took the buffer: the
// store learns the open version (and the buffer's text, if it differs from
// the disk text the proposal was made against).
func (v *Review) DocumentOpened(path string, version int32, content string) {
	r := v.state()
	r.docMu.Lock()
	if r.tracks(path) {
		r.store.DocumentChanged(path, &version, content)
	}
	r.docMu.Unlock()
	v.previewDocChanged(path, docOpened)
}

// DocumentClosed is didClose's hook, after the view dropped the buffer:
// the document is the file on disk again (unsaved edits are gone), with
// no version.
func (v *Review) DocumentClosed(path string) {
	r := v.state()
	if r.tracks(path) {
		v.resyncClosed(path)
	}
	v.previewDocChanged(path, docClosed)
}

// diskChanged handles a view event for a file on disk (watcher,
// didChangeWatchedFiles, didSave): a file with proposals that is not open
// in the editor is rebased onto its new disk text.
func (v *Review) diskChanged(path string) {
	r := &v.st
	if r.tracks(path) {
		v.resyncClosed(path)
	}
}

// resyncClosed tells the store the disk text of path if the document is
// not open (read outside docMu: a Read may emit a view event).
func (v *Review) resyncClosed(path string) {
	content, open, err := v.docs.DiskText(path)
	if err != nil {
		v.log.Warn("cannot read file with proposals", "path", path, "err", err)
		return
	}
	if open {
		return
	}
	r := &v.st
	r.docMu.Lock()
	defer r.docMu.Unlock()
	if _, open := v.view.Overlay(path); !open {
		r.store.DocumentChanged(path, nil, content)
	}
}
