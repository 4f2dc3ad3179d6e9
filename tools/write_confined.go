package tools

import (
	"errors"
	"fmt"
	"io"
	"io/fs"

	"github.com/agentls/agentls/internal/workspace"
)

// WriteConfined writes content to path on disk. It is the one write path
// for front-ends that write files themselves (`agentls run --apply`, ACP
// when the editor offers no fs/write_text_file), so every such write is
// confined the same way:
//
//   - path must resolve inside the view's folders, symlinks resolved (no
//     escape through a link), and never inside a .git directory;
//   - the disk must still hold before (the optimistic lock: a file changed
//     by someone else since the agent read it is left alone and the error
//     says so); with created the file must still not exist (or already
//     hold exactly content, which is then a no-op);
//   - the write is atomic (temporary file in the same directory, fsync,
//     rename), so a crash leaves the old or the new content, never a mix,
//     and an existing file keeps its mode;
//   - it goes through workspace.View.WriteFile, confined like every read:
//     directories are walked (and created) without following a symlink,
//     so one swapped in after the check is refused, never written through.
func WriteConfined(view *workspace.View, path, before string, created bool, content string) error {
	abs, err := view.WritablePath(path)
	if err != nil {
		return fmt.Errorf("not written to %s: %w", path, err)
	}
	cur, err := readConfined(view, abs)
	switch {
	case created && err == nil:
		if string(cur) == content {
			return nil
		}
		return fmt.Errorf("not written to %s: the file was created by someone else meanwhile", abs)
	case created && errors.Is(err, fs.ErrNotExist):
		if err := view.WriteFile(abs, []byte(content), workspace.WriteOptions{Create: true, Mode: 0o644}); err != nil {
			return fmt.Errorf("not written to %s: %w", abs, err)
		}
		return nil
	case err != nil:
		return fmt.Errorf("not written to %s: %w", abs, err)
	}
	if string(cur) != before {
		return fmt.Errorf("not written to %s: the file changed on disk after the agent read it", abs)
	}
	if err := view.WriteFile(abs, []byte(content), workspace.WriteOptions{}); err != nil {
		return fmt.Errorf("not written to %s: %w", abs, err)
	}
	return nil
}

// readConfined reads the disk content of abs the way tools do: regular
// files only, never blocking, confined on the opened descriptor (buffers
// are not consulted: this is what is on disk).
func readConfined(view *workspace.View, abs string) ([]byte, error) {
	f, err := view.OpenFile(abs)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(f)
}

// InGitDir reports whether abs is a .git directory or inside one (any
// path component, compared as the file systems that fold case would):
// front-ends that hand a write to someone else (ACP's fs/write_text_file)
// refuse those paths as WriteConfined does.
func InGitDir(abs string) bool { return inGitDir(abs) }

// RemoveConfined deletes path on disk under the same rules as
// WriteConfined: inside the view's folders, never in .git, and only while
// the disk still holds expect (a revert deletes a file the run created
// only if nobody changed it since).
func RemoveConfined(view *workspace.View, path, expect string) error {
	abs, err := view.WritablePath(path)
	if err != nil {
		return fmt.Errorf("not deleted %s: %w", path, err)
	}
	cur, err := readConfined(view, abs)
	if err != nil {
		return fmt.Errorf("not deleted %s: %w", abs, err)
	}
	if string(cur) != expect {
		return fmt.Errorf("not deleted %s: the file changed on disk meanwhile", abs)
	}
	if err := view.RemoveFile(abs); err != nil {
		return fmt.Errorf("delete %s: %w", abs, err)
	}
	return nil
}

// ReadDisk reads path's content on disk (not the editor's buffer) through
// the view's confined open: regular files only, never blocking.
func ReadDisk(view *workspace.View, path string) ([]byte, error) {
	abs, err := view.Resolve(path)
	if err != nil {
		return nil, err
	}
	return readConfined(view, abs)
}
