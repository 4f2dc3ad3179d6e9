package llmtest

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"unicode/utf8"
)

// cutBeforeFinish is the cutAfter value set by Reply.Cut.
const cutBeforeFinish = -2

// keepaliveLine is what OpenRouter sends while a model is thinking.
const keepaliveLine = ": OPENROUTER PROCESSING\n\n"

// Wire shapes of the OpenAI streaming format. Pointers and explicit fields
// control exactly which keys appear.
type chunk struct {
	ID      string   `json:"id"`
	Object  string   `json:"object"`
	Created int64    `json:"created"`
	Model   string   `json:"model"`
	Choices []choice `json:"choices"`
	Usage   *usage   `json:"usage,omitempty"`
}

type choice struct {
	Index        int     `json:"index"`
	Delta        delta   `json:"delta"`
	FinishReason *string `json:"finish_reason"`
}

type delta struct {
	Role      string    `json:"role,omitempty"`
	Content   *string   `json:"content,omitempty"`
	ToolCalls []tcDelta `json:"tool_calls,omitempty"`
}

type tcDelta struct {
	Index    *int    `json:"index,omitempty"`
	ID       *string `json:"id,omitempty"`
	Type     string  `json:"type,omitempty"`
	Function fnDelta `json:"function"`
}

type fnDelta struct {
	Name      string          `json:"name,omitempty"`
	Arguments json.RawMessage `json:"arguments"`
}

type usage struct {
	PromptTokens     int            `json:"prompt_tokens"`
	CompletionTokens int            `json:"completion_tokens"`
	TotalTokens      int            `json:"total_tokens"`
	Details          *promptDetails `json:"prompt_tokens_details,omitempty"`
}

type promptDetails struct {
	CachedTokens int `json:"cached_tokens"`
}

// plan is a reply rendered into wire chunks.
type plan struct {
	content  []chunk // role, text and tool-call chunks
	finish   chunk
	usage    *chunk // nil: no usage chunk
	rawUsage string // the usage chunk's "usage" value, verbatim (Reply.RawUsage)
}

// render turns a Reply into the chunks to stream for req.
func (r Reply) render(req *ChatRequest) plan {
	base := chunk{ID: fmt.Sprintf("chatcmpl-llmtest-%d", req.Seq), Object: "chat.completion.chunk",
		Created: 1700000000, Model: req.Model}
	mk := func(d delta, finish *string) chunk {
		c := base
		c.Choices = []choice{{Delta: d, FinishReason: finish}}
		return c
	}
	var p plan
	if !r.withoutRole {
		empty := ""
		p.content = append(p.content, mk(delta{Role: "assistant", Content: &empty}, nil))
	}
	for _, piece := range r.textPieces() {
		s := piece
		p.content = append(p.content, mk(delta{Content: &s}, nil))
	}
	for _, tc := range r.callDeltas() {
		p.content = append(p.content, mk(delta{ToolCalls: []tcDelta{tc}}, nil))
	}
	reason := r.finish
	if reason == "" {
		reason = "stop"
		if len(r.calls) > 0 {
			reason = "tool_calls"
		}
	}
	p.finish = mk(delta{}, &reason)
	if r.rawUsage != "" {
		c := base
		c.Choices = []choice{}
		p.usage, p.rawUsage = &c, r.rawUsage
	} else if req.WantsUsage() && !r.noUsage {
		u := r.usage
		if u == nil {
			u = r.estimateUsage(req)
		}
		c := base
		c.Choices = []choice{}
		c.Usage = u
		p.usage = &c
	}
	return p
}

// textPieces splits the reply text into streamed pieces.
func (r Reply) textPieces() []string {
	if r.text == "" {
		return nil
	}
	if r.chunkSize > 0 {
		return splitBytes(r.text, r.chunkSize)
	}
	var out []string
	for _, p := range strings.SplitAfter(r.text, " ") {
		if p != "" {
			out = append(out, p)
		}
	}
	return out
}

// splitBytes cuts s into pieces of at most n bytes on rune boundaries.
func splitBytes(s string, n int) []string {
	var out []string
	for len(s) > 0 {
		end := min(n, len(s))
		for end < len(s) && end > 0 && !utf8.RuneStart(s[end]) {
			end--
		}
		if end == 0 { // n smaller than one rune: take the whole rune
			_, end = utf8.DecodeRuneInString(s)
		}
		out = append(out, s[:end])
		s = s[end:]
	}
	return out
}

// splitN cuts s into n nearly equal pieces on rune boundaries (fewer when s
// is short).
func splitN(s string, n int) []string {
	if n <= 1 || len(s) == 0 {
		return []string{s}
	}
	return splitBytes(s, (len(s)+n-1)/n)
}

// callDeltas builds the tool-call deltas in streaming order.
func (r Reply) callDeltas() []tcDelta {
	perCall := make([][]tcDelta, len(r.calls))
	for i, c := range r.calls {
		idx := i
		id := c.ID
		first := tcDelta{ID: &id, Type: "function", Function: fnDelta{Name: c.Name}}
		if !r.omitIndex {
			first.Index = &idx
		}
		var rest []string
		switch {
		case r.argsObject:
			first.Function.Arguments = json.RawMessage(c.Args)
		case r.argsWhole:
			first.Function.Arguments = jsonString(c.Args)
		default:
			first.Function.Arguments = jsonString("")
			if c.Args != "" {
				rest = splitN(c.Args, r.argPieces)
			}
		}
		perCall[i] = append(perCall[i], first)
		for _, piece := range rest {
			d := tcDelta{Function: fnDelta{Arguments: jsonString(piece)}}
			if !r.omitIndex {
				d.Index = &idx
			}
			switch {
			case r.repeatID:
				d.ID = &id
				d.Type = "function"
			case r.emptyID:
				empty := ""
				d.ID = &empty
			}
			perCall[i] = append(perCall[i], d)
		}
	}
	var out []tcDelta
	if !r.interleave {
		for _, ds := range perCall {
			out = append(out, ds...)
		}
		return out
	}
	for k := 0; ; k++ {
		any := false
		for _, ds := range perCall {
			if k < len(ds) {
				out = append(out, ds[k])
				any = true
			}
		}
		if !any {
			return out
		}
	}
}

func jsonString(s string) json.RawMessage {
	b, _ := json.Marshal(s) // a string always marshals
	return b
}

// estimateUsage approximates token counts at about 4 bytes per token.
func (r Reply) estimateUsage(req *ChatRequest) *usage {
	prompt := 0
	for _, m := range req.Messages {
		n := len(m.Content)
		for _, c := range m.ToolCalls {
			n += len(c.Function.Name) + len(c.Function.Arguments)
		}
		prompt += 4 + n/4
	}
	out := len(r.text)
	for _, c := range r.calls {
		out += len(c.Name) + len(c.Args)
	}
	completion := 1 + out/4
	return &usage{PromptTokens: prompt, CompletionTokens: completion, TotalTokens: prompt + completion}
}

// stream writes the reply as server-sent events. It returns when the reply
// is complete, the client is gone, or (for hangs) the server closes.
func (r Reply) stream(ctx context.Context, done <-chan struct{}, w http.ResponseWriter, req *ChatRequest) {
	p := r.render(req)
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	for k, vs := range r.header {
		for _, v := range vs {
			h.Add(k, v)
		}
	}
	w.WriteHeader(http.StatusOK)
	fl, _ := w.(http.Flusher)
	flush := func() {
		if fl != nil {
			fl.Flush()
		}
	}
	for range r.keepalives {
		if _, err := fmt.Fprint(w, keepaliveLine); err != nil {
			return
		}
	}
	flush()
	write := func(v any) bool {
		b, err := json.Marshal(v)
		if err != nil {
			return false
		}
		if _, err := fmt.Fprintf(w, "data: %s\n\n", b); err != nil {
			return false
		}
		flush()
		return true
	}
	// stop applies the cut/abort/error/hang options at position i; true
	// means the stream must end here.
	stop := func(i int) bool {
		switch {
		case r.cutAfter == i, r.cutAfter == cutBeforeFinish && i == len(p.content):
			return true
		case r.abortAfter == i:
			panic(http.ErrAbortHandler) // net/http drops the connection silently
		case r.errorAfter == i:
			var code any
			if r.midCode != 0 {
				code = r.midCode
			}
			write(map[string]any{"error": map[string]any{"message": r.midError, "type": "server_error", "code": code}})
			return true
		case r.pauseAfter == i && r.pause != nil:
			r.pause.markReached()
			select {
			case <-r.pause.release:
				return false
			case <-ctx.Done():
			case <-done:
			}
			return true
		case r.hangAfter == i:
			if r.hang != nil {
				r.hang.markStarted()
			}
			select {
			case <-ctx.Done():
				if r.hang != nil {
					r.hang.markDisconnected()
				}
			case <-done:
			}
			return true
		}
		return false
	}
	for i, c := range p.content {
		if stop(i) || !write(c) {
			return
		}
	}
	if stop(len(p.content)) || !write(p.finish) {
		return
	}
	if p.rawUsage != "" {
		b, _ := json.Marshal(p.usage) // strings and numbers only; no "usage" (nil)
		if _, err := fmt.Fprintf(w, "data: %s,\"usage\":%s}\n\n", b[:len(b)-1], p.rawUsage); err != nil {
			return
		}
		flush()
	} else if p.usage != nil && !write(p.usage) {
		return
	}
	fmt.Fprint(w, "data: [DONE]\n\n")
	flush()
}
