package complete

import (
	"context"
	"strings"

	"github.com/agentls/agentls/agent/llm"
)

// chatSystem asks a chat model for the middle only.
const chatSystem = "You complete code at the cursor, marked <CURSOR>. Reply with only the code that goes at <CURSOR>: " +
	"no explanation, no code fences, and nothing that is already before or after the cursor. Reply with nothing if nothing fits."

// Prompt is what one completion asks the model: exactly one of Text
// (a /completions request) and Chat is set.
type Prompt struct {
	Text    llm.CompletionRequest
	Chat    []llm.Message
	Key     llm.CompletionKey
	InLine  bool // the cursor has text after it on its line
	Context int  // bytes of other files' context in it
}

// build makes the request for prefix and suffix (the whole text before
// and after the cursor).
func (e *Engine) build(s *settings, path, prefix, suffix string) Prompt {
	pw, sw := windows(prefix+suffix, len(prefix))
	p := Prompt{Key: llm.CompletionKey{Before: pw, After: sw}}
	rest := sw
	if i := strings.IndexByte(rest, '\n'); i >= 0 {
		rest = rest[:i]
	}
	p.InLine = strings.TrimSpace(rest) != ""
	name := s.env.Rel(path)
	chunks := e.chunks(s, path)
	var ctxText string
	switch s.mode {
	case ModeTemplate:
		ctxText = renderChunks(chunks, s.tmpl, name)
	default:
		ctxText = renderChunks(chunks, Template{}, name)
	}
	p.Context = len(ctxText)
	switch s.mode {
	case ModeChat:
		var b strings.Builder
		if ctxText != "" {
			b.WriteString("Other open files:\n")
			b.WriteString(ctxText)
		}
		b.WriteString("File: " + name + "\n")
		b.WriteString(pw)
		b.WriteString("<CURSOR>")
		b.WriteString(sw)
		p.Chat = []llm.Message{{Role: "system", Content: chatSystem}, {Role: "user", Content: b.String()}}
		return p
	case ModeTemplate:
		p.Text = llm.CompletionRequest{Prompt: s.tmpl.fill(ctxText+pw, sw), Stop: s.tmpl.Stop}
	default:
		p.Text = llm.CompletionRequest{Prompt: ctxText + pw, Suffix: sw}
	}
	p.Text.MaxTokens, p.Text.Temperature = s.maxTokens, s.temperature
	if p.InLine {
		p.Text.Stop = append(append([]string(nil), p.Text.Stop...), "\n")
	}
	return p
}

// chunks picks the other open files' code around the places the user was
// last, most recent first, within the context budget.
func (e *Engine) chunks(s *settings, current string) []chunk {
	budget := s.contextTokens * bytesPerToken
	if budget <= 0 {
		return nil
	}
	e.mu.Lock()
	places := append([]place(nil), e.places...)
	e.mu.Unlock()
	var out []chunk
	for _, p := range places {
		if p.path == current || s.env.IsSecret(p.path) {
			continue
		}
		snap, ok := e.view.Overlay(p.path)
		if !ok {
			continue
		}
		text := linesAround(snap.Text, p.line)
		if strings.TrimSpace(text) == "" || len(text) > budget {
			continue
		}
		budget -= len(text)
		out = append(out, chunk{name: s.env.Rel(p.path), text: text})
	}
	return out
}

// ask sends the request and returns the cleaned completion.
func (e *Engine) ask(ctx context.Context, s *settings, req Request, prefix, suffix string) (string, error) {
	p := e.build(s, req.Path, prefix, suffix)
	e.mu.Lock()
	e.usage.ModelRequests++
	e.mu.Unlock()
	var answer string
	var usage llm.Usage
	var err error
	if p.Chat != nil {
		var resp llm.Response
		resp, err = s.client.Stream(llm.WithCompletionKey(ctx, p.Key), llm.Request{Messages: p.Chat}, nil)
		answer, usage = resp.Text, resp.Usage
	} else {
		answer, usage, err = s.client.Complete(ctx, p.Key, p.Text)
	}
	if err != nil {
		return "", err
	}
	if usage.PromptTokens == 0 && usage.CompletionTokens == 0 {
		usage.PromptTokens = 1 + (len(p.Text.Prompt)+len(p.Text.Suffix))/bytesPerToken
		usage.CompletionTokens = 1 + len(answer)/bytesPerToken
	}
	e.mu.Lock()
	e.usage.PromptTokens += usage.PromptTokens
	e.usage.CompletionTokens += usage.CompletionTokens
	e.mu.Unlock()
	return clean(answer, suffix, p.Chat != nil), nil
}
