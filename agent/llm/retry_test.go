package llm_test

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentls/agentls/agent/llm"
	"github.com/agentls/agentls/agent/llm/llmtest"
	"github.com/agentls/agentls/internal/testwait"
)

// asError extracts the *llm.Error or fails.
func asError(t *testing.T, err error) *llm.Error {
	t.Helper()
	var e *llm.Error
	if !errors.As(err, &e) {
		t.Fatalf("want *llm.Error, got %T %v", err, err)
	}
	return e
}

func TestRetry503ThenSuccess(t *testing.T) {
	srv := llmtest.New(t, llmtest.Sequence(llmtest.Error(503, "The engine is currently overloaded"), llmtest.Text("ok")))
	var rec recorder
	resp, err := newClient(t, srv).Stream(context.Background(), userReq("hi"), rec.on)
	if err != nil {
		t.Fatal(err)
	}
	if resp.Text != "ok" || len(srv.Requests()) != 2 {
		t.Fatalf("text=%q requests=%d", resp.Text, len(srv.Requests()))
	}
	retries := rec.kinds(llm.DeltaRetry)
	if len(retries) != 1 || retries[0].Attempt != 2 || !llm.IsKind(retries[0].Err, llm.Server) ||
		!strings.Contains(retries[0].Text, "HTTP 503") || !strings.Contains(retries[0].Text, "overloaded") {
		t.Fatalf("retry deltas = %+v", retries)
	}
}

// fakeSleep is an llm.Config.Sleep that records each wait and spends
// none of it (the clock of the retry loop, injected).
type fakeSleep struct {
	mu    sync.Mutex
	waits []time.Duration
}

func (f *fakeSleep) sleep(ctx context.Context, d time.Duration) error {
	f.mu.Lock()
	f.waits = append(f.waits, d)
	f.mu.Unlock()
	return ctx.Err()
}

func (f *fakeSleep) recorded() []time.Duration {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.waits)
}

func TestRetryAfterHonoured(t *testing.T) {
	srv := llmtest.New(t, llmtest.Sequence(
		llmtest.Error(429, "Rate limit reached for requests").RetryAfter("7"),
		llmtest.Text("ok")))
	var rec recorder
	var clock fakeSleep
	if _, err := newClient(t, srv, func(c *llm.Config) { c.Sleep = clock.sleep }).Stream(context.Background(), userReq("hi"), rec.on); err != nil {
		t.Fatal(err)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("requests = %d", len(reqs))
	}
	// The retry waited exactly what Retry-After asked, not the backoff.
	if got := clock.recorded(); !slices.Equal(got, []time.Duration{7 * time.Second}) {
		t.Fatalf("waits before retrying = %v; Retry-After said 7s", got)
	}
	if r := rec.kinds(llm.DeltaRetry); len(r) != 1 || r[0].Wait != 7*time.Second || !llm.IsKind(r[0].Err, llm.RateLimited) {
		t.Fatalf("retry delta = %+v", r)
	}
}

func TestRetryAfterTooLong(t *testing.T) {
	srv := llmtest.New(t, llmtest.Always(llmtest.Error(429, "slow down").RetryAfter("3600")))
	_, err := newClient(t, srv).Stream(context.Background(), userReq("hi"), nil)
	e := asError(t, err)
	if e.Kind != llm.RateLimited || e.Status != 429 || len(srv.Requests()) != 1 || !strings.Contains(e.Message, "1h0m0s") {
		t.Fatalf("err = %+v, requests = %d", e, len(srv.Requests()))
	}
}

func TestQuotaNotRetried(t *testing.T) {
	srv := llmtest.New(t, llmtest.Always(llmtest.Error(429, "You exceeded your current quota").ErrorType("insufficient_quota", "insufficient_quota")))
	_, err := newClient(t, srv).Stream(context.Background(), userReq("hi"), nil)
	e := asError(t, err)
	if e.Kind != llm.RateLimited || len(srv.Requests()) != 1 || !strings.Contains(e.Message, "quota") {
		t.Fatalf("err = %+v, requests = %d", e, len(srv.Requests()))
	}
}

func TestAttemptsBounded(t *testing.T) {
	srv := llmtest.New(t, llmtest.Always(llmtest.Error(500, "boom")))
	var rec recorder
	_, err := newClient(t, srv, func(c *llm.Config) { c.MaxAttempts = 3 }).Stream(context.Background(), userReq("hi"), rec.on)
	e := asError(t, err)
	if e.Kind != llm.Server || e.Status != 500 || !e.Retryable() {
		t.Fatalf("err = %+v", e)
	}
	if n := len(srv.Requests()); n != 3 {
		t.Fatalf("requests = %d, want 3", n)
	}
	if !strings.Contains(e.Message, "gave up after 3 attempts") || !strings.Contains(e.Message, "boom") {
		t.Fatalf("message = %q", e.Message)
	}
	if r := rec.kinds(llm.DeltaRetry); len(r) != 2 || r[0].Attempt != 2 || r[1].Attempt != 3 {
		t.Fatalf("retry deltas = %+v", r)
	}
}

func TestNotRetried(t *testing.T) {
	cases := []struct {
		name    string
		reply   llmtest.Reply
		kind    llm.ErrorKind
		status  int
		mention []string
	}{
		{"401", llmtest.Error(401, "Incorrect API key provided: sk-tes*****key"), llm.Auth, 401,
			[]string{"API key", "Incorrect API key provided", "OPENAI_API_KEY"}},
		{"403", llmtest.Error(403, "You do not have access to this model"), llm.Auth, 403,
			[]string{"permission", "test-model", "do not have access"}},
		{"404", llmtest.Error(404, "The model `test-model` does not exist"), llm.NotFound, 404,
			[]string{"test-model", "model.name", "model.baseURL", "does not exist"}},
		{"400", llmtest.Error(400, "This model's maximum context length is 8192 tokens"), llm.BadRequest, 400,
			[]string{"rejected the request", "maximum context length"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := llmtest.New(t, llmtest.Always(tc.reply))
			var rec recorder
			_, err := newClient(t, srv).Stream(context.Background(), userReq("hi"), rec.on)
			e := asError(t, err)
			if e.Kind != tc.kind || e.Status != tc.status || e.Retryable() {
				t.Fatalf("err = %+v", e)
			}
			if n := len(srv.Requests()); n != 1 {
				t.Fatalf("requests = %d, want 1 (no retry)", n)
			}
			if len(rec.kinds(llm.DeltaRetry)) != 0 {
				t.Fatal("no DeltaRetry expected")
			}
			for _, m := range tc.mention {
				if !strings.Contains(e.Error(), m) {
					t.Errorf("message %q should mention %q", e.Error(), m)
				}
			}
			if strings.Contains(e.Error(), "sk-test-key") {
				t.Fatal("the API key leaked into the error")
			}
		})
	}
}

func TestWrongKeyAgainstServer(t *testing.T) {
	srv := llmtest.New(t, llmtest.Always(llmtest.Text("never")), llmtest.WithAPIKey("sk-right"))
	_, err := newClient(t, srv).Stream(context.Background(), userReq("hi"), nil)
	if e := asError(t, err); e.Kind != llm.Auth || len(srv.Requests()) != 1 {
		t.Fatalf("err = %+v requests=%d", e, len(srv.Requests()))
	}
	_, err = newClient(t, srv, func(c *llm.Config) { c.APIKey = "" }).Stream(context.Background(), userReq("hi"), nil)
	if e := asError(t, err); e.Kind != llm.Auth || !strings.Contains(e.Message, "none is set") {
		t.Fatalf("missing key: err = %+v", e)
	}
}

func TestBaseURLWithoutV1(t *testing.T) {
	srv := llmtest.New(t, llmtest.Always(llmtest.Text("never")))
	base := strings.TrimSuffix(srv.URL(), "/v1")
	_, err := newClient(t, srv, func(c *llm.Config) { c.BaseURL = base }).Stream(context.Background(), userReq("hi"), nil)
	e := asError(t, err)
	if e.Kind != llm.NotFound || !strings.Contains(e.Message, "/v1") || !strings.Contains(e.Message, base) {
		t.Fatalf("err = %+v", e)
	}
}

func TestNonJSON502(t *testing.T) {
	page := "<html><head><title>502 Bad Gateway</title></head><body><center><h1>502 Bad Gateway</h1></center></body></html>"
	srv := llmtest.New(t, llmtest.Sequence(llmtest.RawError(502, page), llmtest.Text("ok")))
	resp, err := newClient(t, srv).Stream(context.Background(), userReq("hi"), nil)
	if err != nil || resp.Text != "ok" {
		t.Fatalf("resp=%+v err=%v", resp, err)
	}
	srv2 := llmtest.New(t, llmtest.Always(llmtest.RawError(502, page)))
	_, err = newClient(t, srv2, func(c *llm.Config) { c.MaxAttempts = 2 }).Stream(context.Background(), userReq("hi"), nil)
	e := asError(t, err)
	if e.Kind != llm.Server || e.Status != 502 || !strings.Contains(e.Message, "502 Bad Gateway") || strings.Contains(e.Message, "<h1>") {
		t.Fatalf("err = %+v", e)
	}
}

func TestConnectionDroppedBeforeResponse(t *testing.T) {
	srv := llmtest.New(t, llmtest.Sequence(llmtest.Disconnect(), llmtest.Text("ok")))
	var rec recorder
	resp, err := newClient(t, srv).Stream(context.Background(), userReq("hi"), rec.on)
	if err != nil || resp.Text != "ok" {
		t.Fatalf("resp=%+v err=%v", resp, err)
	}
	if r := rec.kinds(llm.DeltaRetry); len(r) != 1 || !llm.IsKind(r[0].Err, llm.Network) {
		t.Fatalf("retry deltas = %+v", r)
	}
}

func TestConnectionRefused(t *testing.T) {
	srv := llmtest.New(t, llmtest.Always(llmtest.Text("never")))
	url := srv.URL()
	srv.Close()
	c, err := llm.New(llm.Config{BaseURL: url, Model: "m", MaxAttempts: 2, BackoffBase: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Stream(context.Background(), userReq("hi"), nil)
	e := asError(t, err)
	if e.Kind != llm.Network || !strings.Contains(e.Message, "cannot reach the model server at "+url) {
		t.Fatalf("err = %+v", e)
	}
}

func TestTruncatedStream(t *testing.T) {
	t.Run("nothing streamed: retried", func(t *testing.T) {
		srv := llmtest.New(t, llmtest.Sequence(llmtest.Text("lost").CutAfter(1), llmtest.Text("ok")))
		var rec recorder
		resp, err := newClient(t, srv).Stream(context.Background(), userReq("hi"), rec.on)
		if err != nil || resp.Text != "ok" {
			t.Fatalf("resp=%+v err=%v", resp, err)
		}
		if r := rec.kinds(llm.DeltaRetry); len(r) != 1 || !llm.IsKind(r[0].Err, llm.Truncated) {
			t.Fatalf("retry deltas = %+v", r)
		}
	})
	t.Run("text streamed: error", func(t *testing.T) {
		srv := llmtest.New(t, llmtest.Sequence(llmtest.Text("partial answer here").Cut(), llmtest.Text("never")))
		var rec recorder
		_, err := newClient(t, srv).Stream(context.Background(), userReq("hi"), rec.on)
		e := asError(t, err)
		if e.Kind != llm.Truncated || len(srv.Requests()) != 1 || !strings.Contains(e.Message, "no finish_reason") {
			t.Fatalf("err = %+v requests=%d", e, len(srv.Requests()))
		}
		if len(rec.kinds(llm.DeltaText)) == 0 {
			t.Fatal("text should have streamed before the cut")
		}
	})
	t.Run("tool call streamed: error", func(t *testing.T) {
		srv := llmtest.New(t, llmtest.Sequence(llmtest.ToolCalls(callA).CutAfter(3)))
		_, err := newClient(t, srv).Stream(context.Background(), userReq("hi"), nil)
		if e := asError(t, err); e.Kind != llm.Truncated {
			t.Fatalf("err = %+v", e)
		}
	})
	t.Run("connection reset mid-stream", func(t *testing.T) {
		srv := llmtest.New(t, llmtest.Sequence(llmtest.Text("partial answer here").AbortAfter(2), llmtest.Text("never")))
		_, err := newClient(t, srv).Stream(context.Background(), userReq("hi"), nil)
		e := asError(t, err)
		if e.Kind != llm.Network || len(srv.Requests()) != 1 || !strings.Contains(e.Message, "broke") {
			t.Fatalf("err = %+v requests=%d", e, len(srv.Requests()))
		}
	})
	t.Run("always truncated: bounded", func(t *testing.T) {
		srv := llmtest.New(t, llmtest.Always(llmtest.Text("x").CutAfter(0)))
		_, err := newClient(t, srv, func(c *llm.Config) { c.MaxAttempts = 2 }).Stream(context.Background(), userReq("hi"), nil)
		e := asError(t, err)
		if e.Kind != llm.Truncated || len(srv.Requests()) != 2 || !strings.Contains(e.Message, "gave up after 2 attempts") {
			t.Fatalf("err = %+v requests=%d", e, len(srv.Requests()))
		}
	})
}

func TestMidStreamError(t *testing.T) {
	t.Run("before output: retried", func(t *testing.T) {
		srv := llmtest.New(t, llmtest.Sequence(llmtest.Text("x").ErrorAfter(1, "Internal error while generating"), llmtest.Text("ok")))
		resp, err := newClient(t, srv).Stream(context.Background(), userReq("hi"), nil)
		if err != nil || resp.Text != "ok" {
			t.Fatalf("resp=%+v err=%v", resp, err)
		}
	})
	t.Run("after output: error", func(t *testing.T) {
		srv := llmtest.New(t, llmtest.Sequence(llmtest.Text("some text then").ErrorAfter(3, "Internal error while generating")))
		_, err := newClient(t, srv).Stream(context.Background(), userReq("hi"), nil)
		e := asError(t, err)
		if e.Kind != llm.Server || !strings.Contains(e.Message, "Internal error while generating") {
			t.Fatalf("err = %+v", e)
		}
	})
}

func TestAttemptTimeout(t *testing.T) {
	h := llmtest.NewHang()
	srv := llmtest.New(t, llmtest.Sequence(llmtest.Text("x").HangAfter(1, h), llmtest.Text("ok")))
	var rec recorder
	c := newClient(t, srv, func(c *llm.Config) { c.RequestTimeout = 200 * time.Millisecond })
	resp, err := c.Stream(context.Background(), userReq("hi"), rec.on)
	if err != nil || resp.Text != "ok" {
		t.Fatalf("resp=%+v err=%v", resp, err)
	}
	testwait.Recv(t, h.Disconnected(), "the timed-out attempt's connection was closed")
	r := rec.kinds(llm.DeltaRetry)
	if len(r) != 1 || !llm.IsKind(r[0].Err, llm.Network) || !strings.Contains(r[0].Text, "did not finish answering within 200ms") {
		t.Fatalf("retry deltas = %+v", r)
	}
}

func TestBadToolSchemaNotSent(t *testing.T) {
	srv := llmtest.New(t, llmtest.Always(llmtest.Text("never")))
	bad := llm.ToolDef{Name: "x", Parameters: []byte(`[1,2]`)}
	_, err := newClient(t, srv).Stream(context.Background(), userReq("hi", bad), nil)
	if e := asError(t, err); e.Kind != llm.BadRequest || len(srv.Requests()) != 0 {
		t.Fatalf("err = %+v requests=%d", e, len(srv.Requests()))
	}
	_, err = newClient(t, srv).Stream(context.Background(), llm.Request{}, nil)
	if e := asError(t, err); e.Kind != llm.BadRequest {
		t.Fatalf("empty request: err = %+v", e)
	}
}

func TestRetryAfterHTTPDateHeaderReachesClient(t *testing.T) {
	// An HTTP-date Retry-After in the past means "retry now".
	past := time.Now().Add(-time.Hour).UTC().Format(http.TimeFormat)
	srv := llmtest.New(t, llmtest.Sequence(llmtest.Error(503, "busy").RetryAfter(past), llmtest.Text("ok")))
	var rec recorder
	if _, err := newClient(t, srv).Stream(context.Background(), userReq("hi"), rec.on); err != nil {
		t.Fatal(err)
	}
	if r := rec.kinds(llm.DeltaRetry); len(r) != 1 || r[0].Wait != 0 {
		t.Fatalf("retry deltas = %+v", r)
	}
}

func TestAPIKeyNeverLogged(t *testing.T) {
	const key = "sk-very-secret-0123456789"
	srv := llmtest.New(t, llmtest.Sequence(
		llmtest.Error(503, "upstream said: bad key "+key),
		llmtest.Error(401, "Incorrect API key provided: "+key)))
	var logs strings.Builder
	logger := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	var rec recorder
	_, err := newClient(t, srv, func(c *llm.Config) { c.APIKey = key; c.Logger = logger }).
		Stream(context.Background(), userReq("hi"), rec.on)
	if err == nil || strings.Contains(err.Error(), key) || !strings.Contains(err.Error(), "[REDACTED]") {
		t.Fatalf("err = %v", err)
	}
	if logs.Len() == 0 || strings.Contains(logs.String(), key) {
		t.Fatalf("logs leak the key or are empty:\n%s", logs.String())
	}
	for _, d := range rec.deltas {
		if strings.Contains(d.Text, key) {
			t.Fatalf("delta leaks the key: %q", d.Text)
		}
	}
}

func TestServerIgnoringStream(t *testing.T) {
	srv := llmtest.New(t, llmtest.Always(llmtest.Text("whole answer").NotStreaming()))
	_, err := newClient(t, srv).Stream(context.Background(), userReq("hi"), nil)
	e := asError(t, err)
	if e.Kind != llm.Server || len(srv.Requests()) != 1 || !strings.Contains(e.Message, "without streaming") {
		t.Fatalf("err = %+v requests=%d", e, len(srv.Requests()))
	}
}

func TestStreamedErrorWithStatusCode(t *testing.T) {
	srv := llmtest.New(t, llmtest.Always(llmtest.Text("x").ErrorAfter(0, "No auth credentials found").StreamErrorCode(401)))
	_, err := newClient(t, srv).Stream(context.Background(), userReq("hi"), nil)
	e := asError(t, err)
	if e.Kind != llm.Auth || e.Status != 401 || len(srv.Requests()) != 1 || !strings.Contains(e.Message, "No auth credentials found") {
		t.Fatalf("err = %+v requests=%d", e, len(srv.Requests()))
	}
}
