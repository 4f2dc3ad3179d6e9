package acpserver_test

import (
	"testing"
	"time"

	acp "github.com/coder/acp-go-sdk"

	"github.com/agentls/agentls/acpserver/acptest"
	"github.com/agentls/agentls/agent/llm/llmtest"
	"github.com/agentls/agentls/internal/testwait"
)

// BenchmarkPromptText is one prompt answered with text: ACP framing, the
// session's configuration load, the run and its save, over in-process
// pipes with the model on loopback HTTP.
func BenchmarkPromptText(b *testing.B) {
	h := acptest.Start(b, llmtest.Always(llmtest.Text("short answer")), acptest.Options{})
	id := h.NewSession()
	b.ResetTimer()
	for b.Loop() {
		if r := h.MustPrompt(id, "hi"); r != acp.StopReasonEndTurn {
			b.Fatal(r)
		}
	}
}

// BenchmarkEditAllowWrite is a prompt whose run reads a file, edits it,
// asks for permission (allowed at once) and writes the change to disk.
func BenchmarkEditAllowWrite(b *testing.B) {
	h := acptest.Start(b, editScript("done"), acptest.Options{})
	b.ResetTimer()
	for b.Loop() {
		b.StopTimer()
		h.Write("a.txt", "hello\n")
		id := h.NewSession() // the script edits in a session's first prompt
		b.StartTimer()
		h.MustPrompt(id, "greet")
		if h.Read("a.txt") != "hello, world\n" {
			b.Fatal("not written")
		}
	}
}

// BenchmarkCancel is the time from session/cancel to the prompt's
// "cancelled" answer while the model is streaming (the contract is under
// one second).
func BenchmarkCancel(b *testing.B) {
	var hang *llmtest.Hang
	h := acptest.Start(b, func(*llmtest.ChatRequest) llmtest.Reply {
		return llmtest.Text("one two three four").HangAfter(1, hang)
	}, acptest.Options{})
	id := h.NewSession()
	var worst time.Duration
	b.ResetTimer()
	for b.Loop() {
		b.StopTimer()
		hang = llmtest.NewHang()
		got := make(chan acp.StopReason, 1)
		go func() {
			r, _ := h.Prompt(id, "talk")
			got <- r
		}()
		testwait.Recv(b, hang.Started(), "the stream to hang")
		b.StartTimer()
		t0 := time.Now()
		if err := h.Conn.Cancel(h.Ctx(), acp.CancelNotification{SessionId: id}); err != nil {
			b.Fatal(err)
		}
		if r := testwait.Recv(b, got, "the cancelled answer"); r != acp.StopReasonCancelled {
			b.Fatal(r)
		}
		worst = max(worst, time.Since(t0))
	}
	b.ReportMetric(float64(worst.Microseconds())/1000, "worst-ms")
}
