// Package redact removes credentials from URLs and from text that may
// contain them (error messages, log lines, transcripts) before they are
// shown or stored anywhere. It is the one place that knows the shapes of a
// credential, so every layer (tools, agent, lspserver, the CLI) uses it
// rather than its own copy: agent.Redactor adds the configured key values,
// Handler applies it to every log record.
package redact

import (
	"context"
	"fmt"
	"log/slog"
	"net/url"
	"regexp"
	"strings"
)

// Mask replaces a credential.
const Mask = "[REDACTED]"

// sensitiveParam matches query parameter names that carry a credential:
// key, api-key, api_key, apikey, token, access_token, secret, password,
// sig, signature, auth, credential, session… (api-version does not match).
var sensitiveParam = regexp.MustCompile(`(?i)(key|token|secret|passw(or)?d|pwd|^pass$|auth|sig(nature)?$|credential|session|^code$)`)

// URL returns u with credentials masked: the whole user-info part
// (user:pass@ or a token@) and the values of query parameters named like a
// credential. Text that does not parse as a URL is masked by pattern
// (Text), so a malformed URL never leaks either.
func URL(u string) string {
	p, err := url.Parse(u)
	if err != nil || p.Scheme == "" {
		return Text(u)
	}
	changed := false
	if p.User != nil {
		p.User = url.User(Mask)
		changed = true
	}
	if p.RawQuery != "" {
		q := strings.Split(p.RawQuery, "&")
		for i, kv := range q {
			k, _, hasValue := strings.Cut(kv, "=")
			name, _ := url.QueryUnescape(k)
			if hasValue && sensitiveParam.MatchString(name) {
				q[i] = k + "=" + Mask
				changed = true
			}
		}
		p.RawQuery = strings.Join(q, "&")
	}
	if !changed {
		return u
	}
	// url.URL.String would escape the brackets of the mask in user info.
	return strings.Replace(p.String(), url.PathEscape(Mask)+"@", Mask+"@", 1)
}

var (
	// userInfo is scheme://user[:pass]@ inside free text.
	userInfo = regexp.MustCompile(`(?i)\b([a-z][a-z0-9+.\-]*://)[^/?#\s"'<>@]+@`)
	// queryCred is ?name=value or &name=value for a credential-like name.
	queryCred = regexp.MustCompile(`(?i)([?&;][a-z0-9_.\-]*(?:key|token|secret|passw(?:or)?d|pwd|auth|sig|signature|credential|session)[a-z0-9_.\-]*=)[^&#\s"'<>]+`)
)

// secretPatterns match secrets by shape in free text. Each keeps its first
// group (the label) and replaces the rest. hints are lower-case literals
// one of which every match contains: the regexps run only on text that has
// one, since running them blind over a megabytes-long tool result or
// transcript is what made redaction the cost of writing and reading them.
var secretPatterns = []struct {
	re    *regexp.Regexp
	hints []string
}{
	{regexp.MustCompile(`(?i)(authorization["']?\s*[:=]\s*["']?)[^"'\r\n]+`), []string{"authorization"}},
	{regexp.MustCompile(`(?i)(bearer\s+)[A-Za-z0-9._~+/=\-]{6,}`), []string{"bearer"}},
	{regexp.MustCompile(`(?i)((?:api[_-]?key|x-api-key|access[_-]?token|auth[_-]?token|secret[_-]?key|password)["']?\s*[:=]\s*["']?)[^"'&\s,;]+`), []string{"key", "token", "password"}},
	{regexp.MustCompile(`()\bsk-(?:[A-Za-z0-9_-]{2,}-)?[A-Za-z0-9_-]{16,}`), []string{"sk-"}},
	// OAuth form fields and JWTs (ID tokens, ID-JAGs, client assertions):
	// what MCP's OAuth grants send.
	{regexp.MustCompile(`(?i)((?:client_secret|client_assertion|subject_token|assertion|refresh_token|id_token)["']?\s*[:=]\s*["']?)[^"'&\s,;]+`), []string{"secret", "assertion", "token"}},
	{regexp.MustCompile(`()\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*`), []string{"eyj"}},
	{regexp.MustCompile(`()\b(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,}|xox[baprs]-[A-Za-z0-9-]{10,}|AKIA[0-9A-Z]{16}|AIza[0-9A-Za-z_\-]{35})`), []string{"ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_", "xox", "akia", "aiza"}},
}

// Text masks credentials in free text (error messages, log lines,
// transcripts): in every URL it contains (user info and credential-like
// query parameters, as in `Post "http://u:p@host/v1/chat/completions": …`)
// and secrets recognisable by shape (Authorization values, bearer tokens,
// api_key=…, OAuth's client_secret=, client_assertion=, subject_token=…,
// JWTs, sk-…, GitHub, Slack, AWS and Google keys).
func Text(s string) string {
	if strings.ContainsAny(s, "@?&;") {
		if strings.Contains(s, "://") {
			s = userInfo.ReplaceAllString(s, "${1}"+Mask+"@")
		}
		if strings.Contains(s, "=") {
			s = queryCred.ReplaceAllString(s, "${1}"+Mask)
		}
	}
	lower := strings.ToLower(s)
	for _, p := range secretPatterns {
		for _, h := range p.hints {
			if strings.Contains(lower, h) {
				s = p.re.ReplaceAllString(s, "${1}"+Mask)
				lower = strings.ToLower(s)
				break
			}
		}
	}
	return s
}

// Handler wraps h so that every log record's message and attribute values
// (strings, errors, anything printed with %v) pass through Text: log files
// never hold a key or a credential-bearing URL, whoever logged it.
func Handler(h slog.Handler) slog.Handler { return handler{h} }

type handler struct{ next slog.Handler }

func (h handler) Enabled(ctx context.Context, l slog.Level) bool { return h.next.Enabled(ctx, l) }

func (h handler) Handle(ctx context.Context, r slog.Record) error {
	out := slog.NewRecord(r.Time, r.Level, Text(r.Message), r.PC)
	r.Attrs(func(a slog.Attr) bool {
		out.AddAttrs(attr(a))
		return true
	})
	return h.next.Handle(ctx, out)
}

func (h handler) WithAttrs(as []slog.Attr) slog.Handler {
	clean := make([]slog.Attr, len(as))
	for i, a := range as {
		clean[i] = attr(a)
	}
	return handler{h.next.WithAttrs(clean)}
}

func (h handler) WithGroup(name string) slog.Handler { return handler{h.next.WithGroup(name)} }

// attr redacts one attribute's value.
func attr(a slog.Attr) slog.Attr {
	v := a.Value.Resolve()
	switch v.Kind() {
	case slog.KindString:
		return slog.String(a.Key, Text(v.String()))
	case slog.KindGroup:
		g := v.Group()
		clean := make([]any, len(g))
		for i, e := range g {
			clean[i] = attr(e)
		}
		return slog.Group(a.Key, clean...)
	case slog.KindAny:
		if v.Any() == nil {
			return a
		}
		return slog.String(a.Key, Text(fmt.Sprint(v.Any())))
	}
	return a
}
