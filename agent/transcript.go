package agent

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/agentls/agentls/internal/statedir"
)

// Transcript is a run's JSONL trace: one object per line with "time",
// "kind" and kind-specific fields (start, request, response, retry,
// tool_call, tool_result, compaction, summary_response, error, finish).
// Secrets are redacted value by value before writing. A nil *Transcript
// records nothing, so the loop needs no checks.
type Transcript struct {
	mu     sync.Mutex
	f      *os.File
	path   string
	redact *Redactor
	now    func() time.Time
	err    error // first write error; later records are dropped

	max     int64 // bytes; past it one "truncated" record, then nothing
	written int64
	full    bool

	// A sub-agent's transcript writes through its parent's (sub).
	parent                *Transcript
	subRunID, parentRunID string
}

// DefaultTranscriptMaxBytes bounds one run's transcript: a runaway run
// (huge answers, thousands of tool results) cannot fill the disk.
const DefaultTranscriptMaxBytes = 32 << 20

// DefaultTranscriptDir is $XDG_STATE_HOME/agentls/runs, falling back to
// ~/.local/state/agentls/runs.
func DefaultTranscriptDir() (string, error) {
	d := statedir.Dir(nil)
	if d == "" {
		return "", errors.New("transcript dir: no state directory (set XDG_STATE_HOME or HOME)")
	}
	return filepath.Join(d, "runs"), nil
}

// ErrNoTranscripts: run transcripts are turned off (NoTranscript), so no
// run's transcript is there to find or report.
var ErrNoTranscripts = errors.New("run transcripts are turned off, so there is nothing to report")

// TranscriptDir resolves a transcript directory setting to where runs
// write their transcripts (NoTranscript: nowhere, ErrNoTranscripts; "":
// DefaultTranscriptDir), so every reader (reports, fates, a revert)
// looks where the writer wrote.
func TranscriptDir(setting string) (string, error) {
	switch setting {
	case NoTranscript:
		return "", ErrNoTranscripts
	case "":
		return DefaultTranscriptDir()
	}
	return setting, nil
}

// OpenTranscript creates <dir>/<date>-<runID>.jsonl (dir as TranscriptDir
// resolves it), readable by the user only since it holds code.
func OpenTranscript(dir, runID string, redact *Redactor) (*Transcript, error) {
	dir, err := TranscriptDir(dir)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("create transcript dir: %w", err)
	}
	path := filepath.Join(dir, time.Now().Format("2006-01-02")+"-"+runID+".jsonl")
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open transcript: %w", err)
	}
	if redact == nil {
		redact = NewRedactor()
	}
	return &Transcript{f: f, path: path, redact: redact, now: time.Now, max: DefaultTranscriptMaxBytes}, nil
}

// SetMaxBytes changes the size bound (DefaultTranscriptMaxBytes); n <= 0
// keeps the default. Records that would pass it are replaced by one
// {"kind":"truncated"} line, and the records after it are dropped.
func (t *Transcript) SetMaxBytes(n int64) {
	if t == nil || n <= 0 {
		return
	}
	t.mu.Lock()
	t.max = n
	t.mu.Unlock()
}

// sub returns the transcript of a sub-agent: its records go into this
// file, tagged with the sub-agent's run id and its parent's.
func (t *Transcript) sub(runID, parentRunID string) *Transcript {
	if t == nil {
		return nil
	}
	return &Transcript{parent: t, path: t.path, subRunID: runID, parentRunID: parentRunID}
}

// Path is the transcript file.
func (t *Transcript) Path() string {
	if t == nil {
		return ""
	}
	return t.path
}

// record appends one line. Failures are kept for Close, never fatal to the
// run: a full disk must not lose the user's task.
func (t *Transcript) record(kind string, fields map[string]any) {
	if t == nil {
		return
	}
	if t.parent != nil {
		tagged := make(map[string]any, len(fields)+2)
		for k, v := range fields {
			tagged[k] = v
		}
		tagged["subRunId"], tagged["parentRunId"] = t.subRunID, t.parentRunID
		t.parent.record(kind, tagged)
		return
	}
	rec := make(map[string]any, len(fields)+2)
	for k, v := range fields {
		rec[k] = v
	}
	rec["kind"] = kind
	rec["time"] = t.now().UTC().Format(time.RFC3339Nano)
	t.mu.Lock()
	full := t.full
	t.mu.Unlock()
	if full {
		return // do not even encode what will be dropped
	}
	line, err := t.redact.JSON(rec)
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.err != nil || t.f == nil || t.full {
		return
	}
	if err != nil {
		t.err = fmt.Errorf("encode transcript record %s: %w", kind, err)
		return
	}
	line = append(line, '\n')
	if t.max > 0 && t.written+int64(len(line)) > t.max {
		t.full = true
		line, _ = json.Marshal(map[string]any{"kind": "truncated", "time": rec["time"], "dropped": kind,
			"note": fmt.Sprintf("the transcript reached its bound of %d bytes; this record (%d bytes) and every later one were dropped", t.max, len(line))})
		line = append(line, '\n')
	}
	n, err := t.f.Write(line)
	t.written += int64(n)
	if err != nil {
		t.err = fmt.Errorf("write transcript: %w", err)
	}
}

// Close flushes and closes the file and reports the first write error.
func (t *Transcript) Close() error {
	if t == nil {
		return nil
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.f == nil {
		return t.err
	}
	err := t.f.Close()
	t.f = nil
	if t.err != nil {
		return t.err
	}
	return err
}
