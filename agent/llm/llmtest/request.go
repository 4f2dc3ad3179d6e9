package llmtest

import (
	"encoding/json"
	"net/http"
	"strings"
	"time"
)

// ChatRequest is a decoded chat-completions request body, as the scripted
// server saw it. Scripts decide their reply from it; tests assert on it via
// Server.Requests. Raw keeps the exact body so tests can check fields this
// struct does not decode (for example that "parameters" is never null).
type ChatRequest struct {
	Model               string          `json:"model"`
	Messages            []Message       `json:"messages"`
	Tools               []Tool          `json:"tools,omitempty"`
	ToolChoice          json.RawMessage `json:"tool_choice,omitempty"`
	ParallelToolCalls   *bool           `json:"parallel_tool_calls,omitempty"`
	Stream              bool            `json:"stream"`
	StreamOptions       *StreamOptions  `json:"stream_options,omitempty"`
	MaxTokens           int             `json:"max_tokens,omitempty"`
	MaxCompletionTokens int             `json:"max_completion_tokens,omitempty"`
	Temperature         *float64        `json:"temperature,omitempty"`
	// Prompt and Suffix are the fields of a text completion request
	// (POST /v1/completions, fill-in-the-middle); Suffix is nil when the
	// request had no "suffix" field.
	Prompt string   `json:"prompt,omitempty"`
	Suffix *string  `json:"suffix,omitempty"`
	Stop   []string `json:"stop,omitempty"`

	Raw    json.RawMessage `json:"-"` // the request body as received
	Header http.Header     `json:"-"` // request headers (Authorization included)
	Seq    int             `json:"-"` // 0-based arrival order on this server
}

// StreamOptions mirrors OpenAI's stream_options.
type StreamOptions struct {
	IncludeUsage bool `json:"include_usage"`
}

// Tool is one function definition offered to the model.
type Tool struct {
	Type     string   `json:"type"`
	Function Function `json:"function"`
}

// Function is a tool's definition; Parameters is kept raw so a test can see
// exactly what was sent (including a literal null).
type Function struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Parameters  json.RawMessage `json:"parameters"`
	Strict      bool            `json:"strict,omitempty"`
}

// Message is one conversation message. Content holds the text whether the
// client sent a string or an array of content parts (text parts joined).
type Message struct {
	Role       string          `json:"role"`
	Content    string          `json:"-"`
	Name       string          `json:"name,omitempty"`
	ToolCalls  []CallMessage   `json:"tool_calls,omitempty"`
	ToolCallID string          `json:"tool_call_id,omitempty"`
	RawContent json.RawMessage `json:"content,omitempty"`
}

// CallMessage is a tool call inside an assistant message of the history.
type CallMessage struct {
	ID       string `json:"id"`
	Type     string `json:"type"`
	Function struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

// UnmarshalJSON decodes a message, flattening content parts into Content.
func (m *Message) UnmarshalJSON(data []byte) error {
	type plain Message
	var p plain
	if err := json.Unmarshal(data, &p); err != nil {
		return err
	}
	*m = Message(p)
	m.Content = contentText(p.RawContent)
	return nil
}

// contentText turns a "content" value (string, array of parts, or null)
// into plain text.
func contentText(raw json.RawMessage) string {
	if len(raw) == 0 || string(raw) == "null" {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if json.Unmarshal(raw, &parts) == nil {
		var b strings.Builder
		for _, p := range parts {
			b.WriteString(p.Text)
		}
		return b.String()
	}
	return string(raw)
}

// RecordedRequest is one request received by the server, with when it
// arrived (use Time to check backoff and Retry-After without sleeping).
type RecordedRequest struct {
	ChatRequest
	Method string
	Path   string
	Time   time.Time
	// Ended is when the server finished answering (zero while it still
	// is), and Disconnected whether the client went away first: a request
	// the client aborted (context cancelled) ends disconnected.
	Ended        time.Time
	Disconnected bool
}

// IsCompletion reports whether the request went to /v1/completions.
func (r RecordedRequest) IsCompletion() bool { return r.Path == CompletionsPath }

// Last returns the last message of the conversation (zero Message if none).
func (r *ChatRequest) Last() Message {
	if len(r.Messages) == 0 {
		return Message{}
	}
	return r.Messages[len(r.Messages)-1]
}

// LastUser returns the content of the last user message ("" if none).
func (r *ChatRequest) LastUser() string {
	for i := len(r.Messages) - 1; i >= 0; i-- {
		if r.Messages[i].Role == "user" {
			return r.Messages[i].Content
		}
	}
	return ""
}

// System returns the content of the first system (or developer) message.
func (r *ChatRequest) System() string {
	for _, m := range r.Messages {
		if m.Role == "system" || m.Role == "developer" {
			return m.Content
		}
	}
	return ""
}

// ToolResult returns the content of the tool message answering callID.
func (r *ChatRequest) ToolResult(callID string) (string, bool) {
	for _, m := range r.Messages {
		if m.Role == "tool" && m.ToolCallID == callID {
			return m.Content, true
		}
	}
	return "", false
}

// HasToolResult reports whether the conversation holds a tool message
// answering callID; the usual branch in a multi-turn script.
func (r *ChatRequest) HasToolResult(callID string) bool {
	_, ok := r.ToolResult(callID)
	return ok
}

// ToolResults returns every tool message in order.
func (r *ChatRequest) ToolResults() []Message {
	var out []Message
	for _, m := range r.Messages {
		if m.Role == "tool" {
			out = append(out, m)
		}
	}
	return out
}

// Turns counts the assistant messages in the history: 0 on the first model
// call of a run, 1 after one round of tool calls, and so on.
func (r *ChatRequest) Turns() int { return r.Count("assistant") }

// Count returns how many messages have the given role.
func (r *ChatRequest) Count(role string) int {
	n := 0
	for _, m := range r.Messages {
		if m.Role == role {
			n++
		}
	}
	return n
}

// HasTool reports whether a tool with this name was offered.
func (r *ChatRequest) HasTool(name string) bool {
	for _, t := range r.Tools {
		if t.Function.Name == name {
			return true
		}
	}
	return false
}

// ToolNames lists the offered tools' names in request order.
func (r *ChatRequest) ToolNames() []string {
	names := make([]string, 0, len(r.Tools))
	for _, t := range r.Tools {
		names = append(names, t.Function.Name)
	}
	return names
}

// Contains reports whether any message's content (or tool-call arguments)
// contains substr.
func (r *ChatRequest) Contains(substr string) bool {
	for _, m := range r.Messages {
		if strings.Contains(m.Content, substr) {
			return true
		}
		for _, c := range m.ToolCalls {
			if strings.Contains(c.Function.Arguments, substr) {
				return true
			}
		}
	}
	return false
}

// WantsUsage reports whether the client asked for a final usage chunk.
func (r *ChatRequest) WantsUsage() bool {
	return r.StreamOptions != nil && r.StreamOptions.IncludeUsage
}
