package llmtest

import (
	"bytes"
	"fmt"
	"regexp"
	"strings"
)

// toolNameRE is OpenAI's rule for function names.
var toolNameRE = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)

// validate applies the checks OpenAI makes on a chat request (message order
// around tool calls, tool definitions) and returns a message in OpenAI's
// words, or "" when the request is acceptable. Catching these here makes an
// agent-loop bug fail in tests instead of against a real provider.
func validate(req *ChatRequest) string {
	if req.Model == "" {
		return "you must provide a model parameter"
	}
	if len(req.Messages) == 0 {
		return "'messages' must contain at least one message"
	}
	seen := map[string]bool{}
	for i, t := range req.Tools {
		name := t.Function.Name
		switch {
		case t.Type != "function":
			return fmt.Sprintf("tools[%d].type must be 'function', got %q", i, t.Type)
		case !toolNameRE.MatchString(name):
			return fmt.Sprintf("Invalid 'tools[%d].function.name': string does not match pattern '^[a-zA-Z0-9_-]{1,64}$' (got %q)", i, name)
		case seen[name]:
			return fmt.Sprintf("tools[%d]: duplicate function name %q", i, name)
		}
		seen[name] = true
		params := bytes.TrimSpace(t.Function.Parameters)
		if len(params) > 0 && params[0] != '{' {
			return fmt.Sprintf("Invalid schema for function %q: parameters must be a JSON schema object, got %s", name, params)
		}
	}
	// pending holds the call ids of the last assistant message that still
	// need a tool message; open is true while only tool messages have
	// followed it.
	var pending []string
	open := false
	for i, m := range req.Messages {
		switch m.Role {
		case "system", "developer", "user", "assistant", "tool":
		default:
			return fmt.Sprintf("Invalid value for 'messages[%d].role': %q", i, m.Role)
		}
		if m.Role == "tool" {
			if !open {
				return fmt.Sprintf("Invalid parameter: messages with role 'tool' must be a response to a preceding message with 'tool_calls' (messages[%d])", i)
			}
			k := indexOf(pending, m.ToolCallID)
			if k < 0 {
				return fmt.Sprintf("Invalid parameter: messages[%d] has tool_call_id %q which does not answer a pending tool call", i, m.ToolCallID)
			}
			pending = append(pending[:k], pending[k+1:]...)
			continue
		}
		if len(pending) > 0 {
			return fmt.Sprintf("An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: %s",
				strings.Join(pending, ", "))
		}
		open = false
		if m.Role == "assistant" && len(m.ToolCalls) > 0 {
			open = true
			for _, c := range m.ToolCalls {
				if c.ID == "" {
					return fmt.Sprintf("messages[%d].tool_calls: a tool call has an empty id", i)
				}
				pending = append(pending, c.ID)
			}
		}
	}
	if len(pending) > 0 {
		return fmt.Sprintf("An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: %s",
			strings.Join(pending, ", "))
	}
	return ""
}

func indexOf(xs []string, x string) int {
	for i, v := range xs {
		if v == x {
			return i
		}
	}
	return -1
}
