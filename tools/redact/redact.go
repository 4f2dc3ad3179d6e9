// Package redact removes credentials from URLs and from text that may
// contain URLs (error messages, log lines), before they are shown or
// stored anywhere. It is the one place that knows the shapes of a
// credential in a URL, so every layer (tools, agent, lspserver, the CLI)
// uses it rather than its own copy.
package redact

import (
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

// Text masks credentials in every URL found in s (user info and
// credential-like query parameters): for error messages and log lines that
// embed a URL, such as `Post "http://u:p@host/v1/chat/completions": …`.
func Text(s string) string {
	if !strings.ContainsAny(s, "@?&;") {
		return s
	}
	s = userInfo.ReplaceAllString(s, "${1}"+Mask+"@")
	return queryCred.ReplaceAllString(s, "${1}"+Mask)
}
