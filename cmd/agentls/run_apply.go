package main

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/agentls/agentls/internal/workspace"
	"github.com/agentls/agentls/tools"
)

// applyChanges writes every staged file whose disk content is still what
// the agent based its change on; a file changed on disk meanwhile (or
// created, for a new file) is left alone and reported, never overwritten.
func applyChanges(cs *tools.Changeset, view *workspace.View) (applied int, errs []error) {
	for _, p := range cs.Files() {
		f, ok := cs.Get(p)
		if !ok {
			continue
		}
		if _, err := view.Resolve(p); err != nil { // defence in depth: tools confine already
			errs = append(errs, fmt.Errorf("not applied to %s: %w", p, err))
			continue
		}
		if err := applyOne(view, f); err != nil {
			errs = append(errs, err)
			continue
		}
		applied++
	}
	return applied, errs
}

func applyOne(view *workspace.View, f tools.StagedFile) error {
	cur, err := readConfined(view, f.Path)
	switch {
	case f.Created && err == nil:
		if string(cur) == f.Text {
			return nil
		}
		return fmt.Errorf("not applied to %s: the file was created by someone else during the run", f.Path)
	case f.Created && errors.Is(err, fs.ErrNotExist):
		if err := os.MkdirAll(filepath.Dir(f.Path), 0o755); err != nil {
			return fmt.Errorf("create %s: %w", filepath.Dir(f.Path), err)
		}
		return writeAtomic(f.Path, []byte(f.Text), 0o644)
	case err != nil:
		return fmt.Errorf("not applied to %s: %w", f.Path, err)
	}
	if sum := sha256.Sum256(cur); hex.EncodeToString(sum[:]) != f.BaseHash {
		return fmt.Errorf("not applied to %s: the file changed on disk after the agent read it", f.Path)
	}
	st, err := os.Stat(f.Path)
	if err != nil {
		return fmt.Errorf("not applied to %s: %w", f.Path, err)
	}
	return writeAtomic(f.Path, []byte(f.Text), st.Mode().Perm())
}

// readConfined reads the current disk content of path the way tools do:
// regular files only, never blocking, confined on the opened descriptor.
func readConfined(view *workspace.View, path string) ([]byte, error) {
	f, err := view.OpenFile(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(f)
}

// writeAtomic replaces path with data through a temporary file in the same
// directory and a rename, so a crash leaves either the old or the new
// content, never a mix; the file gets mode.
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
