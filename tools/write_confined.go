package tools

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

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
//     and an existing file keeps its mode.
func WriteConfined(view *workspace.View, path, before string, created bool, content string) error {
	abs, err := view.Resolve(path)
	if err != nil {
		return fmt.Errorf("not written to %s: %w", path, err)
	}
	if inGitDir(abs) {
		return fmt.Errorf("not written to %s: it is inside .git, which agentls never writes", abs)
	}
	cur, err := readConfined(view, abs)
	switch {
	case created && err == nil:
		if string(cur) == content {
			return nil
		}
		return fmt.Errorf("not written to %s: the file was created by someone else meanwhile", abs)
	case created && errors.Is(err, fs.ErrNotExist):
		if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
			return fmt.Errorf("create %s: %w", filepath.Dir(abs), err)
		}
		if _, err := view.Resolve(abs); err != nil { // the directories just made must not lead out
			return fmt.Errorf("not written to %s: %w", abs, err)
		}
		return writeAtomic(abs, []byte(content), 0o644)
	case err != nil:
		return fmt.Errorf("not written to %s: %w", abs, err)
	}
	if string(cur) != before {
		return fmt.Errorf("not written to %s: the file changed on disk after the agent read it", abs)
	}
	st, err := os.Stat(abs)
	if err != nil {
		return fmt.Errorf("not written to %s: %w", abs, err)
	}
	return writeAtomic(abs, []byte(content), st.Mode().Perm())
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

// writeAtomic replaces path with data through a temporary file in the same
// directory and a rename; the file gets mode.
func writeAtomic(path string, data []byte, mode fs.FileMode) (err error) {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".agentls-*")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	defer func() {
		if err != nil {
			_ = tmp.Close()
			_ = os.Remove(tmp.Name())
		}
	}()
	if _, err = tmp.Write(data); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err = tmp.Sync(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err = tmp.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err = os.Chmod(tmp.Name(), mode); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err = os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
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
	abs, err := view.Resolve(path)
	if err != nil {
		return fmt.Errorf("not deleted %s: %w", path, err)
	}
	if inGitDir(abs) {
		return fmt.Errorf("not deleted %s: it is inside .git, which agentls never writes", abs)
	}
	cur, err := readConfined(view, abs)
	if err != nil {
		return fmt.Errorf("not deleted %s: %w", abs, err)
	}
	if string(cur) != expect {
		return fmt.Errorf("not deleted %s: the file changed on disk meanwhile", abs)
	}
	if err := os.Remove(abs); err != nil {
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
