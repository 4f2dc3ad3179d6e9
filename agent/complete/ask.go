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
	Context int  // bytes of context in it: other files' chunks and declarations
	Decls   int  // bytes of declarations among them
}

// build makes the request for prefix and suffix (the whole text before
// and after the cursor), with the declarations of the symbols near the
// cursor (nearest first) as the context budget allows.
func (e *Engine) build(s *settings, path, prefix, suffix string, decls []string) Prompt {
	pw, sw := windows(prefix+suffix, len(prefix))
	p := Prompt{Key: llm.CompletionKey{Before: pw, After: sw}}
	rest := sw
	if i := strings.IndexByte(rest, '\n'); i >= 0 {
		rest = rest[:i]
	}
	p.InLine = strings.TrimSpace(rest) != ""
	name := s.env.Rel(path)
	// The budget goes to other files' chunks first, less a share kept for
	// declarations, which take what is left: both are worth less than the
	// windows, which are never cut for them.
	budget := s.contextTokens * bytesPerToken
	chunks, used := e.chunks(s, path, budget-budget/declShare)
	var shown []string // declarations the windows do not already show
	for _, d := range decls {
		if !strings.Contains(pw, d) && !strings.Contains(sw, d) {
			shown = append(shown, d)
		}
	}
	declText := renderDecls(shown, name, budget-used)
	t := Template{}
	if s.mode == ModeTemplate {
		t = s.tmpl
	}
	ctxText := renderChunks(chunks, t, name) + declText
	p.Context, p.Decls = len(ctxText), len(declText)
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
// last, most recent first, within budget bytes; used is what they take.
func (e *Engine) chunks(s *settings, current string, budget int) (out []chunk, used int) {
	if budget <= 0 || s.noChunks {
		return nil, 0
	}
	e.mu.Lock()
	places := append([]place(nil), e.places...)
	e.mu.Unlock()
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
		used += len(text)
		out = append(out, chunk{name: s.env.Rel(p.path), text: text})
	}
	return out, used
}

// ask sends the request and returns the cleaned completion.
func (e *Engine) ask(ctx context.Context, s *settings, req Request, prefix, suffix string, decls []string) (string, error) {
	p := e.build(s, req.Path, prefix, suffix, decls)
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
