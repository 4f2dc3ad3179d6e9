package workspace

import (
	"fmt"
	"io"
	"os"
	"syscall"
)

// ReadRegular reads a file outside the workspace folders that agentls
// reads for itself (configuration, skills): opened without blocking, so a
// FIFO planted at that path cannot hang the caller, refused unless it is
// a regular file (ErrNotRegular, naming what it is), and refused past max
// bytes (ErrTooLarge), even when it grows while being read.
func ReadRegular(path string, max int64) ([]byte, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat() // not f.Fd(): that would make the descriptor blocking
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	if !fi.Mode().IsRegular() {
		st, _ := fi.Sys().(*syscall.Stat_t)
		if st == nil {
			return nil, fmt.Errorf("read %s: %w", path, ErrNotRegular)
		}
		return nil, notRegular(path, uint32(st.Mode))
	}
	data, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	if int64(len(data)) > max {
		return nil, fmt.Errorf("read %s: %w: more than %d bytes", path, ErrTooLarge, max)
	}
	return data, nil
}
