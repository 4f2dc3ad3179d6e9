package report

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/agentls/agentls/agent"
)

// header is what a transcript's first record says about its run (the
// "session" record agent.SessionRun writes first).
type header struct {
	Kind      string   `json:"kind"`
	RunID     string   `json:"runId"`
	SessionID string   `json:"sessionId"`
	Folders   []string `json:"folders"`
}

type transcriptFile struct {
	path string
	mod  time.Time
	hdr  header
}

// maxHeaderBytes bounds the first record read to identify a transcript (a
// prompt of several MB is possible; the header is the first line).
const maxHeaderBytes = 16 << 20

// scan lists the transcripts in dir with their headers, newest first.
// Files that are not readable transcripts are skipped.
func scan(dir string) ([]transcriptFile, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("list transcripts: %w", err)
	}
	var out []transcriptFile
	for _, e := range ents {
		if !e.Type().IsRegular() || !strings.HasSuffix(e.Name(), ".jsonl") {
			continue
		}
		info, err := e.Info()
		if err != nil {
			continue
		}
		p := filepath.Join(dir, e.Name())
		h, err := readHeader(p)
		if err != nil {
			continue
		}
		out = append(out, transcriptFile{path: p, mod: info.ModTime(), hdr: h})
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].mod.After(out[j].mod) })
	return out, nil
}

func readHeader(path string) (header, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|nonBlock, 0)
	if err != nil {
		return header{}, err
	}
	defer f.Close()
	var h header
	if err := json.NewDecoder(io.LimitReader(f, maxHeaderBytes)).Decode(&h); err != nil {
		return header{}, err
	}
	if h.Kind != "session" || h.RunID == "" {
		return header{}, errors.New("no session record")
	}
	return h, nil
}

// dirOf resolves a transcript directory setting (agent.TranscriptDir).
func dirOf(dir string) (string, error) { return agent.TranscriptDir(dir) }

// LatestRun returns the transcript of the newest run made in folder (a
// workspace folder, compared after resolving symlinks), from the
// transcripts in dir ("" is agent.DefaultTranscriptDir).
func LatestRun(dir, folder string) (string, error) {
	dir, err := dirOf(dir)
	if err != nil {
		return "", err
	}
	want := canonical(folder)
	files, err := scan(dir)
	if err != nil {
		return "", err
	}
	for _, f := range files {
		for _, got := range f.hdr.Folders {
			if canonical(got) == want {
				return f.path, nil
			}
		}
	}
	return "", fmt.Errorf("no run transcript for %s in %s: %w", folder, dir, fs.ErrNotExist)
}

// Run returns the transcript of runID.
func RunTranscript(dir, runID string) (string, error) {
	return agent.FindTranscript(dir, runID)
}

// SessionRuns returns the transcripts of every run of sessionID, oldest
// first.
func SessionRuns(dir, sessionID string) ([]string, error) {
	dir, err := dirOf(dir)
	if err != nil {
		return nil, err
	}
	files, err := scan(dir)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, f := range slices.Backward(files) {
		if f.hdr.SessionID == sessionID {
			out = append(out, f.path)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no run transcript of session %s in %s: %w", sessionID, dir, fs.ErrNotExist)
	}
	return out, nil
}

func canonical(p string) string {
	if abs, err := filepath.Abs(p); err == nil {
		p = abs
	}
	if r, err := filepath.EvalSymlinks(p); err == nil {
		p = r
	}
	return filepath.Clean(p)
}

// DefaultOutput is where a report is written when no -o is given: beside
// the transcript (a run) or in the transcripts' directory (a session).
func DefaultOutput(transcripts []string, sessionID string) string {
	if sessionID != "" && len(transcripts) > 0 {
		return filepath.Join(filepath.Dir(transcripts[0]), "session-"+sessionID+".html")
	}
	if len(transcripts) == 0 {
		return ""
	}
	return strings.TrimSuffix(transcripts[0], ".jsonl") + ".html"
}
