package agent

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/agentls/agentls/internal/safetext"
)

// A proposal's fate (accepted, rejected with a reason, conflicted,
// reverted) is decided after its run ended, often after a restart, so it
// cannot be recorded by the run's open Transcript. RecordFate appends it
// to the run's transcript file instead, where the run report
// (internal/report) finds it next to the change it decides.

// Fate kinds recorded in "fate" transcript records.
const (
	FateAccepted   = "accepted"
	FateRejected   = "rejected"
	FateConflicted = "conflicted"
	FateReverted   = "reverted"
)

// Fate is one review outcome for some hunks of one file of a run.
type Fate struct {
	RunID  string
	Path   string // absolute or workspace-relative; shown as given
	Fate   string // one of the Fate* constants
	Hunks  int
	Reason string // the user's reason (rejected) or why (conflicted)
	// Diff is the change that landed, when the transcript's staged
	// records cannot show it (apply mode: the editor took each change as
	// it was made, so nothing was left staged); bounded by maxFateDiff.
	Diff string
}

// maxFateRecord bounds one fate line: a reason pasted by mistake (a
// whole file) must not grow the transcript without bound.
const (
	maxFateRecord = 16 << 10
	maxFateReason = 4 << 10
	maxFateDiff   = 10 << 10
)

// RecordFate appends f as a {"kind":"fate"} record to the transcript of
// f.RunID found in dir ("" is DefaultTranscriptDir). It never creates a
// transcript: a run without one (NoTranscript, a failed open) has no
// report to complete, and that is not an error worth more than a return
// value the caller may log.
//
// Finding the file lists the directory (FindTranscript): callers that
// know the run's transcript (Session.RecordFate, SessionRun.TranscriptPath)
// use RecordFateAt instead.
func RecordFate(dir string, f Fate) error {
	path, err := FindTranscript(dir, f.RunID)
	if err != nil {
		return err
	}
	return RecordFateAt(path, f)
}

// RecordFateAt appends f to the transcript at path, the file f.RunID's
// run wrote (SessionRun.TranscriptPath). Like RecordFate it never
// creates one: a path that no longer exists is an error wrapping
// fs.ErrNotExist.
func RecordFateAt(path string, f Fate) error {
	if !validID(f.RunID) {
		return fmt.Errorf("transcript of run %q: not a run id", f.RunID)
	}
	if len(f.Reason) > maxFateReason {
		f.Reason = safetext.Bound(f.Reason, maxFateReason)
	}
	if len(f.Diff) > maxFateDiff {
		f.Diff = safetext.Bound(f.Diff, maxFateDiff)
	}
	fields := map[string]any{"runId": f.RunID, "path": f.Path, "fate": f.Fate, "hunks": f.Hunks, "reason": f.Reason}
	if f.Diff != "" {
		fields["diff"] = f.Diff
	}
	return appendTranscriptRecord(path, "fate", fields, NewRedactor())
}

// RecordFate appends f to the transcript of f.RunID: the file the run
// wrote when it was executed in this process, else (after a restart) the
// one FindTranscript finds in dir, which is then remembered. dir is where
// the session's runs write transcripts ("" the default; NoTranscript:
// nothing to look up). The transcript directory of a busy user holds
// thousands of files, and every review decision records a fate, so only
// the first fate of a run not executed here lists it.
func (s *Session) RecordFate(dir string, f Fate) error {
	s.mu.Lock()
	path, known := s.transcripts[f.RunID]
	s.mu.Unlock()
	if known {
		if path == "" {
			return fmt.Errorf("transcript of run %s: the run wrote none: %w", f.RunID, fs.ErrNotExist)
		}
		err := RecordFateAt(path, f)
		if !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		// The file went away (removed or pruned): look for it as after a
		// restart.
	}
	if dir == NoTranscript {
		return nil
	}
	path, err := FindTranscript(dir, f.RunID)
	if err != nil {
		return err
	}
	s.mu.Lock()
	s.rememberTranscript(f.RunID, path)
	s.mu.Unlock()
	return RecordFateAt(path, f)
}

// rememberTranscript records runID's transcript path ("" none), under
// s.mu, forgetting the oldest past maxKnownTranscripts.
func (s *Session) rememberTranscript(runID, path string) {
	if s.transcripts == nil {
		s.transcripts = map[string]string{}
	}
	if _, ok := s.transcripts[runID]; !ok {
		s.transcriptOrder = append(s.transcriptOrder, runID)
	}
	s.transcripts[runID] = path
	if n := len(s.transcriptOrder) - maxKnownTranscripts; n > 0 {
		for _, id := range s.transcriptOrder[:n] {
			delete(s.transcripts, id)
		}
		s.transcriptOrder = slices.Delete(s.transcriptOrder, 0, n)
	}
}

// FindTranscript returns the transcript file of runID in dir (resolved
// by TranscriptDir): the newest <date>-<runID>.jsonl.
func FindTranscript(dir, runID string) (string, error) {
	if !validID(runID) {
		return "", fmt.Errorf("transcript of run %q: not a run id", runID)
	}
	dir, err := TranscriptDir(dir)
	if err != nil {
		return "", err
	}
	matches, err := filepath.Glob(filepath.Join(dir, "*-"+runID+".jsonl"))
	if err != nil {
		return "", fmt.Errorf("transcript of run %s: %w", runID, err)
	}
	if len(matches) == 0 {
		return "", fmt.Errorf("transcript of run %s: %w", runID, fs.ErrNotExist)
	}
	return matches[len(matches)-1], nil // names start with the date: the last is the newest
}

// appendTranscriptRecord writes one redacted record at the end of an
// existing transcript. It refuses anything but a regular file, so a
// planted symlink or FIFO in the state directory can neither redirect
// nor block the write.
func appendTranscriptRecord(path, kind string, fields map[string]any, redact *Redactor) error {
	fi, err := os.Lstat(path)
	if err != nil {
		return fmt.Errorf("append to transcript: %w", err)
	}
	if !fi.Mode().IsRegular() {
		return fmt.Errorf("append to transcript %s: not a regular file", path)
	}
	rec := make(map[string]any, len(fields)+2)
	for k, v := range fields {
		rec[k] = v
	}
	rec["kind"] = kind
	rec["time"] = time.Now().UTC().Format(time.RFC3339Nano)
	line, err := redact.JSON(rec)
	if err != nil {
		return fmt.Errorf("encode transcript record %s: %w", kind, err)
	}
	if len(line) > maxFateRecord {
		return errors.New("append to transcript: record too large")
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		return fmt.Errorf("append to transcript: %w", err)
	}
	_, werr := f.Write(append(line, '\n'))
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr != nil {
		return fmt.Errorf("append to transcript: %w", werr)
	}
	return nil
}
