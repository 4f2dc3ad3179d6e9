package agent

import (
	"github.com/agentls/agentls/agent/llm"
	openai "github.com/sashabaranov/go-openai"
)

// HistoryMessage is one message of a session's conversation as it is kept
// between runs (and saved with the session).
type HistoryMessage struct {
	Message llm.Message `json:"message"`
	// Summary marks an LLM-written summary of older turns: it is never
	// summarised again.
	Summary bool `json:"summary,omitempty"`
}

func (h HistoryMessage) kind() msgKind {
	if h.Summary {
		return kindSummary
	}
	return kindNormal
}

// toolName finds the tool a tool message answers, for compaction's
// placeholders.
func toolName(m llm.Message, all []HistoryMessage) string {
	if m.Role != openai.ChatMessageRoleTool {
		return ""
	}
	for _, h := range all {
		for _, tc := range h.Message.ToolCalls {
			if tc.ID == m.ToolCallID {
				return tc.Function.Name
			}
		}
	}
	return ""
}

// history is the conversation for Outcome.History: everything but the
// system prompt. Earlier tasks become ordinary (compactable) messages in
// the next run.
func (r *runner) history() []HistoryMessage {
	if r.role != roleMain || r.conv == nil {
		return nil
	}
	var out []HistoryMessage
	for i, m := range r.conv.msgs {
		if r.conv.meta[i].kind == kindSystem {
			continue
		}
		out = append(out, HistoryMessage{Message: m, Summary: r.conv.meta[i].kind == kindSummary})
	}
	return out
}

// CarryHistory prepares a run's conversation for the session's next run:
// it starts at the latest summary when there is one (what came before is
// in it; a summary must not be summarised again), drops a trailing
// assistant message whose tool calls have no results (a cancelled or
// failed run), and keeps at most maxBytes of the newest messages, cut at
// a user message so that no tool-call chain is split. maxBytes <= 0 means
// no bound.
func CarryHistory(h []HistoryMessage, maxBytes int) []HistoryMessage {
	start := 0
	for i, m := range h {
		if m.Summary {
			start = i
		}
	}
	h = h[start:]
	h = completeChains(h)
	if maxBytes <= 0 {
		return h
	}
	total := 0
	for i := len(h) - 1; i >= 0; i-- {
		total += messageBytes(h[i].Message)
		if total > maxBytes {
			// Keep from the first user message after i.
			for j := i + 1; j < len(h); j++ {
				if h[j].Message.Role == openai.ChatMessageRoleUser {
					return h[j:]
				}
			}
			return nil
		}
	}
	return h
}

// completeChains cuts h before the last assistant message whose tool
// calls are not all answered by the tool messages that follow it.
func completeChains(h []HistoryMessage) []HistoryMessage {
	for i := len(h) - 1; i >= 0; i-- {
		m := h[i].Message
		if m.Role != openai.ChatMessageRoleAssistant || len(m.ToolCalls) == 0 {
			continue
		}
		answered := map[string]bool{}
		for _, t := range h[i+1:] {
			if t.Message.Role == openai.ChatMessageRoleTool {
				answered[t.Message.ToolCallID] = true
			}
		}
		for _, tc := range m.ToolCalls {
			if !answered[tc.ID] {
				return h[:i]
			}
		}
		return h
	}
	return h
}
