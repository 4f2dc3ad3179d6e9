package config

import (
	"fmt"
	"net/url"
	"strings"

	"github.com/agentls/agentls/agent/llm"
	"github.com/agentls/agentls/internal/redact"
	"github.com/agentls/agentls/internal/safetext"
)

// Bounds of the completion settings: a completion longer than a screen is
// not ghost text, and a debounce past a second feels like no completion.
const (
	maxCompletionTokens    = 4096
	maxCompletionDebounce  = 2000
	maxCompletionContextTk = 32000
)

// validCompletion checks the completion keys; an invalid one is reported
// through bad and reset to its default.
func validCompletion(c, d *Config, bad func(key string, got any, want string)) {
	cc := &c.Completion
	switch cc.FIM = strings.TrimSpace(strings.ToLower(cc.FIM)); cc.FIM {
	case FIMAuto, FIMSuffix, FIMFilled, FIMChat:
	case "":
		cc.FIM = FIMAuto
	default:
		bad("completion.fim", cc.FIM, `use "auto", "suffix", "template" or "chat"`)
		cc.FIM = d.Completion.FIM
	}
	if t := cc.Template; t != nil && (t.Prefix == "" && t.Suffix == "" && t.Middle == "") {
		bad("completion.template", "{}", `give "prefix", "suffix" and "middle" tokens, e.g. {"prefix": "<|fim_prefix|>", "suffix": "<|fim_suffix|>", "middle": "<|fim_middle|>"}`)
		cc.Template = nil
	}
	if cc.MaxTokens < 1 || cc.MaxTokens > maxCompletionTokens {
		bad("completion.maxTokens", cc.MaxTokens, fmt.Sprintf("use a whole number from 1 to %d", maxCompletionTokens))
		cc.MaxTokens = d.Completion.MaxTokens
	}
	if cc.DebounceMs < 0 || cc.DebounceMs > maxCompletionDebounce {
		bad("completion.debounceMs", cc.DebounceMs, fmt.Sprintf("use a whole number from 0 to %d", maxCompletionDebounce))
		cc.DebounceMs = d.Completion.DebounceMs
	}
	if n := cc.ContextTokens; n != nil && (*n < 0 || *n > maxCompletionContextTk) {
		bad("completion.contextTokens", *n, fmt.Sprintf("use a whole number from 0 to %d", maxCompletionContextTk))
		cc.ContextTokens = nil
	}
	cc.Name = strings.TrimSpace(cc.Name)
	if n := cc.Name; n != "" && !llm.ValidModelName(n) {
		bad("completion.name", safetext.Bound(n, 80), "use a model name the endpoint lists: no control or bidi characters, at most 256 bytes")
		cc.Name = ""
	}
	cc.BaseURL = strings.TrimSpace(cc.BaseURL)
	if b := cc.BaseURL; b != "" {
		if u, err := url.Parse(b); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			bad("completion.baseURL", redact.URL(b), "use an http(s) URL such as http://localhost:11434/v1")
			cc.BaseURL = ""
		}
	}
}

// DefaultCompletionContextTokens is completion.contextTokens unset.
const DefaultCompletionContextTokens = 1024

// CompletionContextTokens is the token budget of other files' context.
func (c Config) CompletionContextTokens() int {
	if c.Completion.ContextTokens == nil {
		return DefaultCompletionContextTokens
	}
	return *c.Completion.ContextTokens
}

// CompletionInList reports whether clients without inline completions get
// the completion as a textDocument/completion item.
func (c Config) CompletionInList() bool {
	return c.Completion.InCompletionList == nil || *c.Completion.InCompletionList
}
