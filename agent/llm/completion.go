package llm

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	openai "github.com/sashabaranov/go-openai"
)

// CompletionRequest is one fill-in-the-middle request to the text
// completions endpoint (POST {baseURL}/completions), streamed.
type CompletionRequest struct {
	// Prompt is the whole prompt: the family's template filled in, or
	// context and prefix when Suffix carries the rest.
	Prompt string
	// Suffix is sent as the "suffix" field; "" sends none (template mode).
	Suffix string
	// Stop ends the completion at any of these strings.
	Stop []string
	// MaxTokens bounds the answer (max_tokens).
	MaxTokens int
	// Temperature of sampling; 0 leaves it to the server.
	Temperature float32
}

// CompletionKey says where a completion is asked for: the text before and
// after the cursor. Record and replay match completions by it, not by the
// prompt, so a recorded completion replays whatever other context (other
// open files, the template) surrounds it.
type CompletionKey struct {
	Before string // text before the cursor (its end is what matters)
	After  string // text after the cursor (its start is what matters)
}

type completionKeyCtx struct{}

// WithCompletionKey marks ctx's model requests as completions at key, for
// record and replay (a chat-mode completion goes through Stream with it).
func WithCompletionKey(ctx context.Context, key CompletionKey) context.Context {
	return context.WithValue(ctx, completionKeyCtx{}, key)
}

func completionKeyOf(ctx context.Context) (CompletionKey, bool) {
	k, ok := ctx.Value(completionKeyCtx{}).(CompletionKey)
	return k, ok
}

// Complete streams one text completion and returns its text and usage.
// It makes one attempt: a completion that fails is simply not shown, and
// by the time a retry answered the user has typed on. Cancelling ctx
// closes the HTTP request at once (the error is then of kind Canceled).
func (c *Client) Complete(ctx context.Context, key CompletionKey, req CompletionRequest) (string, Usage, error) {
	ctx = WithCompletionKey(ctx, key)
	actx, cancel := context.WithTimeout(ctx, c.cfg.RequestTimeout)
	defer cancel()
	meta := &respMeta{}
	actx = context.WithValue(actx, metaKey{}, meta)
	oreq := openai.CompletionRequest{
		Model:         c.cfg.Model,
		Prompt:        req.Prompt,
		Suffix:        req.Suffix,
		Stop:          req.Stop,
		MaxTokens:     req.MaxTokens,
		Temperature:   req.Temperature,
		Stream:        true,
		StreamOptions: &openai.StreamOptions{IncludeUsage: true},
	}
	stream, err := c.api.CreateCompletionStream(actx, oreq)
	if err != nil {
		return "", Usage{}, c.classify(ctx, actx, err, meta, false).err
	}
	defer stream.Close()
	var out strings.Builder
	var usage Usage
	for {
		chunk, err := stream.Recv()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return "", Usage{}, c.classify(ctx, actx, err, meta, out.Len() > 0).err
		}
		if len(chunk.Choices) > 0 {
			out.WriteString(chunk.Choices[0].Text)
		}
		if u := chunk.Usage; u != nil {
			got := Usage{PromptTokens: u.PromptTokens, CompletionTokens: u.CompletionTokens, TotalTokens: u.TotalTokens}
			if got.plausible() {
				usage = got
			}
		}
		if out.Len() > c.cfg.MaxAnswerBytes {
			return "", Usage{}, &Error{Kind: TooLarge, Status: meta.status, Err: errAnswerTooLarge, Message: fmt.Sprintf(
				"the completion from %s exceeded %d bytes and was stopped", c.cfg.BaseURL, c.cfg.MaxAnswerBytes)}
		}
	}
	return out.String(), usage, nil
}
