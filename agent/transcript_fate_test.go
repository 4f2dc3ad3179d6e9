package agent

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentls/agentls/agent/config"
	"github.com/agentls/agentls/agent/llm"
	"github.com/agentls/agentls/internal/workspace"
)

// executeIn runs one trivial run of s with its transcript in tdir and
// returns the run.
func executeIn(t testing.TB, s *Session, tdir string) *SessionRun {
	t.Helper()
	m := script(func(d func(llm.Delta)) llm.Response { return reply(d, "ok") })
	run, err := s.Prepare(context.Background(), Setup{Config: config.Defaults(), View: workspace.New(workspace.Options{Folders: []string{t.TempDir()}}),
		TranscriptDir: tdir, Model: m}, RunRequest{Prompt: "x"})
	if err != nil {
		t.Fatal(err)
	}
	if out := run.Execute(context.Background()); out.Status != StatusFinished {
		t.Fatalf("outcome %+v", out)
	}
	return run
}

func fateCount(t *testing.T, path string) int {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return strings.Count(string(b), `"kind":"fate"`)
}

// TestSessionRecordsFatesInTheRunsTranscript: a decision on a run
// executed by the session goes into the file that run wrote, without a
// look in the directory (a decoy that a lookup would prefer stays
// untouched); a session restored after a restart looks the file up once
// and remembers it; a run without a transcript gets none.
func TestSessionRecordsFatesInTheRunsTranscript(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	tdir := t.TempDir()
	s := NewSession("")
	run := executeIn(t, s, tdir)
	real := run.TranscriptPath()
	if filepath.Dir(real) != tdir {
		t.Fatalf("transcript at %s", real)
	}
	// FindTranscript takes the newest name: this decoy is what a lookup
	// would find.
	decoy := filepath.Join(tdir, "9999-12-30-"+run.ID()+".jsonl")
	if err := os.WriteFile(decoy, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if found, _ := FindTranscript(tdir, run.ID()); found != decoy {
		t.Fatalf("FindTranscript = %s", found)
	}
	s.Decide(Decision{RunID: run.ID(), Path: "a.go", Accepted: true, Hunks: 2})
	s.Decide(Decision{RunID: run.ID(), Path: "b.go", Reason: "no", Hunks: 1})
	if n := fateCount(t, real); n != 2 {
		t.Fatalf("%d fates in the run's transcript, want 2", n)
	}
	if n := fateCount(t, decoy); n != 0 {
		t.Fatalf("a decision listed the directory: %d fates in the decoy", n)
	}
	b, _ := os.ReadFile(real)
	if !strings.Contains(string(b), `"fate":"accepted","hunks":2,"kind":"fate","path":"a.go"`) || !strings.Contains(string(b), `"fate":"rejected","hunks":1,"kind":"fate","path":"b.go","reason":"no"`) {
		t.Fatalf("fate records:\n%s", b)
	}

	// After a restart the session knows no file: the first fate looks it
	// up (the newest name, as before), the next ones use what it found.
	restarted := NewSession(s.ID())
	if err := restarted.RecordFate(tdir, Fate{RunID: run.ID(), Path: "a.go", Fate: FateReverted, Hunks: 2}); err != nil {
		t.Fatal(err)
	}
	later := filepath.Join(tdir, "9999-12-31-"+run.ID()+".jsonl")
	if err := os.WriteFile(later, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := restarted.RecordFate(tdir, Fate{RunID: run.ID(), Path: "b.go", Fate: FateReverted, Hunks: 1}); err != nil {
		t.Fatal(err)
	}
	if fateCount(t, decoy) != 2 || fateCount(t, later) != 0 {
		t.Fatalf("after a restart: decoy %d, later %d", fateCount(t, decoy), fateCount(t, later))
	}

	// A remembered file that went away is looked up again.
	if err := os.Remove(real); err != nil {
		t.Fatal(err)
	}
	if err := s.RecordFate(tdir, Fate{RunID: run.ID(), Path: "c.go", Fate: FateAccepted, Hunks: 1}); err != nil {
		t.Fatal(err)
	}
	if fateCount(t, later) != 1 {
		t.Fatal("a removed transcript was not looked up again")
	}

	// A run without a transcript: nothing is written, no file is made.
	none := NewSession("")
	quiet := executeIn(t, none, NoTranscript)
	err := none.RecordFate(tdir, Fate{RunID: quiet.ID(), Path: "a.go", Fate: FateAccepted})
	if !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("fate of a run without a transcript: %v", err)
	}
	none.Decide(Decision{RunID: quiet.ID(), Path: "a.go", Accepted: true})
	if m, _ := filepath.Glob(filepath.Join(tdir, "*-"+quiet.ID()+".jsonl")); len(m) != 0 {
		t.Fatalf("transcripts made for a run without one: %v", m)
	}
}

// BenchmarkRecordFate is the cost of recording one review decision in
// its run's transcript, in a transcript directory holding 2,000 runs'
// transcripts: looked up (RecordFate, what every decision did before the
// session remembered the file) and remembered (Session.RecordFate).
//
//	go test ./agent -run '^$' -bench RecordFate -benchmem
func BenchmarkRecordFate(b *testing.B) {
	b.Setenv("XDG_CONFIG_HOME", b.TempDir())
	tdir := b.TempDir()
	for i := range 2000 {
		name := fmt.Sprintf("2026-%02d-%02d-%012x.jsonl", 1+i%12, 1+i%28, 0xa00000000000+i)
		if err := os.WriteFile(filepath.Join(tdir, name), []byte(`{"kind":"start"}`+"\n"), 0o600); err != nil {
			b.Fatal(err)
		}
	}
	s := NewSession("")
	run := executeIn(b, s, tdir)
	f := Fate{RunID: run.ID(), Path: "a.go", Fate: FateAccepted, Hunks: 1}
	b.Run("lookup", func(b *testing.B) {
		for b.Loop() {
			if err := RecordFate(tdir, f); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("remembered", func(b *testing.B) {
		for b.Loop() {
			if err := s.RecordFate(tdir, f); err != nil {
				b.Fatal(err)
			}
		}
	})
}
