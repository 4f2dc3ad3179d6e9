package acpserver_test

import (
	"testing"
	"time"

	acp "github.com/coder/acp-go-sdk"

	"github.com/agentls/agentls/agent/llm/llmtest"
	"github.com/agentls/agentls/internal/testwait"
)

// BenchmarkPromptText is one prompt answered with text: ACP framing, the
// session's configuration load, the run and its save, over in-process
// pipes with the model on loopback HTTP.
func BenchmarkPromptText(b *testing.B) {
	h := start(b, llmtest.Always(llmtest.Text("short answer")), harnessOpts{})
	id := h.newSession()
	b.ResetTimer()
	for b.Loop() {
		if r := h.mustPrompt(id, "hi"); r != acp.StopReasonEndTurn {
			b.Fatal(r)
		}
	}
}

// BenchmarkEditAllowWrite is a prompt whose run reads a file, edits it,
// asks for permission (allowed at once) and writes the change to disk.
func BenchmarkEditAllowWrite(b *testing.B) {
	h := start(b, editScript("done"), harnessOpts{})
	b.ResetTimer()
	for b.Loop() {
		b.StopTimer()
		h.write("a.txt", "hello\n")
		id := h.newSession() // the script edits in a session's first prompt
		b.StartTimer()
		h.mustPrompt(id, "greet")
		if h.read("a.txt") != "hello, world\n" {
			b.Fatal("not written")
		}
	}
}

// BenchmarkCancel is the time from session/cancel to the prompt's
// "cancelled" answer while the model is streaming (the contract is under
// one second).
func BenchmarkCancel(b *testing.B) {
	var hang *llmtest.Hang
	h := start(b, func(*llmtest.ChatRequest) llmtest.Reply {
		return llmtest.Text("one two three four").HangAfter(1, hang)
	}, harnessOpts{})
	id := h.newSession()
	var worst time.Duration
	b.ResetTimer()
	for b.Loop() {
		b.StopTimer()
		hang = llmtest.NewHang()
		got := make(chan acp.StopReason, 1)
		go func() {
			r, _ := h.prompt(id, "talk")
			got <- r
		}()
		testwait.Recv(b, hang.Started(), "the stream to hang")
		b.StartTimer()
		t0 := time.Now()
		if err := h.conn.Cancel(h.ctx(), acp.CancelNotification{SessionId: id}); err != nil {
			b.Fatal(err)
		}
		if r := testwait.Recv(b, got, "the cancelled answer"); r != acp.StopReasonCancelled {
			b.Fatal(r)
		}
		worst = max(worst, time.Since(t0))
	}
	b.ReportMetric(float64(worst.Microseconds())/1000, "worst-ms")
}
