package statedir

import (
	"cmp"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// Prune removes the oldest regular files in dir whose names end in suffix
// beyond the newest keep (by modification time), so a state directory
// that gains a file per run (answers, revert snapshots) stays bounded.
// Errors are ignored: pruning is housekeeping, never a reason to fail.
func Prune(dir, suffix string, keep int) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	type file struct {
		name string
		mod  time.Time
	}
	var files []file
	for _, e := range entries {
		if e.Type().IsRegular() && strings.HasSuffix(e.Name(), suffix) {
			if info, err := e.Info(); err == nil {
				files = append(files, file{e.Name(), info.ModTime()})
			}
		}
	}
	if len(files) <= keep {
		return
	}
	slices.SortFunc(files, func(a, b file) int { return cmp.Compare(b.mod.UnixNano(), a.mod.UnixNano()) })
	for _, f := range files[keep:] {
		_ = os.Remove(filepath.Join(dir, f.name))
	}
}
