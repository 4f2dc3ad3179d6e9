package llmtest

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
)

// CompletionsPath is the text completions endpoint (fill-in-the-middle):
// a script answers its requests like chat ones, and Text's text is
// streamed as text_completion chunks.
const CompletionsPath = "/v1/completions"

// streamText writes the reply as a streamed text completion.
func (r Reply) streamText(ctx context.Context, w http.ResponseWriter, req *ChatRequest) {
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	fl, _ := w.(http.Flusher)
	write := func(v any) bool {
		if ctx.Err() != nil {
			return false
		}
		b, _ := json.Marshal(v)
		if _, err := fmt.Fprintf(w, "data: %s\n\n", b); err != nil {
			return false
		}
		if fl != nil {
			fl.Flush()
		}
		return true
	}
	id := fmt.Sprintf("cmpl-llmtest-%d", req.Seq)
	chunk := func(text string, finish any) map[string]any {
		return map[string]any{"id": id, "object": "text_completion", "created": 1700000000, "model": req.Model,
			"choices": []any{map[string]any{"text": text, "index": 0, "logprobs": nil, "finish_reason": finish}}}
	}
	for _, piece := range r.textPieces() {
		if !write(chunk(piece, nil)) {
			return
		}
	}
	if !write(chunk("", "stop")) {
		return
	}
	if req.WantsUsage() && !r.noUsage {
		prompt := 1 + (len(req.Prompt)+len(deref(req.Suffix)))/4
		completion := 1 + len(r.text)/4
		if !write(map[string]any{"id": id, "object": "text_completion", "created": 1700000000, "model": req.Model, "choices": []any{},
			"usage": map[string]any{"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion}}) {
			return
		}
	}
	fmt.Fprint(w, "data: [DONE]\n\n")
	if fl != nil {
		fl.Flush()
	}
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
