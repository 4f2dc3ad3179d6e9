package agent

import (
	"fmt"

	"github.com/agentls/agentls/agent/llm"
	openai "github.com/sashabaranov/go-openai"
)

// msgKind tells compaction what a message is allowed to become.
type msgKind int

const (
	kindNormal  msgKind = iota // compactable turn content
	kindSystem                 // the system prompt: never compacted
	kindTask                   // the user's task with editor context: never compacted
	kindSummary                // an LLM-written summary: never summarised again
)

// msgMeta is what the loop knows about each message beyond its text.
type msgMeta struct {
	kind      msgKind
	bytes     int    // upper bound of its tokens, always known
	tokens    int    // exact count; valid when counted
	counted   bool   // tokens is valid
	tool      string // tool messages: the tool's name
	compacted bool   // tool result replaced by a placeholder
}

// conversation is the message list sent to the model. Token counts are
// computed lazily and cached per message: a BPE token is at least one
// byte, so while the byte total stays under a limit no tokenising is
// needed at all, and once it is needed each message is counted once.
type conversation struct {
	msgs    []llm.Message
	meta    []msgMeta
	bytes   int // sum of meta.bytes
	counter *Counter
}

func newConversation(counter *Counter) *conversation { return &conversation{counter: counter} }

// messageBytes bounds the tokens of m from above (see Counter.Message).
func messageBytes(m llm.Message) int {
	n := perMessage + len(m.Content) + len(m.Name)
	for _, p := range m.MultiContent {
		n += len(p.Text)
	}
	for _, tc := range m.ToolCalls {
		n += perMessage + len(tc.Function.Name) + len(tc.Function.Arguments)
	}
	return n
}

func (c *conversation) add(m llm.Message, kind msgKind, tool string) {
	b := messageBytes(m)
	c.msgs = append(c.msgs, m)
	c.meta = append(c.meta, msgMeta{kind: kind, bytes: b, tool: tool})
	c.bytes += b
}

// setContent rewrites message i's text.
func (c *conversation) setContent(i int, content string) {
	c.msgs[i].Content = content
	b := messageBytes(c.msgs[i])
	c.bytes += b - c.meta[i].bytes
	c.meta[i].bytes, c.meta[i].counted = b, false
}

// replace swaps msgs[from:to] for the given messages (compaction).
func (c *conversation) replace(from, to int, msgs []llm.Message, meta []msgMeta) {
	for i := from; i < to; i++ {
		c.bytes -= c.meta[i].bytes
	}
	for i := range meta {
		meta[i].bytes = messageBytes(msgs[i])
		c.bytes += meta[i].bytes
	}
	c.msgs = append(c.msgs[:from:from], append(msgs, c.msgs[to:]...)...)
	c.meta = append(c.meta[:from:from], append(meta, c.meta[to:]...)...)
}

// upperBound is a cheap bound on tokens() (never below it).
func (c *conversation) upperBound() int { return c.bytes }

// tokens is the exact counted size of all messages.
func (c *conversation) tokens() int {
	total := 0
	for i := range c.meta {
		total += c.tokensAt(i)
	}
	return total
}

// tokensAt counts message i, once.
func (c *conversation) tokensAt(i int) int {
	m := &c.meta[i]
	if !m.counted {
		m.tokens, m.counted = c.counter.Message(c.msgs[i]), true
	}
	return m.tokens
}

// snapshot returns a copy of the messages for a request, so that later
// compaction cannot alter what a model call is still reading.
func (c *conversation) snapshot() []llm.Message {
	out := make([]llm.Message, len(c.msgs))
	copy(out, c.msgs)
	return out
}

// assistantMessage turns a model response into the history entry. Calls
// whose arguments were not valid JSON are recorded with "{}" so that the
// next request is still valid for strict providers; the tool result quotes
// what the model sent.
func assistantMessage(resp llm.Response, calls []llm.ToolCall) llm.Message {
	m := llm.Message{Role: openai.ChatMessageRoleAssistant, Content: resp.Text}
	for _, tc := range calls {
		args := tc.Args
		if tc.ArgsErr != nil || args == "" {
			args = "{}"
		}
		m.ToolCalls = append(m.ToolCalls, openai.ToolCall{
			ID:       tc.ID,
			Type:     openai.ToolTypeFunction,
			Function: openai.FunctionCall{Name: tc.Name, Arguments: args},
		})
	}
	return m
}

// normaliseCalls gives every call an id (some servers send none) that is
// unique within the turn, so each tool message can be tied to its call.
func normaliseCalls(turn int, calls []llm.ToolCall) []llm.ToolCall {
	out := make([]llm.ToolCall, len(calls))
	seen := map[string]bool{}
	for i, tc := range calls {
		if tc.ID == "" || seen[tc.ID] {
			tc.ID = fmt.Sprintf("call_%d_%d", turn, i)
		}
		seen[tc.ID] = true
		out[i] = tc
	}
	return out
}
