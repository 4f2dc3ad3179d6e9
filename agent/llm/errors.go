package llm

import (
	"errors"
	"fmt"
	"strings"

	"github.com/agentls/agentls/internal/redact"
)

// ErrorKind classifies a failed model call by what the user should do
// about it.
type ErrorKind int

// Error kinds. Auth, NotFound and BadRequest are never retried; the others
// are retried (within MaxAttempts) when nothing has been streamed yet.
const (
	Auth        ErrorKind = iota + 1 // 401/403: bad or missing API key, no access
	NotFound                         // 404: unknown model or wrong base URL
	BadRequest                       // 400/413/422 or a request the client refused to send
	RateLimited                      // 429 after all retries
	Server                           // 5xx, a non-JSON error page, an error sent mid-stream
	Network                          // cannot connect, connection reset, attempt timed out
	Truncated                        // the stream ended without a finish_reason
	Canceled                         // the caller's context ended
	TooLarge                         // the answer exceeded Config.MaxAnswerBytes
)

// String names the kind for logs and transcripts.
func (k ErrorKind) String() string {
	switch k {
	case Auth:
		return "auth"
	case NotFound:
		return "not_found"
	case BadRequest:
		return "bad_request"
	case RateLimited:
		return "rate_limited"
	case Server:
		return "server"
	case Network:
		return "network"
	case Truncated:
		return "truncated"
	case Canceled:
		return "canceled"
	case TooLarge:
		return "too_large"
	}
	return fmt.Sprintf("ErrorKind(%d)", int(k))
}

// Error is what Stream returns for a failed model call. Message is written
// for the user (it names the likely cause and includes the server's own
// message); Err is the underlying error for errors.Is/As (context.Canceled
// for Canceled, *openai.APIError or *openai.RequestError for HTTP
// failures).
type Error struct {
	Kind    ErrorKind
	Status  int // HTTP status, 0 when there was none
	Message string
	Err     error
}

// Error returns the user-facing message.
func (e *Error) Error() string { return e.Message }

// Unwrap exposes the underlying error.
func (e *Error) Unwrap() error { return e.Err }

// Retryable reports whether the failure is transient (rate limit, server
// error, network, truncated stream).
func (e *Error) Retryable() bool {
	switch e.Kind {
	case RateLimited, Server, Network, Truncated:
		return true
	}
	return false
}

// IsKind reports whether err is (or wraps) an *Error of kind k.
func IsKind(err error, k ErrorKind) bool {
	var e *Error
	return errors.As(err, &e) && e.Kind == k
}

// statusError builds the *Error for an HTTP error status. serverMsg is the
// provider's message (already redacted), cause the library error.
func statusError(status int, serverMsg string, cfg *Config, cause error) *Error {
	e := &Error{Status: status, Err: cause}
	detail := ""
	if serverMsg != "" {
		detail = ": " + serverMsg
	}
	switch {
	case status == 401:
		e.Kind = Auth
		e.Message = fmt.Sprintf("the model server at %s rejected the API key (HTTP 401)%s; check the key "+
			"(OPENAI_API_KEY, or the variable named by model.apiKeyEnv)", redact.URL(cfg.BaseURL), detail)
		if cfg.APIKey == "" {
			e.Message = fmt.Sprintf("the model server at %s requires an API key and none is set (HTTP 401)%s; "+
				"set OPENAI_API_KEY or the variable named by model.apiKeyEnv", redact.URL(cfg.BaseURL), detail)
		}
	case status == 403:
		e.Kind = Auth
		e.Message = fmt.Sprintf("the model server at %s refused access (HTTP 403)%s; the API key may lack "+
			"permission for model %q", redact.URL(cfg.BaseURL), detail, cfg.Model)
	case status == 404:
		e.Kind = NotFound
		e.Message = fmt.Sprintf("model %q or endpoint not found at %s (HTTP 404)%s; check model.name and "+
			"model.baseURL (it usually ends in /v1)", cfg.Model, redact.URL(cfg.BaseURL), detail)
	case status == 429:
		e.Kind = RateLimited
		e.Message = fmt.Sprintf("the model server at %s is rate limiting requests (HTTP 429)%s", redact.URL(cfg.BaseURL), detail)
	case status >= 500:
		e.Kind = Server
		e.Message = fmt.Sprintf("the model server at %s failed (HTTP %d)%s", redact.URL(cfg.BaseURL), status, detail)
	case status == 408:
		e.Kind = Network
		e.Message = fmt.Sprintf("the model server at %s timed out (HTTP 408)%s", redact.URL(cfg.BaseURL), detail)
	default:
		e.Kind = BadRequest
		e.Message = fmt.Sprintf("the model server at %s rejected the request (HTTP %d)%s; the conversation, "+
			"tool definitions or settings (model, maxOutputTokens, temperature) may not suit this model",
			redact.URL(cfg.BaseURL), status, detail)
	}
	return e
}

// retryableStatus reports whether an HTTP status is worth retrying.
func retryableStatus(status int) bool {
	switch status {
	case 408, 409, 429, 500, 502, 503, 504, 520, 522, 524, 529:
		return true
	}
	return false
}

// redact replaces the API key in s and shortens s to a readable length.
func redactText(s, apiKey string) string {
	if apiKey != "" {
		s = strings.ReplaceAll(s, apiKey, "[REDACTED]")
	}
	s = redact.Text(s) // credentials in URLs the message quotes
	s = strings.Join(strings.Fields(s), " ")
	const maxLen = 500
	if len(s) > maxLen {
		s = s[:maxLen] + "…"
	}
	return s
}
