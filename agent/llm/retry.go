package llm

import (
	"bytes"
	"context"
	"errors"
	"io"
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
//
// It also bounds what one response can make go-openai hold in memory: a
// stream line longer than maxLine (one SSE event; go-openai reads each
// whole) fails the stream with errLineTooLong, and an error body is cut at
// maxErrorBody (go-openai reads it whole to decode it).
type metaDoer struct {
	hc      *http.Client
	maxLine int
}

// maxErrorBody bounds the error response body that is read.
const maxErrorBody = 1 << 20

// errLineTooLong fails a stream whose single event is larger than any
// answer agentls accepts (Config.MaxAnswerBytes).
var errLineTooLong = errors.New("a stream event is larger than the answer limit")

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
	if err == nil {
		if resp.StatusCode >= 300 {
			resp.Body = limitedBody{Reader: io.LimitReader(resp.Body, maxErrorBody), Closer: resp.Body}
		} else {
			if d.maxLine > 0 {
				resp.Body = &lineLimitBody{rc: resp.Body, max: d.maxLine}
			}
			resp.Body = newUsageBody(resp.Body)
		}
	}
	return resp, err
}

type limitedBody struct {
	io.Reader
	io.Closer
}

// lineLimitBody fails with errLineTooLong once a line exceeds max bytes.
type lineLimitBody struct {
	rc   io.ReadCloser
	max  int
	line int // bytes since the last newline
}

func (b *lineLimitBody) Read(p []byte) (int, error) {
	n, err := b.rc.Read(p)
	rest := p[:n]
	for {
		i := bytes.IndexByte(rest, '\n')
		if i < 0 {
			b.line += len(rest)
			break
		}
		if b.line+i > b.max {
			return 0, errLineTooLong
		}
		b.line, rest = 0, rest[i+1:]
	}
	if b.line > b.max {
		return 0, errLineTooLong
	}
	return n, err
}

func (b *lineLimitBody) Close() error { return b.rc.Close() }

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
