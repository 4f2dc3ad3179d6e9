package revert

import (
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strings"
)

// Every face reverts a run by one rule (agentls.revert in the editor,
// `agentls revert` on the disk): load the run's snapshot (Open), work the
// revert out against the files as that face sees them now (PlanRun), land
// the changes its own way (a WorkspaceEdit, confined writes), then mark the
// run reverted (Store.MarkReverted) and tell its session (Plan.Summary).

// ErrNothing: the run left no snapshot (unknown run, or none of its
// changes landed).
var ErrNothing = errors.New("no accepted or applied changes to revert")

// ErrNoState: there is no state directory (a nil Store), so no snapshot
// was ever kept.
var ErrNoState = errors.New("there is no state directory, so no run can be reverted")

// ErrAlreadyReverted: the run was reverted before; nothing is to be done.
var ErrAlreadyReverted = errors.New("already reverted")

// Open loads runID's snapshot for a revert: ErrNothing when there is none,
// ErrAlreadyReverted when it was reverted before. A nil store has nothing.
func (s *Store) Open(runID string) (Snapshot, error) {
	if s == nil {
		return Snapshot{}, ErrNothing
	}
	snap, err := s.Load(runID)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return Snapshot{}, fmt.Errorf("run %s has %w (an unknown run, or one with no applied changes: none accepted in an editor, allowed over ACP or applied by agentls run --apply)", runID, ErrNothing)
	case err != nil:
		return Snapshot{}, err
	case snap.Reverted:
		return snap, fmt.Errorf("run %s: %w", runID, ErrAlreadyReverted)
	}
	return snap, nil
}

// Current is a file as a face sees it: an editor's buffer (with its
// version) or the disk; Exists false when it is neither.
type Current struct {
	Text    string
	Exists  bool
	Version *int32
}

// Change is one file a revert writes or deletes, with the text it was
// worked out against (what the face must still find there).
type Change struct {
	Result
	From Current
}

// Plan is a run's revert worked out against the current texts.
type Plan struct {
	// Changes are the files to write or delete; a Change whose Conflict is
	// set is partly reverted.
	Changes []Change
	// Left are the files (or parts) left alone, with the reason.
	Left []Result
}

// Leave adds a file the face could not revert (the editor cannot delete
// files, say) to the files left alone.
func (p *Plan) Leave(path, reason string) {
	p.Left = append(p.Left, Result{Path: path, Conflict: reason})
}

// Summary is one line per file, what the run's session is told.
func (p Plan) Summary() string {
	rs := make([]Result, 0, len(p.Changes)+len(p.Left))
	for _, c := range p.Changes {
		rs = append(rs, c.Result)
	}
	return Summary(append(rs, p.Left...))
}

// PlanRun works out the revert of snap against each file as read reads it
// now. Files too large to have been kept, files gone or unreadable, and
// files already as before the run are left alone, with the reason.
func PlanRun(snap Snapshot, read func(path string) (Current, error)) Plan {
	var p Plan
	for _, path := range snap.TooLarge {
		p.Leave(path, "the change was too large to keep a snapshot of")
	}
	for _, f := range snap.Files {
		cur, err := read(f.Path)
		if err != nil {
			p.Leave(f.Path, err.Error())
			continue
		}
		r, err := Undo(f, cur.Text, cur.Exists)
		if err != nil {
			p.Leave(f.Path, strings.TrimPrefix(err.Error(), f.Path+": "))
			continue
		}
		if !r.Changed {
			if r.Conflict != "" {
				p.Left = append(p.Left, r)
			}
			continue
		}
		p.Changes = append(p.Changes, Change{Result: r, From: cur})
	}
	return p
}

// Revert is a run's revert worked out once for every face (Run): the
// files to change back, the ones left alone and why, and what to say
// when nothing is to be done. The face lands Changes its own way (an
// editor's workspace edit, confined writes on disk), then records the
// revert (agent.Reverted with Done and Left).
type Revert struct {
	Plan
	RunID, SessionID string
	// Files counts the files the run's changes landed in.
	Files int
	// Note says why nothing is to be done; "" when Changes is not empty.
	Note string
}

// Run opens runID's snapshot in st and works its revert out against the
// files as read gives them now (an editor's buffers, the disk). canDelete
// says whether the face can delete a file (an editor without resource
// operations cannot); if not, a file the run created is left alone for
// the user to delete, rather than emptied. A run reverted before is no
// error: nothing is to be done, and Note says so. The errors are worded
// for people: ErrNoState (nil st), ErrNothing (no snapshot), or why the
// snapshot could not be read.
func Run(st *Store, runID string, read func(path string) (Current, error), canDelete bool) (Revert, error) {
	if st == nil {
		return Revert{}, ErrNoState
	}
	snap, err := st.Open(runID)
	rv := Revert{RunID: runID, SessionID: snap.SessionID, Files: len(snap.Files)}
	switch {
	case errors.Is(err, ErrAlreadyReverted):
		rv.Note = "run " + runID + " was already reverted; nothing was done"
		return rv, nil
	case err != nil:
		return Revert{}, err
	}
	rv.Plan = PlanRun(snap, read)
	if !canDelete {
		rv.Changes = slices.DeleteFunc(rv.Changes, func(c Change) bool {
			if c.Delete {
				rv.Leave(c.Path, "the run created this file; the editor cannot delete files (resource operations), so delete it yourself")
			}
			return c.Delete
		})
	}
	if len(rv.Changes) == 0 {
		rv.Note = "nothing to revert"
	}
	return rv, nil
}

// Land lands each change with land, one at a time (writes on disk); a
// change land fails on is left alone with its error, the others stay
// done.
func (r *Revert) Land(land func(Change) error) {
	r.Changes = slices.DeleteFunc(r.Changes, func(c Change) bool {
		err := land(c)
		if err != nil {
			r.Leave(c.Path, err.Error())
		}
		return err != nil
	})
}

// Done are the results of the changes (to record once they landed).
func (r Revert) Done() []Result {
	out := make([]Result, 0, len(r.Changes))
	for _, c := range r.Changes {
		out = append(out, c.Result)
	}
	return out
}

// Conflicts are what the user hears was left alone: the files partly
// reverted (lines changed since), then the files left as they are; a
// revert with none took back everything the run did.
func (r Revert) Conflicts() []Result {
	var out []Result
	for _, c := range r.Changes {
		if c.Conflict != "" {
			out = append(out, c.Result)
		}
	}
	return append(out, r.Left...)
}
