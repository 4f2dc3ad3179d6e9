package revert

import (
	"errors"
	"fmt"
	"io/fs"

	"github.com/agentls/agentls/internal/workspace"
	"github.com/agentls/agentls/tools"
)

// UndoOnDisk undoes f's change in the file on disk (not an editor's
// buffer: `agentls revert`) through the one confined write path
// (tools.WriteConfined / RemoveConfined: inside view's folders, never
// .git, only over the text just read, atomic). The Result says what was
// done, as Undo's.
func UndoOnDisk(view *workspace.View, f File) (Result, error) {
	cur, err := tools.ReadDisk(view, f.Path)
	exists := err == nil
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return Result{}, fmt.Errorf("%s: %w", f.Path, err)
	}
	r, err := Undo(f, string(cur), exists)
	if err != nil || !r.Changed {
		return r, err
	}
	if r.Delete {
		return r, tools.RemoveConfined(view, f.Path, string(cur))
	}
	return r, tools.WriteConfined(view, f.Path, string(cur), false, r.Text)
}
