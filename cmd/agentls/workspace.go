package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/agentls/agentls/agent/config"
)

// loadWorkspace resolves a subcommand's --dir (it must be a directory) and
// loads the configuration for it, printing config warnings to stderr as
// "agentls NAME: warning: …". ok is false when --dir is unusable (already
// reported; exit 2). A configuration error is returned, not printed: the
// Config stays usable (broken sources are skipped) and each subcommand
// decides whether that is fatal.
func loadWorkspace(name, dirFlag string, stderr io.Writer) (dir string, cfg config.Config, cfgErr error, ok bool) {
	dir, err := filepath.Abs(dirFlag)
	if err == nil {
		var st os.FileInfo
		if st, err = os.Stat(dir); err == nil && !st.IsDir() {
			err = fmt.Errorf("%s is not a directory", dir)
		}
	}
	if err != nil {
		fmt.Fprintf(stderr, "agentls %s: --dir: %v\n", name, err)
		return "", config.Config{}, nil, false
	}
	cfg, warnings, cfgErr := config.Load(config.LoadOptions{Folders: []string{dir}})
	for _, w := range warnings {
		fmt.Fprintf(stderr, "agentls %s: warning: %s\n", name, w)
	}
	return dir, cfg, cfgErr, true
}
