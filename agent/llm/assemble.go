package llm

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	openai "github.com/sashabaranov/go-openai"
)

// assembler builds one Response from streamed chunks. It copes with the
// ways OpenAI-compatible servers differ:
//
//   - calls are keyed by "index" when present (OpenAI, vLLM, llama.cpp);
//     an index reused with a different non-empty id starts a new call
//     (servers that number every call 0);
//   - without an index (Ollama) an entry carrying an id continues the call
//     with that id, an entry with a new id or a name starts a new call, and
//     a bare fragment (no id, no name) continues the last call;
//   - the first non-empty id and name win: repeated ids and names, and
//     "id": "" on later chunks, are ignored;
//   - arguments are concatenated, whether split over many chunks or whole;
//   - chunks with no choices (the usage chunk) only update usage.
type assembler struct {
	text       strings.Builder
	calls      []*partialCall
	byIndex    map[int]*partialCall
	finish     string
	usage      Usage
	usageKnown bool
	size       int // bytes of text and arguments received
	maxArgs    int // one call's argument bound; 0: none
}

// partialCall is a tool call still being streamed.
type partialCall struct {
	id, name  string
	args      strings.Builder
	argsBytes int  // received, kept or not
	tooLarge  bool // over maxArgs: args dropped
	announced bool // DeltaToolCall sent
}

// add folds one chunk into the response, reporting new text and newly named
// tool calls through emit.
func (a *assembler) add(ch *openai.ChatCompletionStreamResponse, emit func(Delta)) {
	if ch.Usage != nil {
		u := Usage{PromptTokens: ch.Usage.PromptTokens, CompletionTokens: ch.Usage.CompletionTokens,
			TotalTokens: ch.Usage.TotalTokens}
		if d := ch.Usage.PromptTokensDetails; d != nil {
			u.CachedTokens = d.CachedTokens
		}
		if u.TotalTokens == 0 {
			u.TotalTokens = u.PromptTokens + u.CompletionTokens
		}
		// Negative or absurd figures are ignored: the run then counts the
		// call locally, as for an endpoint that reports nothing.
		if u.plausible() {
			a.usage, a.usageKnown = u, true
		}
	}
	for i := range ch.Choices {
		c := &ch.Choices[i]
		if c.Index != 0 { // we ask for one choice; ignore any others
			continue
		}
		text := c.Delta.Content
		if text == "" {
			text = c.Delta.Refusal
		}
		if text != "" {
			a.size += len(text)
			a.text.WriteString(text)
			emit(Delta{Kind: DeltaText, Text: text})
		}
		for _, tc := range c.Delta.ToolCalls {
			p := a.target(tc)
			if p.id == "" {
				p.id = tc.ID
			}
			if p.name == "" {
				p.name = tc.Function.Name
			}
			a.size += len(tc.Function.Arguments)
			p.argsBytes += len(tc.Function.Arguments)
			if a.maxArgs > 0 && p.argsBytes > a.maxArgs {
				if !p.tooLarge {
					p.tooLarge = true
					p.args = strings.Builder{} // free what was kept
				}
			} else {
				p.args.WriteString(tc.Function.Arguments)
			}
			if p.name != "" && !p.announced {
				p.announced = true
				emit(Delta{Kind: DeltaToolCall, ToolName: p.name})
			}
		}
		if c.FinishReason != "" {
			a.finish = string(c.FinishReason)
		}
	}
}

// target finds or creates the call a tool-call delta belongs to.
func (a *assembler) target(tc openai.ToolCall) *partialCall {
	if tc.Index != nil {
		p := a.byIndex[*tc.Index]
		if p != nil && !(tc.ID != "" && p.id != "" && tc.ID != p.id) {
			return p
		}
		p = a.newCall()
		if a.byIndex == nil {
			a.byIndex = map[int]*partialCall{}
		}
		a.byIndex[*tc.Index] = p
		return p
	}
	if tc.ID != "" {
		for _, p := range a.calls {
			if p.id == tc.ID {
				return p
			}
		}
		return a.newCall()
	}
	if tc.Function.Name != "" || len(a.calls) == 0 {
		return a.newCall()
	}
	return a.calls[len(a.calls)-1]
}

func (a *assembler) newCall() *partialCall {
	p := &partialCall{}
	a.calls = append(a.calls, p)
	return p
}

// started reports whether anything reached the caller.
func (a *assembler) started() bool { return a.text.Len() > 0 || len(a.calls) > 0 }

// response finalises the assembled turn. FinishReason "stop" with tool
// calls is reported as "tool_calls" (some servers send "stop"); callers
// should still decide on len(ToolCalls).
func (a *assembler) response() Response {
	r := Response{Text: a.text.String(), FinishReason: a.finish, Usage: a.usage, UsageKnown: a.usageKnown}
	for _, p := range a.calls {
		tc := p.finish(a.maxArgs)
		if tc.ArgsErr != nil && a.finish == "length" {
			tc.ArgsErr = fmt.Errorf("%w (the answer was cut off at the output token limit; make smaller edits or calls)", tc.ArgsErr)
		}
		r.ToolCalls = append(r.ToolCalls, tc)
	}
	if len(r.ToolCalls) > 0 && r.FinishReason == "stop" {
		r.FinishReason = "tool_calls"
	}
	return r
}

// ErrArgsTooLarge is wrapped by ToolCall.ArgsErr when a call's arguments
// exceeded Config.MaxToolArgsBytes; the message is written for the model.
var ErrArgsTooLarge = errors.New("tool call arguments too large")

// finish turns a partial call into a ToolCall, checking its arguments.
// Empty arguments become "{}" (servers send "" for parameterless calls); a
// JSON string holding an object (double-encoded arguments) is unwrapped.
func (p *partialCall) finish(maxArgs int) ToolCall {
	tc := ToolCall{ID: p.id, Name: p.name, Args: strings.TrimSpace(p.args.String())}
	if tc.ID == "" {
		tc.ID = newCallID()
	}
	if p.tooLarge {
		tc.Args = "{}"
		tc.ArgsErr = fmt.Errorf("%w: the arguments for %s were %d bytes, over the limit of %d bytes (model.maxToolArgsBytes), and were dropped; make smaller calls (for example, write a large file in parts with edit_file)",
			ErrArgsTooLarge, p.name, p.argsBytes, maxArgs)
		return tc
	}
	if tc.Args == "" {
		tc.Args = "{}"
	}
	if tc.Name == "" {
		tc.ArgsErr = errors.New("the tool call has no function name; call one of the offered tools by name")
		return tc
	}
	tc.Args, tc.ArgsErr = checkArgs(tc.Name, tc.Args)
	return tc
}

// checkArgs validates that args is one JSON object. The error is written
// for the model, which gets it back as the tool result.
func checkArgs(name, args string) (string, error) {
	var v any
	dec := json.NewDecoder(strings.NewReader(args))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		return args, fmt.Errorf("the arguments for %s are not valid JSON (%v): %s; send the arguments as one JSON object",
			name, err, preview(args))
	}
	if dec.More() {
		return args, fmt.Errorf("the arguments for %s hold more than one JSON value: %s; send one JSON object",
			name, preview(args))
	}
	switch x := v.(type) {
	case map[string]any:
		return args, nil
	case string:
		inner := strings.TrimSpace(x)
		var obj map[string]any
		if json.Unmarshal([]byte(inner), &obj) == nil {
			return inner, nil
		}
	}
	return args, fmt.Errorf("the arguments for %s must be a JSON object, got: %s", name, preview(args))
}

// preview shortens text for an error message.
func preview(s string) string {
	const n = 200
	if len(s) > n {
		return fmt.Sprintf("%q… (%d bytes)", s[:n], len(s))
	}
	return fmt.Sprintf("%q", s)
}

// newCallID makes an id for a call the server sent without one; tool
// messages must reference an id.
func newCallID() string {
	var b [8]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails on supported platforms
	return "call_" + hex.EncodeToString(b[:])
}
