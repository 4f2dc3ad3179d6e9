package acpserver

import (
	"context"
	"fmt"
	"strings"

	acp "github.com/coder/acp-go-sdk"
	openai "github.com/sashabaranov/go-openai"

	"github.com/agentls/agentls/internal/text"
)

// replay sends the saved conversation as session/update notifications
// (session/load): the user's prompts as user_message_chunk, the agent's
// text as agent_message_chunk, its tool calls as completed tool calls
// with their results. What agentls added to a prompt for the model (the
// follow-up about earlier runs, editor context, attachments) is left out;
// a compaction summary shows as the agent's thought.
func (ss *session) replay(ctx context.Context) {
	open := map[string]acp.ToolCallId{}
	for i, h := range ss.core.History() {
		m := h.Message
		switch {
		case h.Summary:
			ss.update(ctx, acp.UpdateAgentThoughtText(m.Content))
		case m.Role == openai.ChatMessageRoleUser:
			if t := userText(m.Content); t != "" {
				ss.update(ctx, acp.UpdateUserMessageText(t))
			}
		case m.Role == openai.ChatMessageRoleAssistant:
			if strings.TrimSpace(m.Content) != "" {
				ss.update(ctx, acp.UpdateAgentMessageText(m.Content))
			}
			for _, tc := range m.ToolCalls {
				id := acp.ToolCallId(fmt.Sprintf("history-%d:%s", i, tc.ID))
				open[tc.ID] = id
				args := []byte(tc.Function.Arguments)
				opts := []acp.ToolCallStartOpt{acp.WithStartKind(toolKind(tc.Function.Name)), acp.WithStartStatus(acp.ToolCallStatusCompleted)}
				if locs := ss.toolLocations(args); len(locs) > 0 {
					opts = append(opts, acp.WithStartLocations(locs))
				}
				ss.update(ctx, acp.StartToolCall(id, ss.toolTitle(tc.Function.Name, args), opts...))
			}
		case m.Role == openai.ChatMessageRoleTool:
			id, ok := open[m.ToolCallID]
			if !ok {
				continue
			}
			delete(open, m.ToolCallID)
			ss.update(ctx, acp.UpdateToolCall(id, acp.WithUpdateStatus(acp.ToolCallStatusCompleted),
				acp.WithUpdateContent([]acp.ToolCallContent{acp.ToolContent(acp.TextBlock(text.Clip(m.Content, 2000)))})))
		}
	}
}

// userText is the user's own words in a task message.
func userText(s string) string {
	if _, task, ok := strings.Cut(s, "\n\n## Your new task\n"); ok {
		s = task
	}
	for _, cut := range []string{attachmentsMarker, "\n\n<editor>\n"} {
		if i := strings.Index(s, cut); i >= 0 {
			s = s[:i]
		}
	}
	return strings.TrimSpace(s)
}
