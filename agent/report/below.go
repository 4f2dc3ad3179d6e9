package report

import (
	"path/filepath"
	"strings"
	"time"
)

// RunInfo names a run for a listing: its id, when its transcript was last
// written, and its workspace folder.
type RunInfo struct {
	ID, SessionID string
	Folder        string
	Time          time.Time
}

// RunsBelow returns the newest run of each workspace folder inside folder
// (not folder itself), newest first, at most max (0: all), from the
// transcripts in dir ("" is agent.DefaultTranscriptDir). It answers
// "agentls report" typed one directory too high, in a clone whose demo
// ran in a sub-folder.
func RunsBelow(dir, folder string, max int) ([]RunInfo, error) {
	dir, err := dirOf(dir)
	if err != nil {
		return nil, err
	}
	files, err := scan(dir)
	if err != nil {
		return nil, err
	}
	root := canonical(folder)
	seen := map[string]bool{}
	var out []RunInfo
	for _, f := range files { // newest first
		for _, got := range f.hdr.Folders {
			c := canonical(got)
			rel, err := filepath.Rel(root, c)
			if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || seen[c] {
				continue
			}
			seen[c] = true
			out = append(out, RunInfo{ID: f.hdr.RunID, SessionID: f.hdr.SessionID, Folder: c, Time: f.mod})
			break
		}
		if max > 0 && len(out) == max {
			break
		}
	}
	return out, nil
}
