package agent

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/agentls/agentls/internal/workspace"
	"github.com/agentls/agentls/tools"
)

// TestRestoreSaved: a saved proposal outside the workspace is refused,
// the others are staged with their runs forgotten, a decided one is taken
// out, and only new files are superseded again.
func TestRestoreSaved(t *testing.T) {
	ws := t.TempDir()
	var staged, forgot, unstaged, superseded []string
	m := ReviewRestore{
		View:    workspace.New(workspace.Options{Folders: []string{ws}}),
		Stage:   func(runID string, f tools.StagedFile) { staged = append(staged, runID+":"+f.Text) },
		Unstage: func(runID, path string) { unstaged = append(unstaged, runID+":"+filepath.Base(path)) },
		Forget:  func(runID string) { forgot = append(forgot, runID) },
	}
	sess := NewSession("")
	r := Restored{Session: sess, Proposals: []SavedProposal{
		{RunID: "r1", Path: filepath.Join(ws, "a.go"), Base: "a\n", Proposed: "A\n"},
		{RunID: "r2", Path: filepath.Join(ws, "new.go"), Proposed: "new\n", Created: true},
		{RunID: "r3", Path: filepath.Join(t.TempDir(), "outside.go"), Proposed: "evil\n", Created: true},
	}}
	n := RestoreSaved(r, m, func(s *Session, path, runID string) {
		if s != sess {
			t.Error("superseded in another session")
		}
		superseded = append(superseded, runID+":"+filepath.Base(path))
	})
	if n != 2 || !slices.Equal(staged, []string{"r1:A\n", "r2:new\n"}) || !slices.Equal(forgot, []string{"r1", "r2"}) {
		t.Fatalf("restored %d: staged %q, forgot %q; want a.go and new.go, not the file outside", n, staged, forgot)
	}
	if !slices.Equal(superseded, []string{"r2:new.go", "r3:outside.go"}) {
		t.Fatalf("superseded %q, want the new files only", superseded)
	}
	m.Drop(r.Proposals[0])
	if !slices.Equal(unstaged, []string{"r1:a.go"}) {
		t.Fatalf("Drop took out %q", unstaged)
	}
	if RestoreSaved(r, nil, nil) != 0 {
		t.Fatal("restored without a review")
	}
}

// TestOpenWorkspaceStore: no state keeps sessions in memory; a state
// directory that cannot hold them does too, without failing the face.
func TestOpenWorkspaceStore(t *testing.T) {
	ws := t.TempDir()
	if OpenWorkspaceStore(NoState, os.Getenv, ws, nil) != nil {
		t.Fatal("a store with state turned off")
	}
	blocked := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(blocked, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if OpenWorkspaceStore(blocked, os.Getenv, ws, nil) != nil {
		t.Fatal("a store in a state directory that is a file")
	}
	st := OpenWorkspaceStore(t.TempDir(), os.Getenv, ws, nil)
	if st == nil {
		t.Fatal("no store in a usable state directory")
	}
	sess := NewSession("")
	sess.st.Runs = []string{"r1"}
	if err := st.Save(sess, nil, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := st.LoadOne(sess.ID()); err != nil {
		t.Fatalf("the store does not keep sessions: %v", err)
	}
}
