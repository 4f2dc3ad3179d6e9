package config

import (
	"errors"
	"fmt"

	"github.com/agentls/agentls/internal/workspace"
)

// maxConfigFile bounds one configuration file; settings are a few KB.
const maxConfigFile = 4 << 20

// readRegular reads a configuration file without ever blocking: a
// repository can put a FIFO at .agentls/config.json, and a plain read
// would hang the server at start. Only regular files are read.
func readRegular(path string) ([]byte, error) {
	data, err := workspace.ReadRegular(path, maxConfigFile)
	if errors.Is(err, workspace.ErrNotRegular) {
		return nil, fmt.Errorf("%w; configuration must be a plain JSON file", err)
	}
	return data, err
}
