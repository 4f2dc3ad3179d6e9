package llm

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strings"

	openai "github.com/sashabaranov/go-openai"
)

// emptySchema is sent for tools without parameters: go-openai would send
// "parameters": null, which strict providers reject.
var emptySchema = json.RawMessage(`{"type":"object","properties":{}}`)

// buildRequest turns a Request into go-openai's request. It never mutates
// req. Errors are *Error of kind BadRequest: the request cannot be sent.
func (c *Client) buildRequest(req Request) (openai.ChatCompletionRequest, error) {
	if len(req.Messages) == 0 {
		return openai.ChatCompletionRequest{}, &Error{Kind: BadRequest, Message: "the model request has no messages"}
	}
	out := openai.ChatCompletionRequest{
		Model:         c.cfg.Model,
		Messages:      normalizeMessages(req.Messages),
		StreamOptions: &openai.StreamOptions{IncludeUsage: true},
	}
	for _, t := range req.Tools {
		params, err := toolSchema(t)
		if err != nil {
			return openai.ChatCompletionRequest{}, &Error{Kind: BadRequest, Message: err.Error(), Err: err}
		}
		out.Tools = append(out.Tools, openai.Tool{Type: openai.ToolTypeFunction, Function: &openai.FunctionDefinition{
			Name: t.Name, Description: t.Description, Parameters: params,
		}})
	}
	reasoning := isReasoningModel(c.cfg.Model)
	if n := c.cfg.MaxOutputTokens; n > 0 {
		if reasoning {
			out.MaxCompletionTokens = n
		} else {
			// max_tokens is what most OpenAI-compatible servers (Ollama,
			// vLLM, llama.cpp, OpenRouter) understand.
			//lint:ignore SA1019 deliberate: max_completion_tokens is not widely supported
			out.MaxTokens = n
		}
	}
	// Reasoning models accept only the default temperature (go-openai
	// refuses anything else before sending), so it is left out for them.
	if t := c.cfg.Temperature; t != nil && !reasoning {
		out.Temperature = *t
		if *t == 0 {
			// "temperature" is omitempty in go-openai: 0 would not be sent
			// and the provider default (often 1) would apply instead.
			out.Temperature = math.SmallestNonzeroFloat32
		}
	}
	return out, nil
}

// isReasoningModel applies go-openai's own test (reasoning_validator.go):
// these names must use max_completion_tokens and the default temperature.
// Provider-prefixed names ("openai/o3") are not matched, just as the
// library does not match them, and get the widely supported max_tokens.
func isReasoningModel(model string) bool {
	for _, p := range []string{"o1", "o3", "o4", "gpt-5"} {
		if strings.HasPrefix(model, p) {
			return true
		}
	}
	return false
}

// toolSchema returns the parameters schema to send for t.
func toolSchema(t ToolDef) (json.RawMessage, error) {
	if t.Name == "" {
		return nil, fmt.Errorf("a tool definition has no name")
	}
	p := bytes.TrimSpace(t.Parameters)
	if len(p) == 0 || string(p) == "null" {
		return emptySchema, nil
	}
	if !json.Valid(p) || p[0] != '{' {
		return nil, fmt.Errorf("tool %q: parameters must be a JSON schema object, got %s", t.Name, preview(string(p)))
	}
	return json.RawMessage(p), nil
}

// normalizeMessages copies msgs, giving tool calls in the history the type
// "function" when the caller left it empty (go-openai would send "type": "").
func normalizeMessages(msgs []Message) []Message {
	out := make([]Message, len(msgs))
	copy(out, msgs)
	for i := range out {
		calls := out[i].ToolCalls
		for j := range calls {
			if calls[j].Type == "" || calls[j].Index != nil {
				fixed := make([]openai.ToolCall, len(calls))
				copy(fixed, calls)
				for k := range fixed {
					if fixed[k].Type == "" {
						fixed[k].Type = openai.ToolTypeFunction
					}
					fixed[k].Index = nil // only valid in stream chunks
				}
				out[i].ToolCalls = fixed
				break
			}
		}
	}
	return out
}

// Message turns the assembled turn into the assistant message to append to
// the conversation. Calls whose arguments were invalid are recorded with
// "{}" (and a nameless call as "unnamed_tool") so the next request stays
// valid; the tool result tells the model what was wrong.
func (r Response) Message() Message {
	m := Message{Role: openai.ChatMessageRoleAssistant, Content: r.Text}
	for _, tc := range r.ToolCalls {
		args, name := tc.Args, tc.Name
		if tc.ArgsErr != nil {
			args = "{}"
		}
		if name == "" {
			name = "unnamed_tool" // providers reject an empty function name in the history
		}
		m.ToolCalls = append(m.ToolCalls, openai.ToolCall{ID: tc.ID, Type: openai.ToolTypeFunction,
			Function: openai.FunctionCall{Name: name, Arguments: args}})
	}
	return m
}
