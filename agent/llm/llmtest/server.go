// Package llmtest is a scripted OpenAI-compatible chat-completions server
// for tests. It streams real text/event-stream chunks over HTTP on
// 127.0.0.1, so the code under test (go-openai, stream assembly, retries,
// the agent loop) runs for real and only the model is faked.
//
// A Script picks the reply to each request from the conversation so far
// (scripts run one at a time and must not block; use PauseAfter or
// HangAfter to hold a stream):
//
//	srv := llmtest.New(t, func(req *llmtest.ChatRequest) llmtest.Reply {
//		if !req.HasToolResult("call_1") {
//			return llmtest.ToolCalls(llmtest.Call{ID: "call_1", Name: "read_file", Args: `{"path":"a.go"}`})
//		}
//		return llmtest.Text("done")
//	})
//	client, _ := llm.New(llm.Config{BaseURL: srv.URL(), Model: "test-model"})
//
// Replies can reproduce provider quirks: arguments split or whole, missing
// index, repeated ids, parallel calls, "stop" with tool calls, keepalive
// comments, HTTP errors with Retry-After, non-JSON 502 bodies, streams cut
// or reset mid-way, mid-stream errors and hanging streams.
//
// By default the server checks requests as OpenAI does (every tool call
// answered by a tool message right after it, no tool message without its
// call, valid tool definitions) and fails the test on a violation; Lenient
// turns that off.
package llmtest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"
)

// Server is a running scripted model endpoint. Close it or let the test's
// cleanup do it.
type Server struct {
	t       testing.TB
	srv     *httptest.Server
	script  Script
	apiKey  string
	lenient bool
	models  *string // GET /v1/models body (WithModels)

	scriptMu sync.Mutex // serialises Script calls

	mu          sync.Mutex
	reqs        []RecordedRequest
	inFlight    int // requests being answered now
	maxInFlight int // the most at once

	done      chan struct{} // closed by Close: releases hanging replies
	closeOnce sync.Once
}

// Option configures a Server.
type Option func(*Server)

// WithAPIKey makes the server answer 401 (OpenAI's invalid_api_key body)
// unless the request carries "Authorization: Bearer key".
func WithAPIKey(key string) Option { return func(s *Server) { s.apiKey = key } }

// WithModels makes GET /v1/models answer body (JSON, or garbage to play a
// broken endpoint) with status 200; those requests are not recorded.
func WithModels(body string) Option { return func(s *Server) { s.models = &body } }

// Lenient disables the OpenAI-style request validation.
func Lenient() Option { return func(s *Server) { s.lenient = true } }

// New starts a server on 127.0.0.1 answering with script; it is closed
// when the test ends.
func New(t testing.TB, script Script, opts ...Option) *Server {
	t.Helper()
	s := &Server{t: t, script: script, done: make(chan struct{})}
	for _, o := range opts {
		o(s)
	}
	s.srv = httptest.NewServer(http.HandlerFunc(s.handle))
	t.Cleanup(s.Close)
	return s
}

// URL is the base URL to configure clients with; it ends in /v1.
func (s *Server) URL() string { return s.srv.URL + "/v1" }

// Requests returns every request received so far, in arrival order.
func (s *Server) Requests() []RecordedRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]RecordedRequest(nil), s.reqs...)
}

// MaxInFlight is the most requests the server was answering at once.
func (s *Server) MaxInFlight() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.maxInFlight
}

// Close stops the server, releasing hanging replies first. It is safe to
// call more than once.
func (s *Server) Close() {
	s.closeOnce.Do(func() {
		close(s.done)
		s.srv.Close()
	})
}

func (s *Server) handle(w http.ResponseWriter, r *http.Request) {
	if s.models != nil && r.Method == http.MethodGet && r.URL.Path == "/v1/models" {
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, *s.models)
		return
	}
	arrived := time.Now()
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return // client went away while sending
	}
	req := &ChatRequest{Raw: json.RawMessage(body), Header: r.Header.Clone()}
	decodeErr := json.Unmarshal(body, req)
	s.mu.Lock()
	req.Seq = len(s.reqs)
	s.reqs = append(s.reqs, RecordedRequest{ChatRequest: *req, Method: r.Method, Path: r.URL.Path, Time: arrived})
	s.mu.Unlock()

	s.mu.Lock()
	s.inFlight++
	s.maxInFlight = max(s.maxInFlight, s.inFlight)
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		s.inFlight--
		s.reqs[req.Seq].Ended = time.Now()
		s.reqs[req.Seq].Disconnected = r.Context().Err() != nil
		s.mu.Unlock()
	}()
	completion := r.URL.Path == CompletionsPath
	if r.Method != http.MethodPost || (r.URL.Path != "/v1/chat/completions" && !completion) {
		writeError(w, http.StatusNotFound, nil, fmt.Sprintf("Unknown request URL: %s %s. Please check the URL for typos.", r.Method, r.URL.Path),
			"invalid_request_error", "unknown_url")
		return
	}
	if s.apiKey != "" && r.Header.Get("Authorization") != "Bearer "+s.apiKey {
		writeError(w, http.StatusUnauthorized, nil, "Incorrect API key provided. You can find your API key at https://platform.openai.com/account/api-keys.",
			"invalid_request_error", "invalid_api_key")
		return
	}
	if decodeErr != nil {
		writeError(w, http.StatusBadRequest, nil, "We could not parse the JSON body of your request: "+decodeErr.Error(),
			"invalid_request_error", "")
		return
	}
	if !s.lenient && !completion {
		if msg := validate(req); msg != "" {
			s.t.Errorf("llmtest: request #%d is invalid for OpenAI: %s", req.Seq+1, msg)
			writeError(w, http.StatusBadRequest, nil, msg, "invalid_request_error", "")
			return
		}
	}

	s.scriptMu.Lock()
	reply := s.script(req)
	s.scriptMu.Unlock()
	if reply.unexpected != "" {
		s.t.Errorf("llmtest: unexpected request: %s", reply.unexpected)
	}
	s.respond(w, r, req, reply)
}

func (s *Server) respond(w http.ResponseWriter, r *http.Request, req *ChatRequest, reply Reply) {
	switch {
	case reply.disconnect:
		panic(http.ErrAbortHandler) // net/http closes the connection without a response
	case reply.rawBody != "":
		for k, vs := range reply.header {
			w.Header()[k] = vs
		}
		w.Header().Set("Content-Type", "text/html")
		w.WriteHeader(reply.status)
		io.WriteString(w, reply.rawBody)
	case reply.status != 0:
		typ, code := reply.errType, reply.errCode
		if typ == "" {
			typ, code = defaultErrorType(reply.status)
		}
		writeError(w, reply.status, reply.header, reply.errMessage, typ, code)
	case !reply.delayed(r.Context(), s.done):
		return
	case r.URL.Path == CompletionsPath:
		reply.streamText(r.Context(), w, req)
	case !req.Stream || reply.notStreamed:
		writeCompletion(w, req, reply)
	default:
		reply.stream(r.Context(), s.done, w, req)
	}
}

// defaultErrorType returns OpenAI's error type and code for a status.
func defaultErrorType(status int) (string, string) {
	switch {
	case status == http.StatusUnauthorized:
		return "invalid_request_error", "invalid_api_key"
	case status == http.StatusNotFound:
		return "invalid_request_error", "model_not_found"
	case status == http.StatusTooManyRequests:
		return "requests", "rate_limit_exceeded"
	case status >= 500:
		return "server_error", ""
	default:
		return "invalid_request_error", ""
	}
}

func writeError(w http.ResponseWriter, status int, header http.Header, message, typ, code string) {
	for k, vs := range header {
		w.Header()[k] = vs
	}
	var codeVal any
	if code != "" {
		codeVal = code
	}
	body, _ := json.Marshal(map[string]any{"error": map[string]any{
		"message": message, "type": typ, "param": nil, "code": codeVal}})
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(body)
}

// writeCompletion answers a non-streaming request with one JSON object.
func writeCompletion(w http.ResponseWriter, req *ChatRequest, reply Reply) {
	p := reply.render(req)
	type call struct {
		ID       string `json:"id"`
		Type     string `json:"type"`
		Function struct {
			Name      string `json:"name"`
			Arguments string `json:"arguments"`
		} `json:"function"`
	}
	msg := map[string]any{"role": "assistant", "content": reply.text}
	if len(reply.calls) > 0 {
		calls := make([]call, len(reply.calls))
		for i, c := range reply.calls {
			calls[i].ID, calls[i].Type = c.ID, "function"
			calls[i].Function.Name, calls[i].Function.Arguments = c.Name, c.Args
		}
		msg["tool_calls"] = calls
	}
	u := reply.usage
	if u == nil {
		u = reply.estimateUsage(req)
	}
	out := map[string]any{
		"id": p.finish.ID, "object": "chat.completion", "created": p.finish.Created, "model": req.Model,
		"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": *p.finish.Choices[0].FinishReason}},
		"usage":   u,
	}
	var buf bytes.Buffer
	json.NewEncoder(&buf).Encode(out)
	w.Header().Set("Content-Type", "application/json")
	w.Write(buf.Bytes())
}
