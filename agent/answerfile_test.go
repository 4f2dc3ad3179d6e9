package agent

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A plan, or an answer of more than one line, is written whole with its
// run and session named; a one-line answer, an unfinished run or no state
// directory writes nothing.
func TestAnswerFileWrite(t *testing.T) {
	dir := t.TempDir()
	finished := func(answer string) Outcome { return Outcome{Status: StatusFinished, Answer: answer} }
	plan := AnswerFile{RunID: "r1", Title: "fix\nthe parser", Plan: true, Approve: "Approve it here."}
	path, err := plan.Write(dir, finished("1. change a\n"))
	if err != nil || path != filepath.Join(dir, "answers", "r1.md") {
		t.Fatalf("Write = %q, %v", path, err)
	}
	b, _ := os.ReadFile(path)
	want := "# Plan of agent run r1\n\n> fix the parser\n\n1. change a\n\n---\n\nNothing has changed yet. Approve it here.\n"
	if string(b) != want {
		t.Fatalf("plan document:\n%s\nwant:\n%s", b, want)
	}
	long, err := AnswerFile{RunID: "r2"}.Write(dir, finished("two\nlines"))
	if b, _ := os.ReadFile(long); err != nil || string(b) != "# Answer of agent run r2\n\ntwo\nlines\n" {
		t.Fatalf("answer document %q: %q, %v", long, b, err)
	}
	for name, tc := range map[string]struct {
		dir string
		out Outcome
	}{
		"one line":  {dir, finished("done")},
		"cancelled": {dir, Outcome{Status: StatusCancelled, Answer: "a\nb"}},
		"no state":  {"", finished("a\nb")},
	} {
		if p, err := (AnswerFile{RunID: "r3"}).Write(tc.dir, tc.out); p != "" || err != nil {
			t.Errorf("%s: Write = %q, %v; want nothing", name, p, err)
		}
	}
}

// Only the newest MaxAnswerFiles answers are kept, and a directory that
// cannot be written is an error.
func TestAnswerFileBounds(t *testing.T) {
	dir := t.TempDir()
	for i := range MaxAnswerFiles + 5 {
		if _, err := (AnswerFile{RunID: fmt.Sprintf("r%02d", i)}).Write(dir, Outcome{Status: StatusFinished, Answer: "a\nb"}); err != nil {
			t.Fatal(err)
		}
	}
	if es, _ := os.ReadDir(filepath.Join(dir, "answers")); len(es) > MaxAnswerFiles {
		t.Fatalf("%d answers kept, want at most %d", len(es), MaxAnswerFiles)
	}
	blocked := filepath.Join(t.TempDir(), "file")
	os.WriteFile(blocked, nil, 0o600)
	if _, err := (AnswerFile{RunID: "r1", Plan: true}).Write(blocked, Outcome{Status: StatusFinished, Answer: "plan"}); err == nil || !strings.Contains(err.Error(), "r1") {
		t.Fatalf("Write under a file = %v, want an error naming the run", err)
	}
}
