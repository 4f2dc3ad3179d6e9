package llm

import (
	"context"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// respMeta records what go-openai hides from us about one attempt: whether
// the request went out, and the status and headers of the response.
type respMeta struct {
	sent   bool
	status int
	header http.Header
}

type metaKey struct{}

// metaDoer wraps the HTTP client so that each attempt's respMeta (found in
// the request context) is filled in; go-openai drops response headers, and
// Retry-After lives there.
type metaDoer struct{ hc *http.Client }

// Do sends req and records its outcome in the attempt's respMeta.
func (d metaDoer) Do(req *http.Request) (*http.Response, error) {
	m, _ := req.Context().Value(metaKey{}).(*respMeta)
	if m != nil {
		m.sent = true
	}
	resp, err := d.hc.Do(req)
	if err == nil && m != nil {
		m.status = resp.StatusCode
		m.header = resp.Header
	}
	return resp, err
}

// retryAfter reads how long the server asked us to wait: OpenAI's
// retry-after-ms, else Retry-After in seconds or as an HTTP date.
func retryAfter(h http.Header, now time.Time) (time.Duration, bool) {
	if h == nil {
		return 0, false
	}
	if v := strings.TrimSpace(h.Get("Retry-After-Ms")); v != "" {
		if ms, err := strconv.ParseFloat(v, 64); err == nil && ms >= 0 {
			return time.Duration(ms * float64(time.Millisecond)), true
		}
	}
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0, false
	}
	if secs, err := strconv.ParseFloat(v, 64); err == nil {
		if secs < 0 {
			return 0, false
		}
		return time.Duration(secs * float64(time.Second)), true
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(t.Sub(now), 0), true
	}
	return 0, false
}

// backoff is the wait before attempt n+1 after attempt n failed:
// "full jitter", a uniform draw in [0, min(max, base·2^(n-1))].
func backoff(n int, base, maxWait time.Duration) time.Duration {
	ceil := base
	for i := 1; i < n && ceil < maxWait; i++ {
		ceil *= 2
	}
	ceil = min(ceil, maxWait)
	if ceil <= 0 {
		return 0
	}
	return time.Duration(rand.Int64N(int64(ceil) + 1))
}

// sleep waits d or until ctx ends, returning ctx's error in that case.
func sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
