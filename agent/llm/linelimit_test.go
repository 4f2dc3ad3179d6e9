package llm

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/agentls/agentls/agent/llm/llmtest"
)

// One stream event larger than any acceptable answer fails the call as
// TooLarge before go-openai holds all of it.
func TestStreamEventOverAnswerLimit(t *testing.T) {
	srv := llmtest.New(t, llmtest.Always(llmtest.Text(strings.Repeat("y", 3<<20)).ChunkSize(3<<20)))
	c, err := New(Config{BaseURL: srv.URL(), Model: "m", MaxAnswerBytes: 1 << 20, BackoffBase: 1e6})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_, err = c.Stream(context.Background(), Request{Messages: []Message{{Role: "user", Content: "hi"}}}, func(Delta) {})
	var le *Error
	if !errors.As(err, &le) || le.Kind != TooLarge || !strings.Contains(err.Error(), "model.maxAnswerBytes") {
		t.Fatalf("err = %v", err)
	}
	if !errors.Is(err, errLineTooLong) {
		t.Fatalf("stopped by %v, want the line limit", err)
	}
}

func TestLineLimitBody(t *testing.T) {
	body := &lineLimitBody{rc: io.NopCloser(strings.NewReader("abc\nabcd\nab")), max: 4}
	if b, err := io.ReadAll(body); err != nil || string(b) != "abc\nabcd\nab" {
		t.Fatalf("%q %v", b, err)
	}
	body = &lineLimitBody{rc: io.NopCloser(strings.NewReader("abc\nabcde\n")), max: 4}
	if _, err := io.ReadAll(body); !errors.Is(err, errLineTooLong) {
		t.Fatalf("err = %v", err)
	}
}
