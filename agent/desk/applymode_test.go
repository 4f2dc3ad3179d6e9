package desk_test

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentls/agentls/agent/desk"
	"github.com/agentls/agentls/internal/text"
	"github.com/agentls/agentls/internal/workspace"
	"github.com/agentls/agentls/tools"
)

const applyRunID = "0123456789abcdef"

// applying is an apply-mode run over a file open in the editor at
// version 1 with base.
func applying(t *testing.T, base string, settle time.Duration) (*desk.ApplyRun, *tools.Env, *workspace.View, string) {
	t.Helper()
	_, v, path := setup(t, base)
	v.Open(path, 1, base)
	env := tools.NewEnv(applyRunID, v, nil, tools.Policy{})
	return desk.NewApplyRun(applyRunID, env, settle, slog.New(slog.DiscardHandler)), env, v, path
}

func stage(t *testing.T, env *tools.Env, path, before, after string) {
	t.Helper()
	if res := env.StageComputed(context.Background(), "Edited", []tools.FileChange{{Path: path, Before: before, After: after}}); res.IsError {
		t.Fatalf("staging: %s", res.Text)
	}
}

// editorApplies is the editor taking out's edits: its buffer moves to
// the next version.
func editorApplies(t *testing.T, v *workspace.View, path string, out desk.Outgoing) {
	t.Helper()
	buf, _ := v.Overlay(out.File.Path)
	var cs []text.Change
	for i := len(out.Edits) - 1; i >= 0; i-- { // from the end: the ranges stay valid
		r := out.Edits[i].Range
		cs = append(cs, text.Change{Range: &r, Text: out.Edits[i].NewText})
	}
	if err := v.Change(path, *buf.Version+1, cs, text.UTF16); err != nil {
		t.Fatal(err)
	}
}

// A change the editor applies and shows: it is sent against the buffer's
// version, marked applied, and recorded as accepted with its diff.
func TestApplyRunShows(t *testing.T) {
	base, want := "one\ntwo\nthree\n", "one\nTWO\nthree\n"
	run, env, v, path := applying(t, base, forever)
	stage(t, env, path, base, want)
	out, ok := run.Next(context.Background(), path, text.UTF16)
	if !ok || out.Version == nil || *out.Version != 1 || out.File.Text != want || len(out.Edits) == 0 {
		t.Fatalf("next = %+v, %v", out, ok)
	}
	// The text shows while Took waits (the editor's didChange).
	got := make(chan bool, 1)
	go func() { got <- run.Took(context.Background(), out.File) }()
	editorApplies(t, v, path, out)
	if !<-got {
		t.Fatal("the change showed but Took says it did not")
	}
	if buf, _ := v.Overlay(path); buf.Text != want {
		t.Fatalf("buffer = %q", buf.Text)
	}
	if f, _ := env.Changes.Get(path); f.Pending() {
		t.Fatalf("still staged after it landed: %+v", f)
	}
	applied, held := run.Summary()
	if applied != 1 || len(held) != 0 {
		t.Fatalf("summary = %d, %v", applied, held)
	}

	dir := t.TempDir()
	transcript := filepath.Join(dir, "20250101T000000-"+applyRunID+".jsonl")
	if err := os.WriteFile(transcript, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	run.RecordFates(dir, nil)
	rec, err := os.ReadFile(transcript)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{`"fate":"accepted"`, `applied in apply mode`, `-two`, `+TWO`} {
		if !strings.Contains(string(rec), s) {
			t.Errorf("transcript lacks %s:\n%s", s, rec)
		}
	}
}

// The user typed between the staging and the send: nothing is sent, and
// the change is handed over with why.
func TestApplyRunHoldsWhenTypedOn(t *testing.T) {
	base := "one\ntwo\n"
	run, env, v, path := applying(t, base, forever)
	stage(t, env, path, base, "one\nTWO\n")
	v.Open(path, 2, "zero\n"+base)
	if out, ok := run.Next(context.Background(), path, text.UTF16); ok {
		t.Fatalf("sent %+v over the user's typing", out)
	}
	applied, held := run.Summary()
	if applied != 0 || !strings.Contains(held[path], "changed in the editor") {
		t.Fatalf("summary = %d, %v", applied, held)
	}
}

// The editor says it applied the change, but its document shows another
// text (or nothing) within the settle bound: the change counts as applied
// to the changeset, and no further change of the file is sent.
func TestApplyRunOtherTextNeverShows(t *testing.T) {
	base := "one\ntwo\n"
	run, env, v, path := applying(t, base, time.Millisecond)
	stage(t, env, path, base, "one\nTWO\n")
	out, ok := run.Next(context.Background(), path, text.UTF16)
	if !ok {
		t.Fatal("nothing to send")
	}
	v.Open(path, 2, "one\nTWO!\n")
	if run.Took(context.Background(), out.File) {
		t.Fatal("another text counted as the change")
	}
	// The change shows after the bound: the run's next change of the file
	// is still not sent.
	v.Open(path, 3, "one\nTWO\n")
	stage(t, env, path, "one\nTWO\n", "one\nTWO\nthree\n")
	if out, ok := run.Next(context.Background(), path, text.UTF16); ok {
		t.Fatalf("sent %+v after an unconfirmed change", out)
	}
	applied, held := run.Summary()
	if applied != 1 || !strings.Contains(held[path], "never showed up") {
		t.Fatalf("summary = %d, %v", applied, held)
	}
}

// A cancelled run sends nothing more and holds nothing new: the hand-over
// names what was staged as not sent.
func TestApplyRunCancelled(t *testing.T) {
	base := "one\n"
	run, env, _, path := applying(t, base, forever)
	stage(t, env, path, base, "ONE\n")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, ok := run.Next(ctx, path, text.UTF16); ok {
		t.Fatal("a cancelled run sent a change")
	}
	if _, held := run.Summary(); held[path] != "not sent" {
		t.Fatalf("held = %v", held)
	}
}
