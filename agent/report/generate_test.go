package report

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentls/agentls/agent"
)

// TestGenerateFindsOnce: every face asks Generate by run id, by session id
// or for a folder's newest run, in the transcript directory as the runs
// wrote it ("" the default under XDG_STATE_HOME); transcripts turned off
// or a run with none is an error that says so.
func TestGenerateFindsOnce(t *testing.T) {
	state := t.TempDir()
	t.Setenv("XDG_STATE_HOME", state)
	dir := filepath.Join(state, "agentls", "runs")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	ws := t.TempDir()
	writeTranscript(t, dir, "aaaaaaaaaaaa",
		map[string]any{"kind": "session", "time": "2026-11-25T10:00:00Z", "runId": "aaaaaaaaaaaa", "sessionId": "ssssssssssss", "folders": []string{ws}, "prompt": "RUN A PROMPT"},
		map[string]any{"kind": "finish", "time": "2026-11-25T10:00:01Z", "status": "finished", "answer": "A ANSWER", "turns": 1})

	for _, c := range []struct {
		name string
		req  Request
		file string
	}{
		{"run", Request{RunID: "aaaaaaaaaaaa"}, "2026-11-25-aaaaaaaaaaaa.html"},
		{"session", Request{SessionID: "ssssssssssss"}, "session-ssssssssssss.html"},
		{"folder's newest", Request{Folder: ws}, "2026-11-25-aaaaaaaaaaaa.html"},
	} {
		out, err := Generate(c.req)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if out != filepath.Join(dir, c.file) {
			t.Errorf("%s: page %s, want %s beside the transcript", c.name, out, c.file)
		}
		page, _ := os.ReadFile(out)
		if !strings.Contains(string(page), "RUN A PROMPT") || !strings.Contains(string(page), "A ANSWER") {
			t.Errorf("%s: the page lacks the run", c.name)
		}
	}
	if _, err := Generate(Request{Dir: agent.NoTranscript, RunID: "aaaaaaaaaaaa"}); !errors.Is(err, agent.ErrNoTranscripts) {
		t.Fatalf("Generate with transcripts off = %v, want ErrNoTranscripts", err)
	}
	if _, err := Generate(Request{RunID: "bbbbbbbbbbbb"}); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("Generate of a run with no transcript = %v, want fs.ErrNotExist", err)
	}
}
