package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"github.com/agentls/agentls/internal/redact"
)

// Defaults for zero Config fields.
const (
	DefaultRequestTimeout = 5 * time.Minute
	// DefaultMaxAnswerBytes bounds one answer (text and arguments): far
	// above any real answer (output token limits are tens of thousands of
	// tokens), low enough that a runaway stream cannot eat the memory.
	DefaultMaxAnswerBytes = 8 << 20
	// DefaultMaxToolArgsBytes bounds one call's arguments (a write_file of
	// a 1 MB file passes).
	DefaultMaxToolArgsBytes = 2 << 20
	DefaultMaxAttempts      = 4
	DefaultBackoffBase      = 500 * time.Millisecond
	DefaultBackoffMax       = 30 * time.Second
	DefaultMaxRetryAfter    = 60 * time.Second
)

// emptyMessagesLimit replaces go-openai's 300: OpenRouter sends an SSE
// comment (": OPENROUTER PROCESSING") every few seconds while a model
// thinks, and each counts as an "empty message". A server that only sends
// junk is still stopped by RequestTimeout.
const emptyMessagesLimit = 1 << 20

// Client streams chat completions from one OpenAI-compatible endpoint. It
// is safe for concurrent use.
type Client struct {
	cfg   Config
	api   *openai.Client
	log   *slog.Logger
	owned *http.Transport // our own transport (nil when cfg.HTTPClient was given)
}

// New checks cfg and builds a client. It fails when the base URL or model
// is missing or the URL is not http(s).
func New(cfg Config) (*Client, error) {
	if cfg.Record != "" {
		if err := checkRecordPath(cfg.Record); err != nil {
			return nil, err
		}
	}
	var replay *replayer
	if cfg.Replay != "" {
		if cfg.Record != "" {
			return nil, errors.New("llm: model.record and model.replay are both set; record against a real model, or replay a recording")
		}
		c, err := LoadCassette(cfg.Replay)
		if err != nil {
			return nil, err
		}
		replay = &replayer{path: cfg.Replay, c: c}
		if strings.TrimSpace(cfg.BaseURL) == "" {
			cfg.BaseURL = replayBaseURL
		}
		if strings.TrimSpace(cfg.Model) == "" {
			cfg.Model = replayModel
		}
	}
	base := strings.TrimRight(strings.TrimSpace(cfg.BaseURL), "/")
	if base == "" {
		return nil, errors.New("llm: the model base URL is empty; set model.baseURL (e.g. https://api.openai.com/v1 or http://localhost:11434/v1)")
	}
	u, err := url.Parse(base)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("llm: the model base URL %q is not an http(s) URL like https://api.openai.com/v1", redact.URL(cfg.BaseURL))
	}
	if strings.TrimSpace(cfg.Model) == "" {
		return nil, errors.New("llm: the model name is empty; set model.name (e.g. gpt-4.1, or a local model such as qwen2.5-coder)")
	}
	cfg.BaseURL = base
	if cfg.RequestTimeout <= 0 {
		cfg.RequestTimeout = DefaultRequestTimeout
	}
	if cfg.MaxAnswerBytes <= 0 {
		cfg.MaxAnswerBytes = DefaultMaxAnswerBytes
	}
	if cfg.MaxToolArgsBytes <= 0 {
		cfg.MaxToolArgsBytes = DefaultMaxToolArgsBytes
	}
	if cfg.MaxAttempts <= 0 {
		cfg.MaxAttempts = DefaultMaxAttempts
	}
	if cfg.BackoffBase <= 0 {
		cfg.BackoffBase = DefaultBackoffBase
	}
	if cfg.BackoffMax <= 0 {
		cfg.BackoffMax = DefaultBackoffMax
	}
	if cfg.MaxRetryAfter <= 0 {
		cfg.MaxRetryAfter = DefaultMaxRetryAfter
	}
	if cfg.Sleep == nil {
		cfg.Sleep = sleep
	}
	hc := cfg.HTTPClient
	var owned *http.Transport
	switch {
	case replay != nil:
		hc = &http.Client{Transport: replay}
	case hc == nil:
		owned = http.DefaultTransport.(*http.Transport).Clone()
		hc = &http.Client{Transport: owned}
	}
	if cfg.Record != "" {
		next := hc.Transport
		if next == nil {
			next = http.DefaultTransport
		}
		rec := *hc
		rec.Transport = &recorder{path: cfg.Record, next: next}
		hc = &rec
	}
	oc := openai.DefaultConfig(cfg.APIKey)
	oc.BaseURL = base
	oc.HTTPClient = metaDoer{hc: hc, maxLine: 2*cfg.MaxAnswerBytes + 1<<20}
	oc.EmptyMessagesLimit = emptyMessagesLimit
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Client{cfg: cfg, api: openai.NewClientWithConfig(oc), log: log, owned: owned}, nil
}

// Close releases idle keep-alive connections (and their goroutines) of the
// client's own transport. The client stays usable; a later Stream simply
// dials again. Call it when the client is no longer needed.
func (c *Client) Close() {
	if c.owned != nil {
		c.owned.CloseIdleConnections()
	}
}

// Config returns the effective configuration (defaults filled in).
func (c *Client) Config() Config { return c.cfg }

// Stream sends req and streams the answer: text and tool-call starts go to
// onDelta (may be nil) as they arrive, and the assembled turn is returned.
//
// Transient failures (429, 5xx, connection errors, a timed-out attempt, a
// stream that ends without finish_reason or with a mid-stream error) are
// retried with exponential backoff and full jitter, or after the server's
// Retry-After, up to MaxAttempts in all, but only while nothing of the
// failed attempt has reached onDelta: once text or a tool call has been
// streamed, a failure is returned rather than repeating output. onDelta
// gets a DeltaRetry before each retry. 400/401/403/404 are never retried.
//
// Errors are *Error. Cancelling ctx closes the HTTP stream at once and
// returns an error of kind Canceled that satisfies errors.Is(err,
// context.Canceled).
func (c *Client) Stream(ctx context.Context, req Request, onDelta func(Delta)) (Response, error) {
	if onDelta == nil {
		onDelta = func(Delta) {}
	}
	oreq, err := c.buildRequest(req)
	if err != nil {
		return Response{}, err
	}
	for attempt := 1; ; attempt++ {
		resp, fail := c.attempt(ctx, oreq, onDelta)
		if fail == nil {
			return resp, nil
		}
		e := fail.err
		if !fail.retry || attempt >= c.cfg.MaxAttempts {
			if fail.retry && attempt > 1 {
				e.Message = fmt.Sprintf("%s (gave up after %d attempts)", e.Message, attempt)
			}
			// The error is returned and the caller shows it (the run's failed
			// event, the CLI's last line, the editor's message): logging it
			// at Warn too printed it twice on agentls run's stderr. Info
			// keeps it in a log file (--log-level info) beside the retries.
			level := slog.LevelInfo
			if e.Kind == Canceled {
				level = slog.LevelDebug
			}
			c.log.Log(ctx, level, "model request failed", "kind", e.Kind.String(), "status", e.Status, "attempt", attempt, "error", e.Message)
			return Response{}, e
		}
		wait := backoff(attempt, c.cfg.BackoffBase, c.cfg.BackoffMax)
		if fail.hasRetryAfter {
			if fail.retryAfter > c.cfg.MaxRetryAfter {
				e.Message = fmt.Sprintf("%s; the server asks to wait %s before retrying, longer than the %s limit, so agentls stopped",
					e.Message, fail.retryAfter.Round(time.Second), c.cfg.MaxRetryAfter)
				return Response{}, e
			}
			wait = fail.retryAfter
		}
		c.log.Info("retrying model request", "kind", e.Kind.String(), "status", e.Status, "attempt", attempt+1, "wait", wait, "error", e.Message)
		onDelta(Delta{Kind: DeltaRetry, Err: e, Wait: wait, Attempt: attempt + 1,
			Text: fmt.Sprintf("%s; retrying in %s (attempt %d of %d)", e.Message, wait.Round(time.Millisecond), attempt+1, c.cfg.MaxAttempts)})
		if err := c.cfg.Sleep(ctx, wait); err != nil {
			return Response{}, canceled(ctx)
		}
	}
}

// errAnswerTooLarge is the Err of a TooLarge Error.
var errAnswerTooLarge = errors.New("answer too large")

// failure is one failed attempt and whether it may be retried.
type failure struct {
	err           *Error
	retry         bool
	retryAfter    time.Duration
	hasRetryAfter bool
}

// attempt makes one HTTP request and reads its stream to the end.
func (c *Client) attempt(ctx context.Context, oreq openai.ChatCompletionRequest, onDelta func(Delta)) (Response, *failure) {
	actx, cancel := context.WithTimeout(ctx, c.cfg.RequestTimeout)
	defer cancel()
	meta := &respMeta{}
	actx = context.WithValue(actx, metaKey{}, meta)

	stream, err := c.api.CreateChatCompletionStream(actx, oreq)
	if err != nil {
		return Response{}, c.classify(ctx, actx, err, meta, false)
	}
	defer stream.Close()
	asm := assembler{maxArgs: c.cfg.MaxToolArgsBytes}
	for {
		chunk, err := stream.Recv()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return Response{}, c.classify(ctx, actx, err, meta, asm.started())
		}
		asm.add(&chunk, onDelta)
		if asm.size > c.cfg.MaxAnswerBytes {
			e := &Error{Kind: TooLarge, Status: meta.status, Err: errAnswerTooLarge, Message: fmt.Sprintf(
				"the model's answer from %s exceeded %d bytes (model.maxAnswerBytes) and was stopped; the run cannot use an answer that size",
				c.cfg.BaseURL, c.cfg.MaxAnswerBytes)}
			return Response{}, &failure{err: e}
		}
	}
	if asm.finish == "" && !asm.started() && meta.header != nil &&
		!strings.Contains(meta.header.Get("Content-Type"), "event-stream") {
		e := &Error{Kind: Server, Status: meta.status, Err: io.ErrUnexpectedEOF, Message: fmt.Sprintf(
			"the model server at %s answered without streaming (Content-Type %q); agentls needs a server that supports \"stream\": true",
			redact.URL(c.cfg.BaseURL), meta.header.Get("Content-Type"))}
		return Response{}, &failure{err: e}
	}
	if asm.finish == "" {
		e := &Error{Kind: Truncated, Status: meta.status, Err: io.ErrUnexpectedEOF,
			Message: fmt.Sprintf("the model server at %s ended the response stream early (no finish_reason)", redact.URL(c.cfg.BaseURL))}
		if asm.started() {
			e.Message += " after part of the answer had arrived"
		}
		return Response{}, &failure{err: e, retry: !asm.started()}
	}
	return asm.response(), nil
}

// classify turns an attempt's error into a failure. started says whether
// anything reached onDelta (then nothing is retried).
func (c *Client) classify(ctx, actx context.Context, err error, meta *respMeta, started bool) *failure {
	f := &failure{}
	var apiErr *openai.APIError
	var reqErr *openai.RequestError
	var replayErr *ReplayError
	switch {
	case ctx.Err() != nil:
		return &failure{err: canceled(ctx)}
	case errors.Is(err, errLineTooLong):
		return &failure{err: &Error{Kind: TooLarge, Status: meta.status, Err: err, Message: fmt.Sprintf(
			"the model server at %s sent a stream event larger than the answer limit of %d bytes (model.maxAnswerBytes); the answer was stopped",
			c.cfg.BaseURL, c.cfg.MaxAnswerBytes)}}
	case errors.As(err, &replayErr): // a cassette cannot answer: retrying would not help
		return &failure{err: &Error{Kind: BadRequest, Err: replayErr, Message: replayErr.Error()}}
	case errors.Is(actx.Err(), context.DeadlineExceeded):
		f.err = &Error{Kind: Network, Status: meta.status, Err: err, Message: fmt.Sprintf(
			"the model server at %s did not finish answering within %s (model.requestTimeoutSeconds)", redact.URL(c.cfg.BaseURL), c.cfg.RequestTimeout)}
		f.retry = true
	case errors.As(err, &apiErr) && apiErr.HTTPStatusCode != 0:
		f.err = statusError(apiErr.HTTPStatusCode, redactText(apiErr.Message, c.cfg.APIKey), &c.cfg, err)
		f.retry = retryableStatus(apiErr.HTTPStatusCode) && !quotaExhausted(apiErr)
		if quotaExhausted(apiErr) {
			f.err.Message += "; the account's quota is used up, check its plan and billing"
		}
	case errors.As(err, &apiErr) && streamErrorStatus(apiErr) != 0:
		// OpenRouter reports e.g. auth and model errors as data: {"error":
		// {"code": 401, ...}} on a 200 stream.
		code := streamErrorStatus(apiErr)
		f.err = statusError(code, redactText(apiErr.Message, c.cfg.APIKey), &c.cfg, err)
		f.retry = retryableStatus(code)
	case errors.As(err, &apiErr): // data: {"error": ...} in the middle of the stream
		f.err = &Error{Kind: Server, Status: meta.status, Err: err, Message: fmt.Sprintf(
			"the model server at %s reported an error while streaming: %s", redact.URL(c.cfg.BaseURL), redactText(apiErr.Message, c.cfg.APIKey))}
		f.retry = true
	case errors.As(err, &reqErr):
		f.err = statusError(reqErr.HTTPStatusCode, bodyText(reqErr.Body, c.cfg.APIKey), &c.cfg, err)
		f.retry = retryableStatus(reqErr.HTTPStatusCode)
	case errors.Is(err, openai.ErrTooManyEmptyStreamMessages):
		f.err = &Error{Kind: Server, Status: meta.status, Err: err, Message: fmt.Sprintf(
			"the model server at %s sent too many empty stream lines", redact.URL(c.cfg.BaseURL))}
		f.retry = true
	case !meta.sent: // refused by go-openai before sending (model/parameter checks, encoding)
		f.err = &Error{Kind: BadRequest, Err: err, Message: fmt.Sprintf(
			"the model request for %q could not be sent: %v", c.cfg.Model, err)}
	case isJSONError(err):
		f.err = &Error{Kind: Server, Status: meta.status, Err: err, Message: fmt.Sprintf(
			"the model server at %s sent a stream chunk that is not OpenAI's format: %v", redact.URL(c.cfg.BaseURL), err)}
		f.retry = true
	case meta.status != 0: // the stream had begun: a broken connection or a malformed chunk
		f.err = &Error{Kind: Network, Status: meta.status, Err: err, Message: fmt.Sprintf(
			"the response stream from %s broke: %s", redact.URL(c.cfg.BaseURL), redactText(err.Error(), c.cfg.APIKey))}
		f.retry = true
	default:
		f.err = &Error{Kind: Network, Err: err, Message: fmt.Sprintf(
			"cannot reach the model server at %s: %s", redact.URL(c.cfg.BaseURL), redactText(err.Error(), c.cfg.APIKey))}
		f.retry = true
	}
	if started && f.retry {
		f.retry = false
		f.err.Message += " (after part of the answer had arrived)"
	}
	if f.retry && meta.status >= 400 {
		f.retryAfter, f.hasRetryAfter = retryAfter(meta.header, time.Now())
	}
	return f
}

// isJSONError reports a chunk that did not decode.
func isJSONError(err error) bool {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	return errors.As(err, &syn) || errors.As(err, &typ)
}

// canceled is the error for a context that ended.
func canceled(ctx context.Context) *Error {
	cause := ctx.Err()
	msg := "the model request was cancelled"
	if errors.Is(cause, context.DeadlineExceeded) {
		msg = "the model request was stopped: the run's time limit was reached"
	}
	return &Error{Kind: Canceled, Err: cause, Message: msg}
}

// streamErrorStatus returns the HTTP-like status a streamed error carries
// in its numeric "code" (OpenRouter does this), or 0.
func streamErrorStatus(e *openai.APIError) int {
	if code, ok := e.Code.(int); ok && code >= 400 && code <= 599 {
		return code
	}
	return 0
}

// quotaExhausted spots OpenAI's 429 that no retry can fix.
func quotaExhausted(e *openai.APIError) bool {
	code, _ := e.Code.(string)
	return e.HTTPStatusCode == http.StatusTooManyRequests && (code == "insufficient_quota" || e.Type == "insufficient_quota")
}

// bodyText makes a readable one-line message from a non-JSON error body
// (often an HTML page from a proxy).
func bodyText(body []byte, apiKey string) string {
	var b strings.Builder
	inTag := false
	for _, r := range string(body) {
		switch {
		case r == '<':
			inTag = true
			b.WriteByte(' ')
		case r == '>':
			inTag = false
		case !inTag:
			b.WriteRune(r)
		}
	}
	return redactText(b.String(), apiKey)
}
