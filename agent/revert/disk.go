package revert

import (
	"errors"
	"fmt"
	"io/fs"

	"github.com/agentls/agentls/internal/workspace"
	"github.com/agentls/agentls/tools"
)

// OnDisk reads files as `agentls revert` sees them: on disk, through view
// (not an editor's buffers), for PlanRun.
func OnDisk(view *workspace.View) func(path string) (Current, error) {
	return func(path string) (Current, error) {
		cur, err := tools.ReadDisk(view, path)
		if errors.Is(err, fs.ErrNotExist) {
			return Current{}, nil
		}
		if err != nil {
			return Current{}, err
		}
		return Current{Text: string(cur), Exists: true}, nil
	}
}

// InView reads files as an editor's server sees them, for Run: the open
// buffer with its version (the edit must land on that version), else the
// file on disk as OnDisk reads it, so a file in neither is gone (ErrGone)
// rather than an empty text the revert would write the run's Before into.
func InView(view *workspace.View) func(path string) (Current, error) {
	disk := OnDisk(view)
	return func(path string) (Current, error) {
		if snap, ok := view.Overlay(path); ok {
			return Current{Text: snap.Text, Version: snap.Version, Exists: true}, nil
		}
		return disk(path)
	}
}

// LandOnDisk lands one change of a plan on disk through the one confined
// write path (tools.WriteConfined / RemoveConfined: inside view's folders,
// never .git, only over the text the plan was worked out against, atomic).
func LandOnDisk(view *workspace.View, c Change) error {
	if c.Delete {
		return tools.RemoveConfined(view, c.Path, c.From.Text)
	}
	return tools.WriteConfined(view, c.Path, c.From.Text, false, c.Text)
}

// UndoOnDisk undoes f's change in the file on disk; the Result says what
// was done, as Undo's.
func UndoOnDisk(view *workspace.View, f File) (Result, error) {
	cur, err := OnDisk(view)(f.Path)
	if err != nil {
		return Result{}, fmt.Errorf("%s: %w", f.Path, err)
	}
	r, err := Undo(f, cur.Text, cur.Exists)
	if err != nil || !r.Changed {
		return r, err
	}
	return r, LandOnDisk(view, Change{Result: r, From: cur})
}
