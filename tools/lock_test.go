package tools

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/agentls/agentls/internal/text"
	"github.com/agentls/agentls/internal/workspace"
)

const lockSrc = "a := 1\nb := 2\nc := 3\nd := 4\n"

// editB is the edit every lock test tries after the file changed.
func editB(t *testing.T, env *Env) Result {
	t.Helper()
	return call(t, env, "edit_file", map[string]any{"path": "f.go", "old_string": "b := 2", "new_string": "b := 20"})
}

func TestLockConflictDiskInPlace(t *testing.T) {
	root := newWorkspace(t, map[string]string{"f.go": lockSrc})
	env := newEnv(t, root, Policy{})
	readAll(t, env, "f.go")
	writeFileT(t, filepath.Join(root, "f.go"), strings.Replace(lockSrc, "d := 4", "d := 40", 1))
	out := mustErr(t, editB(t, env), "CONFLICT", "changed on disk", "-4\td := 4", "+4\td := 40", "counts as a fresh read")
	golden(t, "conflict_disk.txt", out+"\n")
	if _, ok := env.Changes.Get(filepath.Join(root, "f.go")); ok {
		t.Fatal("a conflicting edit must not be staged")
	}
	// The model saw the whole change: redoing the edit now works.
	mustOK(t, editB(t, env))
	if got := stagedText(t, env, root, "f.go"); got != "a := 1\nb := 20\nc := 3\nd := 40\n" {
		t.Fatalf("staged %q", got)
	}
}

func TestLockConflictAtomicSave(t *testing.T) {
	root := newWorkspace(t, map[string]string{"f.go": lockSrc})
	env := newEnv(t, root, Policy{})
	readAll(t, env, "f.go")
	tmp := filepath.Join(root, ".f.go.swp")
	writeFileT(t, tmp, "a := 1\nb := 2\nX\nc := 3\nd := 4\n")
	if err := os.Rename(tmp, filepath.Join(root, "f.go")); err != nil {
		t.Fatal(err)
	}
	mustErr(t, editB(t, env), "CONFLICT", "+3\tX")
}

func TestLockConflictBuffer(t *testing.T) {
	root := newWorkspace(t, map[string]string{"f.go": lockSrc})
	env := newEnv(t, root, Policy{})
	abs := filepath.Join(root, "f.go")
	env.View.Open(abs, 1, lockSrc)
	readAll(t, env, "f.go")
	r := text.Range{Start: text.Position{Line: 0, Character: 5}, End: text.Position{Line: 0, Character: 6}}
	if err := env.View.Change(abs, 2, []text.Change{{Range: &r, Text: "100"}}, text.UTF16); err != nil {
		t.Fatal(err)
	}
	mustErr(t, editB(t, env), "CONFLICT", "in the editor", "-1\ta := 1", "+1\ta := 100")
	mustOK(t, editB(t, env))
}

// TestLockOwnEditsNeverConflict: a run's staged text, and the same text
// once the editor applied it, are the run's own.
func TestLockOwnEditsNeverConflict(t *testing.T) {
	root := newWorkspace(t, map[string]string{"f.go": lockSrc})
	env := newEnv(t, root, Policy{})
	abs := filepath.Join(root, "f.go")
	readAll(t, env, "f.go")
	mustOK(t, editB(t, env))
	mustOK(t, call(t, env, "edit_file", map[string]any{"path": "f.go", "old_string": "b := 20", "new_string": "b := 200"}))
	mustOK(t, call(t, env, "write_file", map[string]any{"path": "f.go", "content": "whole\n"}))
	// Apply mode: the editor applies the staged text to its buffer.
	env.View.Open(abs, 1, "whole\n")
	env.Changes.MarkApplied(abs, "whole\n")
	if len(env.Changes.Files()) != 0 {
		t.Fatalf("nothing should be pending after MarkApplied: %v", env.Changes.Files())
	}
	mustOK(t, call(t, env, "edit_file", map[string]any{"path": "f.go", "old_string": "whole", "new_string": "again"}))
	if f, _ := env.Changes.Get(abs); f.Base != "whole\n" || f.Text != "again\n" {
		t.Fatalf("entry %+v", f)
	}
}

// TestLockRunsAreIsolated: a second run's staged text affects neither the
// first run's reads nor its lock.
func TestLockRunsAreIsolated(t *testing.T) {
	root := newWorkspace(t, map[string]string{"f.go": lockSrc})
	view := workspace.New(workspace.Options{Folders: []string{root}})
	run1 := NewEnv("r1", view, nil, Policy{})
	run2 := NewEnv("r2", view, nil, Policy{})
	readAll(t, run1, "f.go")
	readAll(t, run2, "f.go")
	mustOK(t, call(t, run2, "edit_file", map[string]any{"path": "f.go", "old_string": "a := 1", "new_string": "a := 99"}))
	if got := mustOK(t, call(t, run1, "read_file", map[string]any{"path": "f.go"})); strings.Contains(got, "99") {
		t.Fatalf("run 1 sees run 2's staged text: %s", got)
	}
	mustOK(t, editB(t, run1))
	if got := stagedText(t, run1, root, "f.go"); got != "a := 1\nb := 20\nc := 3\nd := 4\n" {
		t.Fatalf("run 1 staged %q", got)
	}
}

// TestLockLargeFileHashOnly: beyond the ledger's text bound a conflict
// cannot show a diff, so it asks for a re-read and does not count as one.
func TestLockLargeFileHashOnly(t *testing.T) {
	big := strings.Repeat("filler line\n", ledgerMaxFileText/12+10) + "b := 2\n"
	root := newWorkspace(t, map[string]string{"f.go": big})
	env := newEnv(t, root, Policy{})
	readAll(t, env, "f.go")
	writeFileT(t, filepath.Join(root, "f.go"), "x\n"+big)
	mustErr(t, editB(t, env), "CONFLICT", "too large to show", "read it again")
	mustErr(t, editB(t, env), "CONFLICT") // still not a read
	readAll(t, env, "f.go")
	mustOK(t, editB(t, env))
}

// TestLockLongChangeNotARead: a change too long to show is not a read.
func TestLockLongChangeNotARead(t *testing.T) {
	root := newWorkspace(t, map[string]string{"f.go": lockSrc})
	env := newEnv(t, root, Policy{})
	readAll(t, env, "f.go")
	writeFileT(t, filepath.Join(root, "f.go"), strings.Repeat("new line\n", 200)+lockSrc)
	mustErr(t, editB(t, env), "CONFLICT", "too long to show")
	mustErr(t, editB(t, env), "CONFLICT")
}

func TestLockDeletedAfterRead(t *testing.T) {
	root := newWorkspace(t, map[string]string{"f.go": lockSrc})
	env := newEnv(t, root, Policy{})
	readAll(t, env, "f.go")
	if err := os.Remove(filepath.Join(root, "f.go")); err != nil {
		t.Fatal(err)
	}
	mustErr(t, editB(t, env), "no longer exists")
	mustOK(t, call(t, env, "write_file", map[string]any{"path": "f.go", "content": "recreated\n"}))
}

// TestLockStagedRebase: the file changes under the run's staged edits in
// lines they do not touch: CONFLICT, but the staged edits are kept on top
// of the change and the next edit goes through.
func TestLockStagedRebase(t *testing.T) {
	root := newWorkspace(t, map[string]string{"f.go": lockSrc})
	env := newEnv(t, root, Policy{})
	abs := filepath.Join(root, "f.go")
	readAll(t, env, "f.go")
	mustOK(t, editB(t, env))
	writeFileT(t, abs, strings.Replace(lockSrc, "d := 4", "d := 40", 1))
	mustErr(t, call(t, env, "edit_file", map[string]any{"path": "f.go", "old_string": "c := 3", "new_string": "c := 30"}), "CONFLICT", "kept on top of it", "+4\td := 40")
	f, _ := env.Changes.Get(abs)
	if f.Base != readFileT(t, abs) || f.Text != "a := 1\nb := 20\nc := 3\nd := 40\n" {
		t.Fatalf("rebased entry %+v", f)
	}
	mustOK(t, call(t, env, "edit_file", map[string]any{"path": "f.go", "old_string": "c := 3", "new_string": "c := 30"}))
}

// TestLockStagedOverlapDiscarded: the change overlaps the staged edits:
// they are discarded (never applied blindly) and the run must re-read.
func TestLockStagedOverlapDiscarded(t *testing.T) {
	root := newWorkspace(t, map[string]string{"f.go": lockSrc})
	env := newEnv(t, root, Policy{})
	abs := filepath.Join(root, "f.go")
	var mu sync.Mutex
	var notified []string
	cancel := env.Changes.Subscribe(func(p string) { mu.Lock(); notified = append(notified, p); mu.Unlock() })
	defer cancel()
	readAll(t, env, "f.go")
	mustOK(t, editB(t, env))
	writeFileT(t, abs, strings.Replace(lockSrc, "b := 2", "b := 7", 1))
	mustErr(t, editB(t, env), "CONFLICT", "overlaps them", "discarded", "+2\tb := 20")
	if _, ok := env.Changes.Get(abs); ok {
		t.Fatal("overlapping staged edits must be discarded")
	}
	mustErr(t, editB(t, env), "read it first")
	mu.Lock()
	defer mu.Unlock()
	if len(notified) != 2 || notified[0] != abs || notified[1] != abs {
		t.Fatalf("subscribers must hear the stage and the discard: %v", notified)
	}
}

func TestLockStagedDeleted(t *testing.T) {
	root := newWorkspace(t, map[string]string{"f.go": lockSrc})
	env := newEnv(t, root, Policy{})
	readAll(t, env, "f.go")
	mustOK(t, editB(t, env))
	if err := os.Remove(filepath.Join(root, "f.go")); err != nil {
		t.Fatal(err)
	}
	mustErr(t, call(t, env, "edit_file", map[string]any{"path": "f.go", "old_string": "c := 3", "new_string": "x"}), "CONFLICT", "deleted")
}

// TestLockCreatedThenCreatedElsewhere: the run staged a new file and
// someone else created it meanwhile.
func TestLockCreatedThenCreatedElsewhere(t *testing.T) {
	root := newWorkspace(t, nil)
	env := newEnv(t, root, Policy{})
	mustOK(t, call(t, env, "write_file", map[string]any{"path": "n.txt", "content": "mine\n"}))
	writeFileT(t, filepath.Join(root, "n.txt"), "theirs\n")
	mustErr(t, call(t, env, "edit_file", map[string]any{"path": "n.txt", "old_string": "mine", "new_string": "x"}), "CONFLICT", "discarded")
}

// TestLockStagedLongChangeRebasedByRead: a long change under staged edits
// cannot be shown as a diff, so the edit asks for a read; read_file then
// shows the staged edits merged with the change, and editing works again.
func TestLockStagedLongChangeRebasedByRead(t *testing.T) {
	root := newWorkspace(t, map[string]string{"f.go": lockSrc})
	env := newEnv(t, root, Policy{})
	abs := filepath.Join(root, "f.go")
	readAll(t, env, "f.go")
	mustOK(t, editB(t, env))
	long := strings.Repeat("// added\n", 200)
	writeFileT(t, abs, lockSrc+long)
	mustErr(t, call(t, env, "edit_file", map[string]any{"path": "f.go", "old_string": "c := 3", "new_string": "c := 30"}), "CONFLICT", "too long to show", "Read the file again")
	if f, _ := env.Changes.Get(abs); f.Base != lockSrc {
		t.Fatal("the entry must stay as it was until the model reads")
	}
	got := mustOK(t, call(t, env, "read_file", map[string]any{"path": "f.go"}))
	if !strings.Contains(got, "b := 20") || !strings.Contains(got, "// added") || !strings.Contains(got, "kept on top of it") {
		t.Fatalf("read must show the merge: %.300s", got)
	}
	mustOK(t, call(t, env, "edit_file", map[string]any{"path": "f.go", "old_string": "c := 3", "new_string": "c := 30"}))
	if got := stagedText(t, env, root, "f.go"); got != "a := 1\nb := 20\nc := 30\nd := 4\n"+long {
		t.Fatalf("staged %q", got[:40])
	}
}
