package review

import (
	"github.com/agentls/agentls/internal/text"
)

// Rebase hooks: every change of a document that has proposals reaches the
// store through the desk (agent/desk), so hunk ranges follow the user's
// typing, overlapping edits turn hunks conflicted, and an accept is always
// computed on the text the editor holds. didOpen/didChange/didClose call
// the hooks below (docs.Follower); disk changes of files that are not open
// arrive as view events (diskChanged).
//
// Documents without proposals take the fast path: one map lookup, no copy
// of the text (BenchmarkDidChange). Documents with proposals cost the
// store's rebase of the exact changes, O(hunks) per keystroke with no copy
// of the text either (BenchmarkDidChangeWithProposal).

// ChangeDocument applies a didChange to the view and, when the document
// has proposals, forwards the exact changes to the store
// (desk.Desk.Change): neither side builds the text before or after (a view
// snapshot copies and hashes the whole document, 1.2 ms per keystroke on
// a 10,000-line file). Accept compares the buffer itself before sending
// any edit (desk.Desk.Plan) in any case.
func (v *Review) ChangeDocument(key string, version int32, changes []text.Change, enc text.Encoding) error {
	path := v.docs.StorePath(key)
	err := v.state().desk.Change(v.src, path, version, changes, enc, func() error {
		return v.view.Change(key, version, changes, enc)
	})
	if err != nil {
		return err
	}
	v.previewDocChanged(path, docTyped) // diagnostics follow the typing (diagnostics.go)
	return nil
}

// DocumentOpened is didOpen's hook, after the view took the buffer: the
// store learns the open version (and the buffer's text, if it differs from
// the disk text the proposal was made against).
func (v *Review) DocumentOpened(path string, version int32, content string) {
	v.state().desk.Opened(path, &version, content)
	v.previewDocChanged(path, docOpened)
}

// DocumentClosed is didClose's hook, after the view dropped the buffer:
// the document is the file on disk again (unsaved edits are gone), with
// no version.
func (v *Review) DocumentClosed(path string) {
	v.state().desk.Closed(v.src, path)
	v.previewDocChanged(path, docClosed)
}

// diskChanged handles a view event for a file on disk (watcher,
// didChangeWatchedFiles, didSave): a file with proposals that is not open
// in the editor is rebased onto its new disk text.
func (v *Review) diskChanged(path string) { v.st.desk.Closed(v.src, path) }
