// Package overlay runs a command in an overlay view of a directory: the
// directory itself as the read-only lower layer, a small upper layer
// holding what differs (files written over it, whiteouts for files that
// are gone), mounted in a mount namespace of the command's own at the
// directory's own path. Setting one up costs what the upper layer holds,
// not the size of the tree below, and the directory is never written:
// whatever the command writes or deletes lands in the upper layer.
//
// Go cannot run code between clone and exec, so the mount is made by a
// re-exec of the running binary: Wrap turns a command into "this binary,
// hidden argument HelperArg, the layers, then the command", started in a
// new mount namespace (and, for a user who is not root, a new user
// namespace mapping their own uid and gid, which kernels ≥ 5.11 allow to
// mount an overlay). The package's init function recognises HelperArg
// before main or TestMain runs, mounts, and execs the command, which so
// keeps the process id (and group) the caller started: timeouts and
// cancellation stop it like any other command. The namespace, and with it
// the mount, ends with its last process; nothing is left to unmount after
// a crash.
package overlay

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// HelperArg is the hidden first argument of the re-exec that mounts the
// view and execs the command. Any binary that links this package answers
// it (the agentls binary, and test binaries of packages that import it).
const HelperArg = "__agentls-overlay-exec"

// EnvMode names the environment variable that chooses the proposal
// view's kind: "copy" never tries an overlay; anything else (or unset)
// uses one when the kernel allows it.
const EnvMode = "AGENTLS_PROPOSAL_VIEW"

// ErrOff is returned by Supported when EnvMode turns overlays off.
var ErrOff = errors.New(EnvMode + "=copy turns overlay views off")

// Layers is one overlay view of Lower. Upper and Work are directories of
// the same filesystem, outside Lower (overlayfs refuses overlapping
// layers); Work must be empty.
type Layers struct {
	Lower string // the directory viewed, also where the view is mounted
	Upper string // what differs from Lower
	Work  string // overlayfs's own scratch directory
}

// Off reports whether EnvMode turns overlay views off.
func Off() bool { return strings.TrimSpace(os.Getenv(EnvMode)) == "copy" }

// WriteFile places text at rel (relative to Lower) in the upper layer,
// making the parent directories with the mode of Lower's, and giving the
// file the mode of Lower's file there (else 0644).
func (l Layers) WriteFile(rel, text string) error {
	dst, err := l.prepare(rel)
	if err != nil {
		return err
	}
	perm := os.FileMode(0o644)
	if fi, err := os.Stat(filepath.Join(l.Lower, rel)); err == nil && fi.Mode().IsRegular() {
		perm = fi.Mode().Perm()
	}
	_ = os.Remove(dst) // a whiteout or an earlier text
	if err := os.WriteFile(dst, []byte(text), perm); err != nil {
		return fmt.Errorf("overlay upper layer: %w", err)
	}
	return nil
}

// Remove hides rel (relative to Lower) in the view: a whiteout in the
// upper layer.
func (l Layers) Remove(rel string) error {
	dst, err := l.prepare(rel)
	if err != nil {
		return err
	}
	_ = os.RemoveAll(dst)
	if err := whiteout(dst); err != nil {
		return fmt.Errorf("overlay whiteout for %s: %w", rel, err)
	}
	return nil
}

// prepare makes rel's parent directories in the upper layer and returns
// rel's path there.
func (l Layers) prepare(rel string) (string, error) {
	rel = filepath.Clean(rel)
	if rel == "." || filepath.IsAbs(rel) || rel == ".." || strings.HasPrefix(rel, "../") {
		return "", fmt.Errorf("overlay: %q is not a path inside the view", rel)
	}
	dir := filepath.Dir(rel)
	if dir != "." {
		// Each level with the mode of the lower directory: the merged
		// directory shows the upper one's attributes.
		parts := strings.Split(dir, string(filepath.Separator))
		for i := range parts {
			sub := filepath.Join(parts[:i+1]...)
			perm := os.FileMode(0o755)
			if fi, err := os.Stat(filepath.Join(l.Lower, sub)); err == nil && fi.IsDir() {
				perm = fi.Mode().Perm()
			}
			if err := os.Mkdir(filepath.Join(l.Upper, sub), perm|0o700); err != nil && !errors.Is(err, os.ErrExist) {
				return "", fmt.Errorf("overlay upper layer: %w", err)
			}
		}
	}
	return filepath.Join(l.Upper, rel), nil
}
