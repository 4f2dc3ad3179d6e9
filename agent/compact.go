package agent

import (
	"context"
	"fmt"
	"strings"

	"github.com/agentls/agentls/agent/llm"
	openai "github.com/sashabaranov/go-openai"
)

// Compaction keeps the request inside the model's window, cheapest first:
//
//  1. When the conversation plus tool schemas exceeds CompactAt of the
//     window, every tool result but the latest KeepToolResults is replaced
//     by a one-line placeholder (the call stays, so call/result pairs are
//     intact and the model knows it can call again).
//  2. If that is not enough, the older rounds are replaced by one
//     LLM-written summary with fixed sections; the latest rounds (up to
//     KeepRecentRounds, within half the threshold) stay whole. A round
//     starts at an assistant message and includes its tool results, so a
//     call is never separated from its result.
//  3. If the latest round alone is still too big (many parallel results),
//     its tool results are truncated further to share the room left.
//
// A single result cannot exceed about a quarter of the window in the
// first place (Limits.MaxOutputBytes is lowered for small windows).
//
// The system prompt and the task message are never compacted. A summary is
// never summarised again: a later summarisation only covers the messages
// after the last summary, and older summaries are kept verbatim in order
// (they sit together after the task message). If the summary request fails
// for any reason but cancellation, a mechanical summary (the list of calls
// made and the assistant's notes) is used instead, so the run goes on.

// summaryHeader starts every summary message; the loop also marks them in
// msgMeta, which is what compaction trusts.
const summaryHeader = "[agentls: summary of earlier turns; the original messages were removed to save context]\n"

const summaryInstructions = `You compress the history of a coding agent's work so it can continue with less context. Write a concise summary with exactly these sections:
## Goal and status
## Decisions
## Files touched (path: what was read or changed)
## Remaining work
## User constraints
Keep file paths, identifiers, error messages and numbers exact. Do not invent anything. At most 400 words.`

// maxRenderedMessage caps each message shown to the summariser.
const maxRenderedMessage = 2000

func placeholder(tool string) string {
	return fmt.Sprintf("[agentls: this earlier %s result was removed to save context; call the tool again if you still need it]", tool)
}

// compact shrinks the conversation when it does not fit; toolTokens is
// what the tool schemas cost on top of the messages.
func (r *runner) compact(ctx context.Context, defs []llm.ToolDef) error {
	limit := int(float64(r.limits.ContextWindow) * r.limits.CompactAt)
	if r.conv.upperBound()+toolBytes(defs) <= limit {
		return nil // cannot be over: no need to count
	}
	toolTokens := r.toolTokens(defs)
	if r.conv.tokens()+toolTokens <= limit {
		return nil
	}
	before := r.conv.tokens()
	n := r.placeholderOldResults()
	r.transcript.record("compaction", map[string]any{"layer": "placeholders", "replaced": n, "tokensBefore": before, "tokensAfter": r.conv.tokens()})
	if r.conv.tokens()+toolTokens <= limit {
		return nil
	}
	if err := r.summarise(ctx, limit-toolTokens); err != nil {
		return err
	}
	if r.conv.tokens()+toolTokens <= limit {
		return nil
	}
	// Last resort: the latest round alone is too big (many parallel
	// results). Cut its results to share what room is left.
	n = r.shrinkLastRound(limit - toolTokens)
	r.transcript.record("compaction", map[string]any{"layer": "shrink latest results", "shrunk": n, "tokensAfter": r.conv.tokens()})
	return nil
}

// shrinkLastRound truncates the tool results at the end of the
// conversation so that everything fits in target tokens: each gets an
// equal byte share (first guessed at 3 bytes a token, then corrected by
// the measured density), but never under 512 bytes. It returns how many
// results it cut.
func (r *runner) shrinkLastRound(target int) int {
	first := len(r.conv.msgs)
	for first > 0 && r.conv.msgs[first-1].Role == openai.ChatMessageRoleTool {
		first--
	}
	n := len(r.conv.msgs) - first
	if n == 0 {
		return 0
	}
	others := 0
	for i := 0; i < first; i++ {
		others += r.conv.tokensAt(i)
	}
	room := target - others
	each := max(512, room*3/n)
	cut := map[int]bool{}
	for range 4 {
		for i := first; i < len(r.conv.msgs); i++ {
			if len(r.conv.msgs[i].Content) > each {
				r.conv.setContent(i, truncateOutput(r.conv.msgs[i].Content, r.limits.MaxOutputLines, each))
				cut[i] = true
			}
		}
		used := r.conv.tokens() - others
		if used <= room || each == 512 {
			break
		}
		each = max(512, int(float64(each)*float64(room)/float64(used)*0.9))
	}
	return len(cut)
}

// toolBytes bounds the tokens of the tool definitions from above.
func toolBytes(defs []llm.ToolDef) int {
	n := 0
	for _, d := range defs {
		n += 8 + len(d.Name) + len(d.Description) + len(d.Parameters)
	}
	return n
}

// toolTokens counts the tool definitions, cached by their text (the set
// rarely changes between turns).
func (r *runner) toolTokens(defs []llm.ToolDef) int {
	n := 0
	for _, d := range defs {
		key := d.Name + "\x00" + d.Description + "\x00" + string(d.Parameters)
		c, ok := r.toolTokCache[key]
		if !ok {
			c = r.counter.Tools([]llm.ToolDef{d})
			r.toolTokCache[key] = c
		}
		n += c
	}
	return n
}

// placeholderOldResults replaces all tool results but the latest
// KeepToolResults; it returns how many it replaced.
func (r *runner) placeholderOldResults() int { return r.placeholderResults(r.limits.KeepToolResults) }

// placeholderResults replaces all tool results but the latest keep.
func (r *runner) placeholderResults(keep int) int {
	kept, replaced := 0, 0
	for i := len(r.conv.msgs) - 1; i >= 0; i-- {
		m := &r.conv.meta[i]
		if r.conv.msgs[i].Role != openai.ChatMessageRoleTool || m.kind != kindNormal {
			continue
		}
		if kept < keep {
			kept++
			continue
		}
		if m.compacted {
			continue
		}
		r.conv.setContent(i, placeholder(m.tool))
		m.compacted = true
		replaced++
	}
	return replaced
}

// summarise replaces the rounds between the last summary and the kept
// recent rounds with one summary message.
func (r *runner) summarise(ctx context.Context, target int) error {
	start := r.firstCompactable()
	split := r.recentSplit(start, target/2)
	if t := r.lastTask(); t > start && split > t {
		// A follow-up run: summarise the earlier conversation first, never
		// past the current task.
		split = t
	}
	if split <= start {
		r.transcript.record("compaction", map[string]any{"layer": "summary", "skipped": "nothing old enough to summarise"})
		return nil
	}
	head := r.conv.msgs[start:split]
	text, err := r.requestSummary(ctx, head, target)
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		r.log.Warn("summary request failed; using a mechanical summary", "err", err)
		r.transcript.record("error", map[string]any{"where": "summary", "error": err.Error()})
		text = mechanicalSummary(head)
	}
	msg := llm.Message{Role: openai.ChatMessageRoleUser, Content: summaryHeader + strings.TrimSpace(text)}
	if todos := r.todos.get(); len(todos) > 0 {
		// The plan may have been in the summarised turns only: restate it
		// so a long run does not forget it.
		msg.Content += "\n\n## Current plan (your todo_write list; keep it up to date)\n" + planText(todos)
	}
	before := r.conv.tokens()
	r.conv.replace(start, split, []llm.Message{msg}, []msgMeta{{kind: kindSummary}})
	r.transcript.record("compaction", map[string]any{"layer": "summary", "messages": split - start, "tokensBefore": before, "tokensAfter": r.conv.tokens(), "summary": msg.Content})
	return nil
}

// lastTask is the index of the current task message.
func (r *runner) lastTask() int {
	for i := len(r.conv.meta) - 1; i >= 0; i-- {
		if r.conv.meta[i].kind == kindTask {
			return i
		}
	}
	return -1
}

// firstCompactable is the first message that is neither system, task nor
// summary (summaries always follow the task message).
func (r *runner) firstCompactable() int {
	i := 0
	for i < len(r.conv.meta) && r.conv.meta[i].kind != kindNormal {
		i++
	}
	return i
}

// recentSplit returns the index where the kept recent rounds begin: rounds
// are taken from the end while they number at most KeepRecentRounds and
// their tokens stay within budget; the latest round is always kept. Splits
// fall only on round starts (an assistant or user message), never between
// a tool call and its results.
func (r *runner) recentSplit(start, budget int) int {
	split, rounds, tokens := len(r.conv.msgs), 0, 0
	for i := len(r.conv.msgs) - 1; i >= start; i-- {
		tokens += r.conv.tokensAt(i)
		if r.conv.msgs[i].Role == openai.ChatMessageRoleTool {
			continue
		}
		// msgs[i:] is a whole number of rounds.
		if rounds > 0 && (rounds >= r.limits.KeepRecentRounds || tokens > budget) {
			break
		}
		split, rounds = i, rounds+1
	}
	return split
}

// requestSummary asks the model, without tools, for the sectioned summary.
func (r *runner) requestSummary(ctx context.Context, head []llm.Message, target int) (string, error) {
	rendered := renderForSummary(head, target*3) // ~3 bytes a token keeps the request well under the window
	task := r.conv.msgs[1].Content
	req := llm.Request{Messages: []llm.Message{
		{Role: openai.ChatMessageRoleSystem, Content: summaryInstructions},
		{Role: openai.ChatMessageRoleUser, Content: "The task:\n" + cutUTF8(task, 4000) + "\n\nThe conversation so far:\n" + rendered},
	}}
	promptTokens := func() int {
		n := 0
		for _, m := range req.Messages {
			n += r.counter.Message(m)
		}
		return n
	}
	resp, err := r.model.Stream(ctx, req, func(llm.Delta) {})
	if err != nil {
		return "", err
	}
	u := r.account(ctx, resp, promptTokens)
	r.transcript.record("summary_response", map[string]any{"text": resp.Text, "usage": u})
	if strings.TrimSpace(resp.Text) == "" {
		return "", fmt.Errorf("the model returned an empty summary")
	}
	return resp.Text, nil
}

// renderForSummary writes messages as plain text (no tool-call structure,
// so the summary request is valid without tools), each capped, keeping the
// newest when the whole exceeds maxBytes.
func renderForSummary(msgs []llm.Message, maxBytes int) string {
	parts := make([]string, 0, len(msgs))
	for _, m := range msgs {
		var b strings.Builder
		switch m.Role {
		case openai.ChatMessageRoleTool:
			fmt.Fprintf(&b, "[tool result %s]\n%s", m.ToolCallID, capText(m.Content, maxRenderedMessage))
		default:
			fmt.Fprintf(&b, "[%s]\n%s", m.Role, capText(m.Content, maxRenderedMessage))
			for _, tc := range m.ToolCalls {
				fmt.Fprintf(&b, "\n[call %s %s %s]", tc.ID, tc.Function.Name, capText(tc.Function.Arguments, 500))
			}
		}
		parts = append(parts, b.String())
	}
	total, from := 0, len(parts)
	for from > 0 && total+len(parts[from-1]) <= maxBytes {
		from--
		total += len(parts[from]) + 2
	}
	out := strings.Join(parts[from:], "\n\n")
	if from > 0 {
		out = fmt.Sprintf("[%d older messages omitted]\n\n", from) + out
	}
	return out
}

func capText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return cutUTF8(s, n) + fmt.Sprintf(" […%d bytes more]", len(s)-n)
}

// mechanicalSummary is the fallback when the model cannot summarise: the
// calls made and the assistant's own words, compactly.
func mechanicalSummary(msgs []llm.Message) string {
	var b strings.Builder
	b.WriteString("(automatic summary: the summariser failed)\n")
	for _, m := range msgs {
		if m.Role != openai.ChatMessageRoleAssistant {
			continue
		}
		if t := strings.TrimSpace(m.Content); t != "" {
			fmt.Fprintf(&b, "- said: %s\n", capText(firstLine(t, 300), 300))
		}
		for _, tc := range m.ToolCalls {
			fmt.Fprintf(&b, "- called %s %s\n", tc.Function.Name, capText(tc.Function.Arguments, 200))
		}
	}
	return b.String()
}
