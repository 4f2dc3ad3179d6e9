package config

import (
	"fmt"
	"io"
	"os"
	"syscall"
)

// maxConfigFile bounds one configuration file; settings are a few KB.
const maxConfigFile = 4 << 20

// readRegular reads a configuration file without ever blocking: a
// repository can put a FIFO at .agentls/config.json, and a plain read
// would hang the server at start. Only regular files are read.
func readRegular(path string) ([]byte, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("not a regular file (%v); configuration must be a plain JSON file", st.Mode().Type())
	}
	data, err := io.ReadAll(io.LimitReader(f, maxConfigFile+1))
	if err != nil {
		return nil, err
	}
	if len(data) > maxConfigFile {
		return nil, fmt.Errorf("larger than %d bytes", maxConfigFile)
	}
	return data, nil
}
