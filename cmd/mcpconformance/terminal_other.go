//go:build !linux

package main

import (
	"context"
	"errors"
	"io"
	"os/exec"
)

// onTerminal needs a pseudo-terminal, which this driver opens only on
// Linux (where CI runs the suite).
func onTerminal(context.Context, *exec.Cmd, io.Writer) error {
	return errors.New("mcpconformance plays the user on a pseudo-terminal, which it supports on Linux only")
}
