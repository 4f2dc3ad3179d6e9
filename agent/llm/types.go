// Package llm is the model client: streaming chat completions with tools on
// any OpenAI-compatible endpoint through github.com/sashabaranov/go-openai,
// with tool-call assembly that survives provider quirks, retries with
// backoff, and per-request timeouts.
//
// CONTRACT (implemented by the llm owner; agent codes against these names):
//
//	func New(cfg Config) (*Client, error)
//	func (c *Client) Stream(ctx context.Context, req Request, onDelta func(Delta)) (Response, error)
//
// Stream returns a *Error (see errors.go) for failures the run should report
// to the user by cause (auth, not found, bad request, retries exhausted,
// truncated stream).
//
// Retries happen only while nothing of the failed attempt was streamed to
// the caller, so streamed text is never repeated (see Client.Stream). Tests
// run the client against the scripted server in agent/llm/llmtest.
package llm

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"time"

	openai "github.com/sashabaranov/go-openai"
)

// Config is everything needed to reach one model endpoint.
type Config struct {
	BaseURL         string        // e.g. https://api.openai.com/v1, http://localhost:11434/v1
	Model           string        // model name sent in requests
	APIKey          string        // empty sends no Authorization header
	MaxOutputTokens int           // 0: provider default
	Temperature     *float32      // nil: provider default
	RequestTimeout  time.Duration // per attempt, whole stream; 0: 5 min
	MaxAttempts     int           // retries on 429/5xx/resets; 0: 4
	BackoffBase     time.Duration // first backoff; 0: 500ms (tests set it small)
	BackoffMax      time.Duration // cap; 0: 30s

	// MaxAnswerBytes bounds one streamed answer: its text plus every tool
	// call's arguments. Past it the stream is closed and the call fails
	// with a TooLarge error (the run ends: an answer that size is runaway
	// or hostile output, and feeding it back would only cost more). 0:
	// DefaultMaxAnswerBytes.
	MaxAnswerBytes int
	// MaxToolArgsBytes bounds one tool call's arguments. A call over it
	// keeps no arguments and comes back with ArgsErr, which the model gets
	// as the tool result (it can retry with smaller calls). 0:
	// DefaultMaxToolArgsBytes.
	MaxToolArgsBytes int

	// MaxRetryAfter caps how long a server's Retry-After may make us wait;
	// a longer demand ends the retries at once. 0: 60s.
	MaxRetryAfter time.Duration
	// Sleep waits d between attempts, returning ctx's error if ctx ends
	// first; nil waits on a timer. Tests inject one that records the waits
	// instead of spending them, so a Retry-After of seconds costs none.
	Sleep func(ctx context.Context, d time.Duration) error
	// HTTPClient carries the requests; nil: a client of its own (a clone of
	// http.DefaultTransport, no Timeout: RequestTimeout bounds each attempt
	// through its context). Tests and benchmarks may pass an in-memory one.
	HTTPClient *http.Client
	// Logger receives retries and failures (never the API key); nil: discard.
	Logger *slog.Logger

	// Replay names a cassette to answer from instead of a model server
	// (docs/protocol.md "Deterministic model"): no network, and BaseURL,
	// Model and APIKey may be empty. A request that differs from the
	// recording fails with a *ReplayError naming the turn.
	Replay string
	// Record names a cassette file to write: every successful model
	// response, as streamed, with a fingerprint of its request.
	Record string
}

// Message is one chat message; we reuse go-openai's type so that requests
// go out exactly as the library sends them.
type Message = openai.ChatCompletionMessage

// ToolDef is a function the model may call.
type ToolDef struct {
	Name        string
	Description string
	Parameters  json.RawMessage // JSON schema object
}

// Request is one model call.
type Request struct {
	Messages []Message
	Tools    []ToolDef
}

// DeltaKind tells what a Delta carries.
type DeltaKind int

// Streamed delta kinds.
const (
	DeltaText     DeltaKind = iota // Text holds streamed assistant text
	DeltaToolCall                  // a tool call started: ToolName set
	DeltaRetry                     // a retry is about to happen: Text says why
)

// Delta is streamed to the caller while a response arrives.
//
// After a DeltaRetry no text of the failed attempt will be repeated: Stream
// retries only when nothing had been streamed in that attempt.
type Delta struct {
	Kind     DeltaKind
	Text     string
	ToolName string

	// For DeltaRetry: the failure being retried, the wait before the next
	// attempt, and that attempt's number (2 for the first retry).
	Err     error
	Wait    time.Duration
	Attempt int
}

// ToolCall is one assembled call. ArgsErr is set when the arguments were
// not valid JSON: the loop returns it to the model as a tool error.
type ToolCall struct {
	ID      string
	Name    string
	Args    string // raw JSON text as assembled
	ArgsErr error
}

// Usage is token accounting as reported by the provider (zero when the
// server does not report it).
type Usage struct {
	PromptTokens     int `json:"promptTokens"`
	CompletionTokens int `json:"completionTokens"`
	TotalTokens      int `json:"totalTokens"`
	// CachedTokens is the part of PromptTokens the provider served from
	// its prompt cache (OpenAI's prompt_tokens_details.cached_tokens),
	// billed at a lower price; 0 when not reported.
	CachedTokens int `json:"cachedTokens,omitempty"`
}

// maxReportedTokens bounds a believable count for one call: a usage chunk
// claiming more (or anything negative) is a broken endpoint, and its
// figures must not become a run's total or a cost.
const maxReportedTokens = 1 << 30

// plausible reports whether u can be taken as the provider's count.
func (u Usage) plausible() bool {
	for _, n := range []int{u.PromptTokens, u.CompletionTokens, u.TotalTokens, u.CachedTokens} {
		if n < 0 || n > maxReportedTokens {
			return false
		}
	}
	return u.CachedTokens <= u.PromptTokens
}

// Response is an assembled assistant turn.
type Response struct {
	Text         string
	ToolCalls    []ToolCall
	FinishReason string
	Usage        Usage
	UsageKnown   bool // false when the server ignored include_usage
}
