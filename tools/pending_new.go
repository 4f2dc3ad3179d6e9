package tools

import (
	"fmt"
	"strings"
)

// A session's follow-up run may be asked to change a file that an earlier
// run of the session proposed to create: the proposal waits for the
// user's review and nothing is on disk. Reads show the disk and the
// editor's buffers plus the run's own staged edits, so without help the
// follow-up would be told "file not found" and write a second new file
// that clashes with the first. Env.PendingNewFile lets the front-end that
// owns proposals report such a file: read_file shows its proposed text
// (and counts as a read), edit_file, multi_edit and write_file change
// that text, and the result is staged as this run's own new file, which
// the front-end lets replace the earlier proposal in review
// (docs/sessions-and-plans.md, "A follow-up and a pending new file").

// PendingNew is a new file an earlier run of the same session proposed,
// still awaiting review (the file does not exist).
type PendingNew struct {
	RunID string // the run that proposed it
	Text  string // its proposed content
}

// pendingNewAt returns the pending new file at abs (absolute, confined),
// if the front-end reports one and the file does not exist or is blank
// (current is its text): an empty editor buffer the user opened at the
// path, or one line ending as Neovim shows it, where the proposal is
// still pending too. Staging a change then changes that blank text.
func (env *Env) pendingNewAt(abs string, exists bool, current string) (PendingNew, bool) {
	if env.PendingNewFile == nil || exists && !Blank(current) {
		return PendingNew{}, false
	}
	return env.PendingNewFile(abs)
}

// Blank reports whether a file's text holds nothing but line endings (an
// empty document, as editors show one).
func Blank(text string) bool { return strings.Trim(text, "\r\n") == "" }

// pendingNewNote tells the model what it is reading.
func pendingNewNote(path string, pn PendingNew) string {
	return fmt.Sprintf("%s does not exist yet: this is the new file your earlier run %s proposed, still awaiting the user's review. Change it with edit_file or write_file: your version replaces that proposal in review", path, pn.RunID)
}

// pendingNewUnread is the refusal of a change to a pending new file the
// run has not read (or that changed since it read it).
func pendingNewUnread(path string, pn PendingNew) Result {
	return Errorf("%s does not exist yet: it is the new file your earlier run %s proposed, still awaiting the user's review. Read it first (read_file), then change it: your version replaces that proposal in review", path, pn.RunID)
}

// replacesNote ends the result of a change to a pending new file.
func replacesNote(pn PendingNew) string {
	return fmt.Sprintf("this new file replaces the one your earlier run %s proposed (the user reviews yours instead)", pn.RunID)
}
