package main

import "golang.org/x/sys/unix"

// isTTY asks the terminal driver: a character device such as /dev/null is
// not a terminal, and treating it as one would prompt where nobody reads.
func isTTY(fd uintptr) bool {
	_, err := unix.IoctlGetTermios(int(fd), unix.TCGETS)
	return err == nil
}
