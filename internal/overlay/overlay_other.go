//go:build !linux

package overlay

import (
	"errors"
	"os/exec"
)

var errNotLinux = errors.New("overlay views need Linux")

// Supported reports that overlay views are a Linux feature.
func Supported() error {
	if Off() {
		return ErrOff
	}
	return errNotLinux
}

// Probe always fails off Linux.
func Probe(lower, base string) error { return errNotLinux }

// Wrap always fails off Linux.
func (l Layers) Wrap(cmd *exec.Cmd) error { return errNotLinux }

func whiteout(path string) error { return errNotLinux }
