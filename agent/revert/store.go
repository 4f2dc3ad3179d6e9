package revert

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"sync"
	"time"

	"github.com/agentls/agentls/internal/statedir"
	"github.com/agentls/agentls/internal/workspace"
)

// Bounds of the snapshot store: a run's snapshot holds whole file texts,
// so it is capped (a bigger change is recorded without its texts and
// cannot be reverted, which Revert says), and old snapshots are pruned.
const (
	MaxSnapshotBytes = 32 << 20
	MaxSnapshots     = 200
)

// Snapshot is what a run changed, file by file, as the changes landed.
type Snapshot struct {
	RunID     string    `json:"runId"`
	SessionID string    `json:"sessionId,omitempty"`
	Updated   time.Time `json:"updated"`
	Files     []File    `json:"files"`
	// Reverted is set once the run was reverted: a second revert does
	// nothing and says so.
	Reverted bool `json:"reverted,omitempty"`
	// TooLarge names files whose change landed but was too large to keep.
	TooLarge []string `json:"tooLarge,omitempty"`
}

// Store keeps snapshots under dir (one JSON file per run, owner-only).
type Store struct {
	dir string
	mu  sync.Mutex
}

// DefaultDir is <state dir>/reverts; "" when there is no state directory.
func DefaultDir() string {
	d := statedir.Dir(nil)
	if d == "" {
		return ""
	}
	return filepath.Join(d, "reverts")
}

// Dir is the directory the store keeps its snapshots in ("" when there
// is no state directory). Every Record and MarkReverted renames a file
// into it, so its modification time tells a reader that something changed.
func (s *Store) Dir() string { return s.dir }

// InStateDir is the store under the state directory stateDir (what
// agent.StateDir resolved); nil when there is none, which records nothing
// and has nothing to revert.
func InStateDir(stateDir string) *Store {
	if stateDir == "" {
		return nil
	}
	return NewStore(filepath.Join(stateDir, "reverts"))
}

// NewStore returns the store in dir ("" is DefaultDir).
func NewStore(dir string) *Store {
	if dir == "" {
		dir = DefaultDir()
	}
	return &Store{dir: dir}
}

func (s *Store) path(runID string) (string, error) {
	if s.dir == "" {
		return "", errors.New("revert: no state directory (set XDG_STATE_HOME or HOME)")
	}
	if runID == "" || len(runID) > 64 {
		return "", fmt.Errorf("revert: %q is not a run id", runID)
	}
	for _, c := range runID {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '-' || c == '_') {
			return "", fmt.Errorf("revert: %q is not a run id", runID)
		}
	}
	return filepath.Join(s.dir, runID+".json"), nil
}

// Keep is what every face calls when a change of runID landed (accepted in
// the editor, allowed over ACP, applied by agentls run --apply): it records
// f unless it changed nothing, and reports whether the run can now be
// reverted. A nil store (no state directory) keeps nothing.
func (s *Store) Keep(runID, sessionID string, f File) (bool, error) {
	if s == nil || f.Before == f.After {
		return false, nil
	}
	if err := s.Record(runID, sessionID, f); err != nil {
		return false, err
	}
	return true, nil
}

// Record adds a landed change of runID to its snapshot. The same file
// landing again on the text the run left (hunks accepted one at a time)
// keeps the first Before and the latest After, so a revert takes the file
// back to before the run; landing on text the user changed since starts a
// new step (File.Earlier), so the user's edits between are not the run's.
func (s *Store) Record(runID, sessionID string, f File) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	snap, err := s.load(runID)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	snap.RunID, snap.Updated, snap.Reverted = runID, time.Now().UTC(), false
	if sessionID != "" {
		snap.SessionID = sessionID
	}
	found := false
	for i := range snap.Files {
		if x := &snap.Files[i]; x.Path == f.Path {
			if x.After != f.Before {
				x.Earlier = append(x.Earlier, Step{Before: x.Before, After: x.After})
				x.Before = f.Before
			}
			x.After = f.After
			found = true
		}
	}
	if !found {
		snap.Files = append(snap.Files, f)
	}
	size := 0
	for _, x := range snap.Files {
		size += len(x.Before) + len(x.After)
		for _, st := range x.Earlier {
			size += len(st.Before) + len(st.After)
		}
	}
	if size > MaxSnapshotBytes {
		snap.Files = snap.Files[:len(snap.Files)-boolInt(!found)]
		snap.TooLarge = append(snap.TooLarge, f.Path)
	}
	if err := s.save(snap); err != nil {
		return err
	}
	statedir.Prune(s.dir, ".json", MaxSnapshots)
	return nil
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// Load returns runID's snapshot; fs.ErrNotExist when the run left none
// (it changed nothing that landed, or is unknown).
func (s *Store) Load(runID string) (Snapshot, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.load(runID)
}

// MarkReverted records that runID was reverted.
func (s *Store) MarkReverted(runID string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	snap, err := s.load(runID)
	if err != nil {
		return err
	}
	snap.Reverted, snap.Updated = true, time.Now().UTC()
	return s.save(snap)
}

func (s *Store) load(runID string) (Snapshot, error) {
	p, err := s.path(runID)
	if err != nil {
		return Snapshot{}, err
	}
	data, err := workspace.ReadRegular(p, MaxSnapshotBytes*2+1<<20)
	if err != nil {
		return Snapshot{}, fmt.Errorf("revert snapshot of run %s: %w", runID, err)
	}
	var snap Snapshot
	if err := json.Unmarshal(data, &snap); err != nil {
		return Snapshot{}, fmt.Errorf("revert snapshot of run %s: %w", runID, err)
	}
	return snap, nil
}

func (s *Store) save(snap Snapshot) error {
	p, err := s.path(snap.RunID)
	if err != nil {
		return err
	}
	data, err := json.Marshal(snap)
	if err != nil {
		return fmt.Errorf("revert snapshot: %w", err)
	}
	if err := statedir.WriteFile(p, data); err != nil {
		return fmt.Errorf("revert snapshot: %w", err)
	}
	return nil
}
