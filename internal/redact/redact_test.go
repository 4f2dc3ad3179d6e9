package redact

import (
	"strings"
	"testing"
)

func TestURL(t *testing.T) {
	cases := []struct{ in, want string }{
		{"https://api.openai.com/v1", "https://api.openai.com/v1"},
		{"http://user:pass@host:8080/v1", "http://[REDACTED]@host:8080/v1"},
		{"http://tok3n@host/v1", "http://[REDACTED]@host/v1"},
		{"https://host/v1?api-key=s3cret&api-version=2024-10-01", "https://host/v1?api-key=[REDACTED]&api-version=2024-10-01"},
		{"https://host/v1?key=AIzaXYZ", "https://host/v1?key=[REDACTED]"},
		{"https://host/v1?access_token=abc&x=1", "https://host/v1?access_token=[REDACTED]&x=1"},
		{"https://host/v1?token=abc", "https://host/v1?token=[REDACTED]"},
		{"not a url user:pass@", "not a url user:pass@"},
	}
	for _, c := range cases {
		if got := URL(c.in); got != c.want {
			t.Errorf("URL(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestText(t *testing.T) {
	in := `Post "http://alice:hunter22@model.example/v1/chat/completions?api-key=s3cretvalue&api-version=1": dial tcp: connection refused; also https://x.example/v1?key=k3y and mail bob@example.com`
	got := Text(in)
	for _, leak := range []string{"alice", "hunter22", "s3cretvalue", "k3y"} {
		if strings.Contains(got, leak) {
			t.Errorf("Text leaks %q: %s", leak, got)
		}
	}
	for _, kept := range []string{"model.example/v1/chat/completions", "api-version=1", "bob@example.com", "connection refused"} {
		if !strings.Contains(got, kept) {
			t.Errorf("Text lost %q: %s", kept, got)
		}
	}
}

// MCP OAuth's credentials by shape: the form fields the grants send and
// JWTs (ID tokens, ID-JAGs, client assertions) anywhere in text.
func TestTextOAuth(t *testing.T) {
	jwt := "eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJ1c2VyQGV4YW1wbGUuY29tIn0.c2lnbmF0dXJlLWJ5dGVz"
	in := "grant_type=client_credentials&client_secret=s3cr3tv4lue&client_assertion=" + jwt +
		`; {"subject_token": "idtok-value", "refresh_token":"rt-value"}; the ID token ` + jwt + " was refused"
	got := Text(in)
	for _, leak := range []string{"s3cr3tv4lue", "eyJ", "idtok-value", "rt-value", "c2lnbmF0dXJl"} {
		if strings.Contains(got, leak) {
			t.Errorf("Text leaks %q: %s", leak, got)
		}
	}
	for _, kept := range []string{"grant_type=client_credentials", "was refused"} {
		if !strings.Contains(got, kept) {
			t.Errorf("Text lost %q: %s", kept, got)
		}
	}
}
