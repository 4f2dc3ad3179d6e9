package agent

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/agentls/agentls/agent/llm/llmtest"
)

func TestCheckPrompt(t *testing.T) {
	if err := CheckPrompt(strings.Repeat("a", MaxPromptBytes)); err != nil {
		t.Fatalf("a prompt of exactly the limit: %v", err)
	}
	err := CheckPrompt(strings.Repeat("a", MaxPromptBytes+1))
	if !errors.Is(err, ErrPromptTooLarge) || !strings.Contains(err.Error(), "192000") {
		t.Fatalf("over the limit: %v", err)
	}
}

// Session.Prepare refuses an oversized prompt itself, so a face that
// forgot the check still sends nothing to the model.
func TestPrepareRefusesLargePrompt(t *testing.T) {
	srv := llmtest.New(t, llmtest.Sequence(llmtest.Text("should not be asked")))
	_, err := NewSession("").Prepare(context.Background(), sessionSetup(t, srv, nil), RunRequest{Prompt: strings.Repeat("x", MaxPromptBytes+1)})
	if !errors.Is(err, ErrPromptTooLarge) {
		t.Fatalf("Prepare = %v, want ErrPromptTooLarge", err)
	}
	if n := len(srv.Requests()); n != 0 {
		t.Fatalf("the model got %d requests", n)
	}
}

// A usage block the endpoint garbled does not end the run: each such call
// is counted locally and marked estimated.
func TestRunSurvivesUnreadableUsage(t *testing.T) {
	srv := llmtest.New(t, llmtest.Sequence(
		llmtest.ToolCalls(llmtest.Call{ID: "c1", Name: "list_dir", Args: `{}`}).RawUsage(`{"prompt_tokens": 12.0, "completion_tokens": 3, "total_tokens": 15}`),
		llmtest.Text("done").RawUsage(`{"prompt_tokens": NaN, "completion_tokens": "3"}`),
	))
	var events []Event
	run, err := NewSession("").Prepare(context.Background(), sessionSetup(t, srv, nil), RunRequest{Prompt: "look", OnEvent: func(e Event) { events = append(events, e) }})
	if err != nil {
		t.Fatal(err)
	}
	out := run.Execute(context.Background())
	if out.Status != StatusFinished || out.Answer != "done" {
		t.Fatalf("run: %v %v %q", out.Status, out.Err, out.Answer)
	}
	n := 0
	for _, e := range events {
		if e.Kind == EventUsage {
			n++
			if !e.Estimated || e.Usage.PromptTokens <= 0 || e.Usage.PromptTokens == 12 {
				t.Errorf("usage event %+v: want a local estimate", e)
			}
		}
	}
	if n != 2 {
		t.Fatalf("%d usage events for 2 model calls", n)
	}
}
