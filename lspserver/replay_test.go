package lspserver_test

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agentls/agentls/agent/llm/llmtest"
	"github.com/agentls/agentls/lspserver"
	"github.com/agentls/agentls/lspserver/lsptest"
)

const replaySource = "def greet(name):\n    return \"Hello, \" + nme + \"!\"\n"

// replayScript reads greet.py, fixes it and answers.
func replayScript() llmtest.Script {
	return llmtest.Sequence(
		llmtest.ToolCalls(llmtest.Call{ID: "c1", Name: "read_file", Args: `{"path":"greet.py"}`}).WithText("Reading."),
		llmtest.ToolCalls(llmtest.Call{ID: "c2", Name: "edit_file", Args: `{"path":"greet.py","old_string":"nme","new_string":"name"}`}),
		llmtest.Text("Fixed the typo."),
	)
}

// proposedText returns the run's pending proposal text ("" when none).
func proposedText(t *testing.T, rs *runSession, runID string) string {
	t.Helper()
	var props lspserver.ProposalsResult
	if err := rs.c.Call(lsptest.Context(t), lspserver.MethodProposals, &lspserver.ProposalsParams{}, &props); err != nil {
		t.Fatal(err)
	}
	for _, p := range props.Proposals {
		if p.RunID == runID {
			return p.ProposedText
		}
	}
	return ""
}

// TestReplayThroughServer: a run recorded with model.record replays with
// only model.replay configured (no endpoint, no key, no environment; the
// cassette named relative to the workspace folder), with the same events
// and proposal. Replayed in a workspace whose text differs, it fails with
// an error naming the turn and proposes nothing.
func TestReplayThroughServer(t *testing.T) {
	t.Parallel()
	const prompt = "Fix greet.py"
	const fixed = "def greet(name):\n    return \"Hello, \" + name + \"!\"\n"
	cassette := filepath.Join(t.TempDir(), "run.cassette.json")

	model := llmtest.New(t, replayScript())
	rec := newRunSession(t, nil, runOpts{noModel: true, settings: map[string]any{
		"model": map[string]any{"baseURL": model.URL(), "name": "test-model", "record": cassette},
	}})
	rec.write(t, "greet.py", replaySource)
	recID := rec.start(t, lspserver.RunArgs{Prompt: prompt})
	recEvents := rec.events(t, recID)
	if got := kinds(recEvents); got[len(got)-1] != "finished" {
		t.Fatalf("recording run: %v", got)
	}
	if got := proposedText(t, rec, recID); got != fixed {
		t.Fatalf("recording run proposed %q", got)
	}
	data, err := os.ReadFile(cassette)
	if err != nil {
		t.Fatal(err)
	}

	replay := func(t *testing.T, source string) (*runSession, string, []lspserver.RunEvent) {
		rs := newRunSession(t, nil, runOpts{noModel: true, settings: map[string]any{
			"model": map[string]any{"replay": "recorded/run.cassette.json"},
		}})
		rs.write(t, "recorded/run.cassette.json", string(data))
		rs.write(t, "greet.py", source)
		id := rs.start(t, lspserver.RunArgs{Prompt: prompt})
		return rs, id, rs.events(t, id)
	}

	t.Run("same workspace", func(t *testing.T) {
		rs, id, evs := replay(t, replaySource)
		if got, want := kinds(evs), kinds(recEvents); strings.Join(got, " ") != strings.Join(want, " ") {
			t.Fatalf("replayed events %v, recorded %v", got, want)
		}
		if fin := evs[len(evs)-1]; fin.Text == nil || *fin.Text != "Fixed the typo." {
			t.Fatalf("finished = %+v", fin)
		}
		if got := proposedText(t, rs, id); got != fixed {
			t.Fatalf("replayed run proposed %q, want %q", got, fixed)
		}
	})
	t.Run("workspace text differs", func(t *testing.T) {
		rs, id, evs := replay(t, "# edited by the user\n"+replaySource)
		last := evs[len(evs)-1]
		if last.Kind != "failed" || !strings.Contains(last.Error, "turn 2") || !strings.Contains(last.Error, "differs from the recording") {
			t.Fatalf("last event %+v, want failed naming turn 2", last)
		}
		if got := proposedText(t, rs, id); got != "" {
			t.Fatalf("a diverged replay proposed %q", got)
		}
	})
}

// N10: model.replay naming a FIFO (or anything but a regular file) is
// refused at once: agentls.run answers with an error naming it instead of
// never answering.
func TestReplayFIFOAnswersAtOnce(t *testing.T) {
	t.Parallel()
	fifo := filepath.Join(t.TempDir(), "cassette.fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { // release a reader stuck in open (the bug this test guards against)
		if f, err := os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			f.Close()
		}
	})
	rs := newRunSession(t, nil, runOpts{noModel: true, settings: map[string]any{"model": map[string]any{"replay": fifo}}})
	type answer struct {
		id  string
		err error
	}
	done := make(chan answer, 1)
	go func() {
		id, err := rs.tryStart(lspserver.RunArgs{Prompt: "Fix greet.py"})
		done <- answer{id, err}
	}()
	select {
	case a := <-done:
		if a.err == nil {
			evs := rs.events(t, a.id)
			fin := evs[len(evs)-1]
			if fin.Kind != "failed" || !strings.Contains(fin.Error, "named pipe (FIFO)") {
				t.Fatalf("run %s ended %+v", a.id, fin)
			}
			return
		}
		if !strings.Contains(a.err.Error(), "named pipe (FIFO)") {
			t.Fatalf("agentls.run error %v", a.err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("agentls.run never answered")
	}
}
