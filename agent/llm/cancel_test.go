package llm_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/agentls/agentls/agent/llm"
	"github.com/agentls/agentls/agent/llm/llmtest"
	"github.com/agentls/agentls/internal/testwait"
)

// streamAsync runs Stream in a goroutine and returns its result channel.
func streamAsync(ctx context.Context, c *llm.Client, req llm.Request, on func(llm.Delta)) <-chan error {
	done := make(chan error, 1)
	go func() {
		_, err := c.Stream(ctx, req, on)
		done <- err
	}()
	return done
}

func checkCanceled(t *testing.T, err error) {
	t.Helper()
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("want errors.Is(err, context.Canceled), got %v", err)
	}
	if e := asError(t, err); e.Kind != llm.Canceled {
		t.Fatalf("kind = %v", e.Kind)
	}
}

func TestCancelMidStream(t *testing.T) {
	defer testwait.NoLeaks(t, goleak.IgnoreCurrent())
	h := llmtest.NewHang()
	srv := llmtest.New(t, llmtest.Sequence(llmtest.Text("partial answer").HangAfter(3, h)))
	c := newClient(t, srv)
	defer c.Close()
	defer srv.Close()

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var rec recorder
	done := streamAsync(ctx, c, userReq("hi"), rec.on)
	testwait.Recv(t, h.Started(), "the model request to start")
	cancel()
	testwait.Recv(t, h.Disconnected(), "the server saw the HTTP connection close")
	checkCanceled(t, <-done)
	if len(srv.Requests()) != 1 {
		t.Fatalf("a cancelled request must not be retried: %d requests", len(srv.Requests()))
	}
}

func TestCancelBeforeFirstByte(t *testing.T) {
	defer testwait.NoLeaks(t, goleak.IgnoreCurrent())
	h := llmtest.NewHang()
	srv := llmtest.New(t, llmtest.Sequence(llmtest.Text("x").HangAfter(0, h)))
	c := newClient(t, srv)
	defer c.Close()
	defer srv.Close()

	ctx, cancel := context.WithCancel(context.Background())
	done := streamAsync(ctx, c, userReq("hi"), nil)
	testwait.Recv(t, h.Started(), "the model request to start")
	cancel()
	testwait.Recv(t, h.Disconnected(), "the model server to see the connection close")
	checkCanceled(t, <-done)
}

func TestCancelDuringBackoff(t *testing.T) {
	defer testwait.NoLeaks(t, goleak.IgnoreCurrent())
	srv := llmtest.New(t, llmtest.Always(llmtest.Error(503, "busy").RetryAfter("30")))
	c := newClient(t, srv)
	defer c.Close()
	defer srv.Close()

	ctx, cancel := context.WithCancel(context.Background())
	retrying := make(chan struct{})
	var once sync.Once
	done := streamAsync(ctx, c, userReq("hi"), func(d llm.Delta) {
		if d.Kind == llm.DeltaRetry {
			once.Do(func() { close(retrying) })
		}
	})
	testwait.Recv(t, retrying, "retrying")
	cancel()
	checkCanceled(t, <-done)
	if len(srv.Requests()) != 1 {
		t.Fatalf("requests = %d", len(srv.Requests()))
	}
}

func TestDeadlineIsCanceledKind(t *testing.T) {
	h := llmtest.NewHang()
	srv := llmtest.New(t, llmtest.Sequence(llmtest.Text("x").HangAfter(1, h)))
	c := newClient(t, srv)
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	_, err := c.Stream(ctx, userReq("hi"), nil)
	if !errors.Is(err, context.DeadlineExceeded) || !llm.IsKind(err, llm.Canceled) {
		t.Fatalf("err = %v", err)
	}
}

func TestConcurrentStreams(t *testing.T) {
	srv := llmtest.New(t, func(req *llmtest.ChatRequest) llmtest.Reply {
		return llmtest.Text("echo: " + req.LastUser())
	})
	c := newClient(t, srv)
	defer c.Close()
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			msg := fmt.Sprintf("request %d", i)
			resp, err := c.Stream(context.Background(), userReq(msg), nil)
			if err == nil && resp.Text != "echo: "+msg {
				err = fmt.Errorf("got %q for %q", resp.Text, msg)
			}
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
}
