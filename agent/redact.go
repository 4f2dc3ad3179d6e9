package agent

import (
	"encoding/json"
	"strings"

	"github.com/agentls/agentls/internal/redact"
)

// Redactor removes API keys, bearer tokens and credentials in URLs from
// text before it is written anywhere (transcripts, logs): the configured
// key values literally, then everything internal/redact recognises.
type Redactor struct {
	secrets []string
}

// redacted replaces every secret.
const redacted = redact.Mask

// NewRedactor returns a redactor that also removes the given secret values
// (the configured API key, MCP header tokens). Values shorter than 6 bytes
// are ignored: replacing them would mangle ordinary text.
func NewRedactor(secrets ...string) *Redactor {
	r := &Redactor{}
	for _, s := range secrets {
		if s = strings.TrimSpace(s); len(s) >= 6 {
			r.secrets = append(r.secrets, s)
		}
	}
	return r
}

// String returns s with secrets replaced by [REDACTED].
func (r *Redactor) String(s string) string {
	if r != nil {
		for _, sec := range r.secrets {
			s = strings.ReplaceAll(s, sec, redacted)
		}
	}
	return redact.Text(s) // secrets by shape, credentials in URLs
}

// Value redacts every string (keys included) inside a JSON-like value, so
// that redaction never breaks the JSON it is written into.
func (r *Redactor) Value(v any) any {
	switch x := v.(type) {
	case string:
		return r.String(x)
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[r.String(k)] = r.Value(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = r.Value(e)
		}
		return out
	}
	return v
}

// JSON marshals v and redacts it value by value.
func (r *Redactor) JSON(v any) ([]byte, error) {
	raw, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	var generic any
	if err := json.Unmarshal(raw, &generic); err != nil {
		return nil, err
	}
	return json.Marshal(r.Value(generic))
}
