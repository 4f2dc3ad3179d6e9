package llmtest

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"time"
)

// Script decides the reply to each chat request from the conversation so
// far. Calls are serialised by the server, so a script may keep state.
type Script func(req *ChatRequest) Reply

// Call is one tool call the scripted model makes. Args is the arguments
// text exactly as it will be streamed (it may be invalid JSON on purpose).
type Call struct {
	ID   string
	Name string
	Args string
}

// Reply is what the scripted model answers to one request. Build it with
// Text, ToolCalls, Error, RawError or Disconnect and refine it with the
// chainable methods; the zero Reply streams an empty assistant message.
type Reply struct {
	text  string
	calls []Call

	// HTTP error replies.
	status      int
	errMessage  string
	rawBody     string
	header      http.Header
	disconnect  bool
	unexpected  string // set by Sequence when it runs out: a test failure
	errType     string
	errCode     string
	chunkSize   int
	argPieces   int
	argsWhole   bool
	omitIndex   bool
	repeatID    bool
	emptyID     bool
	interleave  bool
	argsObject  bool
	finish      string
	keepalives  int
	cutAfter    int // -1: no cut
	abortAfter  int // -1: no abort
	errorAfter  int // -1: no mid-stream error
	midError    string
	midCode     int
	hangAfter   int // -1: no hang
	hang        *Hang
	pauseAfter  int // -1: no pause
	pause       *Pause
	noUsage     bool
	usage       *usage
	rawUsage    string // sent verbatim as the usage chunk's "usage" value
	withoutRole bool
	notStreamed bool
	delay       time.Duration
}

func newReply() Reply {
	return Reply{cutAfter: -1, abortAfter: -1, errorAfter: -1, hangAfter: -1, pauseAfter: -1, argPieces: 3}
}

// Text replies with assistant text, streamed in several chunks (split after
// each space unless ChunkSize says otherwise), then finish_reason "stop".
func Text(s string) Reply {
	r := newReply()
	r.text = s
	return r
}

// ToolCalls replies with one or more (parallel) tool calls, OpenAI style:
// the first delta of each call carries index, id, type and name with empty
// arguments, and the arguments follow in 3 fragments (see SplitArgs,
// ArgsWhole); then finish_reason "tool_calls".
func ToolCalls(calls ...Call) Reply {
	r := newReply()
	r.calls = append([]Call(nil), calls...)
	return r
}

// Error replies with an HTTP error status and an OpenAI-style JSON body
// {"error":{"message":...,"type":...,"code":...}}.
func Error(status int, message string) Reply {
	r := newReply()
	r.status = status
	r.errMessage = message
	return r
}

// RawError replies with an HTTP error status and a non-JSON body, like a
// proxy's HTML 502 page.
func RawError(status int, body string) Reply {
	r := newReply()
	r.status = status
	r.rawBody = body
	return r
}

// Disconnect closes the connection without sending any response, as a
// server reset before the first byte does.
func Disconnect() Reply {
	r := newReply()
	r.disconnect = true
	return r
}

// WithText adds assistant text streamed before the tool calls.
func (r Reply) WithText(s string) Reply { r.text = s; return r }

// ChunkSize streams text in pieces of at most n bytes (never splitting a
// UTF-8 sequence). The default splits after each space.
func (r Reply) ChunkSize(n int) Reply { r.chunkSize = n; return r }

// SplitArgs streams each call's arguments in n fragments (default 3).
func (r Reply) SplitArgs(n int) Reply { r.argPieces = max(n, 1); r.argsWhole = false; return r }

// ArgsWhole sends each call's complete arguments in its first delta.
func (r Reply) ArgsWhole() Reply { r.argsWhole = true; return r }

// OmitIndex leaves "index" out of tool-call deltas (Ollama does this; it
// also sends arguments whole, so combine with ArgsWhole for realism).
func (r Reply) OmitIndex() Reply { r.omitIndex = true; return r }

// RepeatID repeats the call id (and type) on every delta of a call, as some
// vLLM-backed servers do.
func (r Reply) RepeatID() Reply { r.repeatID = true; return r }

// EmptyID sends "id": "" on the later deltas of a call.
func (r Reply) EmptyID() Reply { r.emptyID = true; return r }

// Interleave alternates argument fragments between parallel calls instead
// of finishing one call before starting the next.
func (r Reply) Interleave() Reply { r.interleave = true; return r }

// ArgsAsObject sends arguments as a JSON object instead of a string (a
// provider bug that makes go-openai fail to decode the chunk). Args must be
// valid JSON.
func (r Reply) ArgsAsObject() Reply { r.argsObject = true; return r }

// FinishReason overrides the finish_reason ("stop", "tool_calls", "length",
// "content_filter"...). Tool calls with "stop" are a real quirk.
func (r Reply) FinishReason(reason string) Reply { r.finish = reason; return r }

// Keepalives sends n SSE comment lines (": OPENROUTER PROCESSING") before
// the first chunk.
func (r Reply) Keepalives(n int) Reply { r.keepalives = n; return r }

// CutAfter ends the response body cleanly after n data chunks: no
// finish_reason, no usage, no [DONE]. go-openai sees a plain io.EOF.
func (r Reply) CutAfter(n int) Reply { r.cutAfter = n; return r }

// Cut ends the body cleanly right before the finish chunk: every content
// and tool-call chunk is sent, but no finish_reason and no [DONE].
func (r Reply) Cut() Reply { r.cutAfter = cutBeforeFinish; return r }

// AbortAfter drops the connection after n data chunks without ending the
// chunked body, as a connection reset does (the client sees an unexpected
// EOF rather than a clean end).
func (r Reply) AbortAfter(n int) Reply { r.abortAfter = n; return r }

// ErrorAfter sends `data: {"error":{...}}` with message after n data chunks
// and ends the stream, as providers do when a model fails mid-answer.
func (r Reply) ErrorAfter(n int, message string) Reply {
	r.errorAfter = n
	r.midError = message
	return r
}

// StreamErrorCode puts a numeric "code" (an HTTP status, as OpenRouter
// does) in the ErrorAfter error event instead of null.
func (r Reply) StreamErrorCode(code int) Reply { r.midCode = code; return r }

// HangAfter sends n data chunks, then blocks until the client goes away (or
// the server closes), reporting both moments on h.
func (r Reply) HangAfter(n int, h *Hang) Reply { r.hangAfter = n; r.hang = h; return r }

// PauseAfter sends n data chunks, then waits until the test calls
// p.Release (or the client goes away) and goes on with the rest. Use it to
// act while a run is mid-stream; a Script itself must not block.
func (r Reply) PauseAfter(n int, p *Pause) Reply { r.pauseAfter = n; r.pause = p; return r }

// Delay holds the reply for d before anything is sent, as a slow model
// thinks; a client that goes away meanwhile gets nothing (the request is
// recorded as Disconnected).
func (r Reply) Delay(d time.Duration) Reply { r.delay = d; return r }

// delayed waits out the reply's delay; false when the client went away
// or the server closed first.
func (r Reply) delayed(ctx context.Context, done <-chan struct{}) bool {
	if r.delay <= 0 {
		return true
	}
	t := time.NewTimer(r.delay)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
	case <-done:
	}
	return false
}

// NoUsage omits the usage chunk even when the client asked for it.
func (r Reply) NoUsage() Reply { r.noUsage = true; return r }

// Usage sets the token counts of the usage chunk (default: an estimate of
// about 4 bytes per token of the request messages and of the reply).
func (r Reply) Usage(prompt, completion int) Reply {
	r.usage = &usage{PromptTokens: prompt, CompletionTokens: completion, TotalTokens: prompt + completion}
	return r
}

// RawUsage sends raw, verbatim, as the "usage" value of the usage chunk
// of a streamed reply (whether or not the client asked for usage), to
// play an endpoint whose counts do not decode: `{"prompt_tokens": 12.0}`,
// `{"prompt_tokens": NaN}` (not even JSON), `{"prompt_tokens": "12"}`.
func (r Reply) RawUsage(raw string) Reply { r.rawUsage = raw; return r }

// CachedUsage sets the usage chunk with cached prompt tokens, as OpenAI
// reports them (prompt_tokens_details.cached_tokens). Negative or huge
// values are allowed, to play a broken endpoint.
func (r Reply) CachedUsage(prompt, cached, completion int) Reply {
	r.usage = &usage{PromptTokens: prompt, CompletionTokens: completion, TotalTokens: prompt + completion, Details: &promptDetails{CachedTokens: cached}}
	return r
}

// NotStreaming answers with one chat.completion JSON object even when the
// client asked to stream (some servers ignore "stream": true).
func (r Reply) NotStreaming() Reply { r.notStreamed = true; return r }

// NoRole leaves out the initial {"role":"assistant"} delta.
func (r Reply) NoRole() Reply { r.withoutRole = true; return r }

// RetryAfter sets the Retry-After header of an error reply (seconds or an
// HTTP date).
func (r Reply) RetryAfter(v string) Reply { return r.Header("Retry-After", v) }

// Header adds a response header.
func (r Reply) Header(key, value string) Reply {
	h := r.header.Clone()
	if h == nil {
		h = http.Header{}
	}
	h.Add(key, value)
	r.header = h
	return r
}

// ErrorType sets error.type and error.code in an Error reply's body
// (defaults derive from the status, e.g. 429 → "rate_limit_exceeded").
func (r Reply) ErrorType(typ, code string) Reply { r.errType = typ; r.errCode = code; return r }

// Sequence returns a Script that answers the n-th request with replies[n].
// A request beyond the end fails the test and gets HTTP 500.
func Sequence(replies ...Reply) Script {
	var mu sync.Mutex
	next := 0
	return func(req *ChatRequest) Reply {
		mu.Lock()
		defer mu.Unlock()
		if next >= len(replies) {
			r := Error(http.StatusInternalServerError, "llmtest: script exhausted")
			r.unexpected = fmt.Sprintf("Sequence has %d replies but request #%d arrived (last message %q: %.80q)",
				len(replies), next+1, req.Last().Role, req.Last().Content)
			next++
			return r
		}
		r := replies[next]
		next++
		return r
	}
}

// Always answers every request with r.
func Always(r Reply) Script { return func(*ChatRequest) Reply { return r } }

// Hang lets a test observe a HangAfter reply: Started is closed when the
// server has sent its chunks and begins to block, Disconnected when it saw
// the client go away. One Hang serves one request.
type Hang struct {
	started, disconnected chan struct{}
	startOnce, discOnce   sync.Once
}

// NewHang makes a Hang for HangAfter.
func NewHang() *Hang {
	return &Hang{started: make(chan struct{}), disconnected: make(chan struct{})}
}

// Started is closed once the server is blocking.
func (h *Hang) Started() <-chan struct{} { return h.started }

// Disconnected is closed once the server saw the request's context end
// (the client closed the connection). It stays open if the server was shut
// down instead.
func (h *Hang) Disconnected() <-chan struct{} { return h.disconnected }

func (h *Hang) markStarted()      { h.startOnce.Do(func() { close(h.started) }) }
func (h *Hang) markDisconnected() { h.discOnce.Do(func() { close(h.disconnected) }) }

// Pause holds a PauseAfter reply mid-stream: Reached is closed when the
// server has sent the chunks before the pause, Release lets it continue.
// One Pause serves one request.
type Pause struct {
	reached, release       chan struct{}
	reachOnce, releaseOnce sync.Once
}

// NewPause makes a Pause for PauseAfter.
func NewPause() *Pause {
	return &Pause{reached: make(chan struct{}), release: make(chan struct{})}
}

// Reached is closed once the stream is paused.
func (p *Pause) Reached() <-chan struct{} { return p.reached }

// Release lets the paused stream continue; safe to call more than once.
func (p *Pause) Release() { p.releaseOnce.Do(func() { close(p.release) }) }

func (p *Pause) markReached() { p.reachOnce.Do(func() { close(p.reached) }) }
