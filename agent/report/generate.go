package report

import (
	"bytes"
	"errors"
	"fmt"
	"path/filepath"

	"github.com/agentls/agentls/internal/statedir"
)

// Request says which report to make. One of RunID and SessionID, or
// neither for the newest run in Folder.
type Request struct {
	Dir       string // transcripts, as agent.TranscriptDir resolves it
	Folder    string // workspace folder, for the newest run
	RunID     string
	SessionID string
	Output    string // the HTML file; "" is DefaultOutput
}

// Generate renders the requested report to its file and returns the
// file's path. The file is written atomically, readable by the user only
// (it holds code and conversation).
func Generate(req Request) (string, error) {
	dir, err := dirOf(req.Dir) // transcripts turned off: nothing to report
	if err != nil {
		return "", err
	}
	req.Dir = dir
	var paths []string
	var title string
	switch {
	case req.RunID != "" && req.SessionID != "":
		return "", errors.New("report: give a run or a session, not both")
	case req.RunID != "":
		p, err := RunTranscript(req.Dir, req.RunID)
		if err != nil {
			return "", err
		}
		paths, title = []string{p}, "agentls run "+req.RunID
	case req.SessionID != "":
		ps, err := SessionRuns(req.Dir, req.SessionID)
		if err != nil {
			return "", err
		}
		paths, title = ps, "agentls session "+req.SessionID
	default:
		if req.Folder == "" {
			return "", errors.New("report: no run, session or workspace folder given")
		}
		p, err := LatestRun(req.Dir, req.Folder)
		if err != nil {
			return "", err
		}
		paths = []string{p}
	}
	runs, err := Load(paths...)
	if err != nil {
		return "", err
	}
	if title == "" {
		title = "agentls run " + runs[0].ID
	}
	var buf bytes.Buffer
	if err := Render(&buf, title, runs); err != nil {
		return "", err
	}
	out := req.Output
	if out == "" {
		out = DefaultOutput(paths, req.SessionID)
	}
	if abs, err := filepath.Abs(out); err == nil {
		out = abs
	}
	if err := statedir.WriteFile(out, buf.Bytes()); err != nil {
		return "", fmt.Errorf("write report: %w", err)
	}
	return out, nil
}
