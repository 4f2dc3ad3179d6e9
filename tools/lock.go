package tools

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"github.com/aymanbagabas/go-udiff"

	"github.com/agentls/agentls/internal/workspace"
)

// conflictMaxLines bounds the diff a CONFLICT shows. A longer change is not
// shown in part: the model is asked to re-read instead.
const conflictMaxLines = 80

// target is a file a mutating tool is about to change, after the lock check.
type target struct {
	abs, path string // absolute, and as shown to the model
	exists    bool   // the file exists (on disk or as a buffer)
	snap      workspace.Snapshot
	text      string // the text the edit applies to (staged text first)
	staged    bool   // text comes from this run's changeset
	read      bool   // the run has read (or staged) the file
	// pending is set when the file does not exist but an earlier run of
	// the session proposed it (text is that proposal's content).
	pending *PendingNew
}

// lockTarget loads abs for a mutating call and checks the run's optimistic
// lock. The current text (editor buffer, else disk, re-validated by the
// view) must be what the run last read, or its own staged base or text.
// ok is false when the call must stop; res then says why (CONFLICT with a
// diff, binary, unreadable). A missing file is not an error here: callers
// decide whether they may create it.
func (env *Env) lockTarget(abs string) (t target, res Result, ok bool) {
	t = target{abs: abs, path: env.display(abs)}
	if inGitDir(abs) {
		return t, Errorf("%s is inside .git; agentls never writes there", t.path), false
	}
	if err := env.beforeRead(abs); err != nil {
		return t, env.readError(t.path, err), false
	}
	snap, err := env.View.Read(abs)
	switch {
	case err == nil:
		t.exists, t.snap = true, snap
	case errors.Is(err, fs.ErrNotExist):
	default:
		return t, env.readError(t.path, err), false
	}
	if st, ok := env.Changes.Get(abs); ok {
		t.read = true
		if stagedHolds(st, t.exists, snap.Hash) {
			t.text, t.staged = st.Text, true
			return t, Result{}, true
		}
		note := env.reconcile(st, t.exists, snap, false)
		return t, Result{Text: "CONFLICT: " + note + "\nYour edit was NOT applied; redo it against the current text.", IsError: true}, false
	}
	rec, ok := env.Ledger.Lookup(abs)
	if pn, found := env.pendingNewAt(abs, t.exists, snap.Text); found {
		// Read only if the run saw this very text (read_file).
		t.pending, t.text, t.read = &pn, pn.Text, ok && rec.Hash == hashText(pn.Text)
		return t, Result{}, true
	}
	if !ok {
		t.text = snap.Text
		return t, Result{}, true // never read: callers refuse unless creating
	}
	t.read = true
	if !t.exists || snap.Hash == rec.Hash {
		t.text = snap.Text
		return t, Result{}, true
	}
	return t, env.conflict(t.path, abs, rec, snap), false
}

// stagedHolds reports whether the file's current state is one the run's
// staged entry accounts for: still the base (not applied yet) or already
// the proposed text (applied by the editor).
func stagedHolds(st StagedFile, exists bool, hash string) bool {
	if !exists {
		return st.Created
	}
	return hash == st.TextHash || (!st.Created && hash == st.BaseHash)
}

// conflict builds the CONFLICT result for a file changed since the run's
// read. When the whole change fits, the diff is shown and the new text
// counts as read (the model has seen what changed); otherwise the ledger
// keeps the old hash, so the next edit fails again until read_file.
func (env *Env) conflict(path, abs string, rec ReadRecord, snap workspace.Snapshot) Result {
	where := "on disk"
	if snap.Open {
		where = "in the editor (unsaved buffer)"
	}
	head := fmt.Sprintf("CONFLICT: %s changed %s since you read it; your edit was NOT applied.", path, where)
	if !rec.HasText {
		return Errorf("%s The file is too large to show what changed; read it again (read_file) and redo the edit.", head)
	}
	diff, complete := numberedDiff(rec.Text, snap.Text, conflictMaxLines)
	if !complete {
		return Errorf("%s The change is too long to show; read the file again (read_file) and redo the edit.", head)
	}
	env.Ledger.Record(abs, snap.Hash, snap.Text)
	return Errorf("%s What changed (- as you read it, + now):\n%s\nThis counts as a fresh read: redo the edit against the current text.", head, strings.TrimRight(diff, "\n"))
}

// reconcile handles a file that changed under the run's staged edits: it
// rebases them onto the current text with a three-way merge when they do
// not overlap the other change, and discards them otherwise (they can no
// longer be applied safely). It returns a note for the model.
//
// forRead says the caller (read_file) shows the resulting text in full, so
// the rebase happens even when the other change is too long to show as a
// diff; a mutating call instead keeps the entry as it is and asks for a
// read, so the model never edits text it has not seen.
func (env *Env) reconcile(st StagedFile, exists bool, snap workspace.Snapshot, forRead bool) string {
	path := env.display(st.Path)
	where := "on disk"
	if snap.Open {
		where = "in the editor"
	}
	if !exists {
		env.Changes.Discard(st.Path)
		return fmt.Sprintf("%s was deleted after you staged edits to it; your staged edits to it were discarded.", path)
	}
	if !st.Created {
		if merged, ok := merge3(st.Base, st.Text, snap.Text); ok {
			theirs, complete := numberedDiff(st.Base, snap.Text, conflictMaxLines)
			if !complete && !forRead {
				return fmt.Sprintf("%s changed %s after you staged edits to it; the change is too long to show. Read the file again (read_file): it will show your edits merged with the change.", path, where)
			}
			env.Changes.rebase(st.Path, snap.Text, merged)
			env.Ledger.Record(st.Path, snap.Hash, snap.Text)
			if !complete {
				return fmt.Sprintf("%s changed %s after you staged edits to it. Your staged edits do not overlap the change and were kept on top of it.", path, where)
			}
			return fmt.Sprintf("%s changed %s after you staged edits to it. Your staged edits do not overlap the change and were kept on top of it. The change (- before, + now):\n%s", path, where, strings.TrimRight(theirs, "\n"))
		}
	}
	ours, _ := numberedDiff(st.Base, st.Text, conflictMaxLines)
	env.Changes.Discard(st.Path)
	if st.Created {
		return fmt.Sprintf("%s was created %s by someone else after you staged it as a new file, so your staged version was discarded. It was:\n%s\nRead the file (read_file) before changing it.", path, where, strings.TrimRight(ours, "\n"))
	}
	return fmt.Sprintf("%s changed %s after you staged edits to it, and the change overlaps them, so your staged edits to this file were discarded. They were:\n%s\nRead the file again (read_file) and redo them.", path, where, strings.TrimRight(ours, "\n"))
}

// merge3 applies both the change base→theirs and base→ours, line by line;
// ok is false when they overlap.
func merge3(base, ours, theirs string) (string, bool) {
	m, ok := udiff.Merge(udiff.Lines(base, theirs), udiff.Lines(base, ours))
	if !ok {
		return "", false
	}
	out, err := udiff.Apply(base, m)
	return out, err == nil
}
