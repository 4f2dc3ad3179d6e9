package agent

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentls/agentls/agent/revert"
)

// keptRun returns a store holding run's landed change and a transcript
// directory holding the run's transcript.
func keptRun(t *testing.T, run string) (*revert.Store, string, string) {
	t.Helper()
	st := revert.NewStore(t.TempDir())
	if ok, err := st.Keep(run, "", revert.File{Path: "/w/a.go", Before: "a\n", After: "b\n"}); !ok || err != nil {
		t.Fatalf("Keep = %v, %v", ok, err)
	}
	tdir := t.TempDir()
	transcript := filepath.Join(tdir, "20250101T000000-"+run+".jsonl")
	if err := os.WriteFile(transcript, []byte(`{"kind":"start"}`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return st, tdir, transcript
}

// A revert that wrote files back marks the run reverted, records each
// file's fate in the run's transcript and tells the session both what
// was reverted and what was left alone.
func TestRevertedRecordsEverywhere(t *testing.T) {
	const run = "abc123"
	st, tdir, transcript := keptRun(t, run)
	sess := NewSession("")
	done := []revert.Result{{Path: "/w/a.go", Reverted: 2}}
	left := []revert.Result{{Path: "/w/b.go", Conflict: "the file is gone"}}
	summary, err := Reverted(st, run, done, left, tdir, sess)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(summary, "a.go") || !strings.Contains(summary, "b.go") || !strings.Contains(summary, "the file is gone") {
		t.Fatalf("summary = %q", summary)
	}
	if _, err := st.Open(run); !errors.Is(err, revert.ErrAlreadyReverted) {
		t.Fatalf("Open after Reverted = %v, want ErrAlreadyReverted", err)
	}
	b, _ := os.ReadFile(transcript)
	if !strings.Contains(string(b), `"fate":"reverted"`) || !strings.Contains(string(b), `"hunks":2`) || strings.Contains(string(b), "b.go") {
		t.Fatalf("transcript = %s", b)
	}
	sess.mu.Lock()
	notes := strings.Join(sess.st.Notes, "\n")
	sess.mu.Unlock()
	if !strings.Contains(notes, "reverted the changes of run "+run) || !strings.Contains(notes, "b.go") {
		t.Fatalf("session notes = %q", notes)
	}
}

// Without a session the transcript is found in tdir; NoTranscript writes
// none; a revert that wrote nothing back records nothing.
func TestRevertedWithoutSessionOrTranscripts(t *testing.T) {
	const run = "def456"
	st, tdir, transcript := keptRun(t, run)
	if _, err := Reverted(st, run, nil, []revert.Result{{Path: "/w/a.go", Conflict: "changed since"}}, tdir, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Open(run); err != nil {
		t.Fatalf("a revert that wrote nothing marked the run: %v", err)
	}
	done := []revert.Result{{Path: "/w/a.go", Reverted: 1}}
	if _, err := Reverted(st, run, done, nil, NoTranscript, nil); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(transcript); strings.Contains(string(b), "fate") {
		t.Fatalf("NoTranscript wrote a fate: %s", b)
	}
	st2, tdir2, transcript2 := keptRun(t, run)
	if _, err := Reverted(st2, run, done, nil, tdir2, nil); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(transcript2); !strings.Contains(string(b), `"fate":"reverted"`) {
		t.Fatalf("transcript found in tdir = %s", b)
	}
}

// TestTranscriptDirResolvesOnce: readers look where runs write: off is an
// error, "" the default state directory, anything else as given.
func TestTranscriptDirResolvesOnce(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", "/tmp/st")
	if d, err := TranscriptDir(""); err != nil || d != "/tmp/st/agentls/runs" {
		t.Fatalf(`TranscriptDir("") = %q, %v`, d, err)
	}
	if d, err := TranscriptDir("/x/runs"); err != nil || d != "/x/runs" {
		t.Fatalf("TranscriptDir(/x/runs) = %q, %v", d, err)
	}
	if _, err := TranscriptDir(NoTranscript); !errors.Is(err, ErrNoTranscripts) {
		t.Fatalf("TranscriptDir(off) = %v", err)
	}
	if _, err := FindTranscript(NoTranscript, "abc123"); !errors.Is(err, ErrNoTranscripts) {
		t.Fatalf("FindTranscript with transcripts off = %v, want ErrNoTranscripts (not a directory named -)", err)
	}
}

// TestNoteRevertSaved: `agentls revert` holds no live session, so the
// saved one is told: its next run reads what was reverted. A session not
// saved there is nobody to tell, and no error.
func TestNoteRevertSaved(t *testing.T) {
	state, ws := t.TempDir(), t.TempDir()
	st, err := OpenSessionStore(state, ws, nil)
	if err != nil {
		t.Fatal(err)
	}
	sess := NewSession("")
	if err := st.Save(sess, nil, NewRedactor()); err != nil {
		t.Fatal(err)
	}
	if err := NoteRevertSaved(state, ws, sess.ID(), "abc123", "/w/a.go: reverted\n", nil); err != nil {
		t.Fatal(err)
	}
	r, err := st.LoadOne(sess.ID())
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Session.st.Notes) != 1 || !strings.Contains(r.Session.st.Notes[0], "The user reverted the changes of run abc123") || !strings.Contains(r.Session.st.Notes[0], "/w/a.go: reverted") {
		t.Fatalf("notes = %q", r.Session.st.Notes)
	}
	if err := NoteRevertSaved(state, ws, "nosuchsession", "abc123", "x", nil); err != nil {
		t.Fatalf("an unknown session: %v", err)
	}
}
