//go:build unix

package report

import "syscall"

func mkfifo(path string) error { return syscall.Mkfifo(path, 0o600) }
