package agent

import (
	"encoding/json"
	"regexp"
	"strings"
)

// Redactor removes API keys and bearer tokens from text before it is
// written anywhere (transcripts, logs). Patterns cover the common shapes;
// the configured key values are removed literally.
type Redactor struct {
	secrets []string
}

// redacted replaces every secret.
const redacted = "[REDACTED]"

// secretPatterns match secrets by shape. Each keeps its first group (the
// label) and replaces the rest.
var secretPatterns = []*regexp.Regexp{
	regexp.MustCompile(`(?i)(authorization["']?\s*[:=]\s*["']?)[^"'\r\n]+`),
	regexp.MustCompile(`(?i)(bearer\s+)[A-Za-z0-9._~+/=\-]{6,}`),
	regexp.MustCompile(`(?i)((?:api[_-]?key|x-api-key|access[_-]?token|auth[_-]?token|secret[_-]?key|password)["']?\s*[:=]\s*["']?)[^"'&\s,;]+`),
	regexp.MustCompile(`()\bsk-(?:[A-Za-z0-9_-]{2,}-)?[A-Za-z0-9_-]{16,}`),
	regexp.MustCompile(`()\b(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,}|xox[baprs]-[A-Za-z0-9-]{10,}|AKIA[0-9A-Z]{16}|AIza[0-9A-Za-z_\-]{35})`),
}

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
	for _, re := range secretPatterns {
		s = re.ReplaceAllString(s, "${1}"+redacted)
	}
	return s
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
