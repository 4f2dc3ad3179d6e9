package revert

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"
)

// Every face reverts a run by one rule (agentls.revert in the editor,
// `agentls revert` on the disk): load the run's snapshot (Open), work the
// revert out against the files as that face sees them now (PlanRun), land
// the changes its own way (a WorkspaceEdit, confined writes), then mark the
// run reverted (Store.MarkReverted) and tell its session (Plan.Summary).

// ErrNothing: the run left no snapshot (unknown run, or none of its
// changes landed).
var ErrNothing = errors.New("no landed changes to revert")

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
		return Snapshot{}, fmt.Errorf("run %s: %w", runID, ErrNothing)
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
