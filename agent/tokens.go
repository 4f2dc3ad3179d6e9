package agent

import (
	"sync"

	"github.com/agentls/agentls/agent/llm"
	tiktoken "github.com/pkoukk/tiktoken-go"
	tiktokenloader "github.com/pkoukk/tiktoken-go-loader"
)

// encodingName is the BPE used for counting. o200k_base is the tokenizer of
// current OpenAI models; for other providers it is a close estimate, which
// is all compaction and budgets need.
const encodingName = "o200k_base"

// loadEncoding builds the tokenizer once per process: the BPE table is
// about 200k entries of immutable data, too costly to rebuild per run. The
// tables ship inside tiktoken-go-loader, so nothing is downloaded.
var loadEncoding = sync.OnceValues(func() (*tiktoken.Tiktoken, error) {
	tiktoken.SetBpeLoader(tiktokenloader.NewOfflineLoader())
	return tiktoken.GetEncoding(encodingName)
})

// Counter counts tokens for compaction decisions, token budgets when the
// provider reports no usage, and prompt-size checks. It is safe for
// concurrent use.
type Counter struct {
	enc *tiktoken.Tiktoken // nil: estimate from length
}

// NewCounter returns a counter using the offline o200k_base tokenizer, or a
// length-based estimate (4 bytes a token) if the tables cannot be loaded.
func NewCounter() *Counter {
	enc, err := loadEncoding()
	if err != nil {
		return &Counter{}
	}
	return &Counter{enc: enc}
}

// Count returns the number of tokens in s.
func (c *Counter) Count(s string) int {
	if s == "" {
		return 0
	}
	if c == nil || c.enc == nil {
		return (len(s) + 3) / 4
	}
	return len(c.enc.EncodeOrdinary(s))
}

// perMessage approximates the chat-format framing each message costs
// (role, separators), as OpenAI documents for its chat models.
const perMessage = 4

// Message returns the tokens one chat message costs in a request.
func (c *Counter) Message(m llm.Message) int {
	n := perMessage + c.Count(m.Content) + c.Count(m.Name)
	for _, p := range m.MultiContent {
		n += c.Count(p.Text)
	}
	for _, tc := range m.ToolCalls {
		n += perMessage + c.Count(tc.Function.Name) + c.Count(tc.Function.Arguments)
	}
	return n
}

// Tools returns the tokens the tool definitions cost in a request.
func (c *Counter) Tools(defs []llm.ToolDef) int {
	n := 0
	for _, d := range defs {
		n += 8 + c.Count(d.Name) + c.Count(d.Description) + c.Count(string(d.Parameters))
	}
	return n
}
