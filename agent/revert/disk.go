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
