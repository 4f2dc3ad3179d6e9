package mcp

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/mark3labs/mcp-go/mcp"
)

func TestToolNames(t *testing.T) {
	cases := []struct{ server, tool, want string }{
		{"github", "create_issue", "mcp__github__create_issue"},
		{"fs", "read-file", "mcp__fs__read-file"},
		{"fs", "weird.name/with spaces", "mcp__fs__weird_name_with_spaces"},
		{"fs", "", "mcp__fs__tool"},
		{"fs", "日本", "mcp__fs__" + strings.Repeat("_", 6)}, // 6 UTF-8 bytes
	}
	for _, c := range cases {
		if got := toolName(c.server, c.tool); got != c.want {
			t.Errorf("toolName(%q, %q) = %q, want %q", c.server, c.tool, got, c.want)
		}
	}
	long := strings.Repeat("x", 100)
	a, b := toolName("srv", long), toolName("srv", long+"y")
	if len(a) != 64 || len(b) != 64 || a == b || !validName.MatchString(a) {
		t.Errorf("long names: %q %q", a, b)
	}
	if a != toolName("srv", long) {
		t.Error("shortening is not deterministic")
	}
}

func TestServerPartsUnambiguous(t *testing.T) {
	parts := serverParts([]string{"my.srv", "my_srv", "a__b", "a", "_x_", "", "é", strings.Repeat("long", 20)})
	seen := map[string]string{}
	for name, p := range parts {
		if prev, dup := seen[p]; dup {
			t.Errorf("%q and %q share prefix %q", prev, name, p)
		}
		seen[p] = name
		if strings.Contains(p, "__") || strings.HasPrefix(p, "_") || strings.HasSuffix(p, "_") || p == "" || len(p) > 24 {
			t.Errorf("prefix %q for %q can be confused with the separator", p, name)
		}
	}
	if parts["my.srv"] != "my_srv" || parts["a__b"] != "a_b" || parts["a"] != "a" || parts[""] != "server" {
		t.Errorf("parts %v", parts)
	}
	// Server "a" with tool "b__c" and server "a__b" with tool "c".
	if toolName(parts["a"], "b__c") == toolName(parts["a__b"], "c") {
		t.Error("different server/tool pairs got the same name")
	}
}

func TestToolNameCollisions(t *testing.T) {
	names := toolNames("s", []string{"a_b", "a.b", "a b", "c"})
	seen := map[string]bool{}
	for orig, n := range names {
		if seen[n] || !validName.MatchString(n) {
			t.Errorf("%q → %q duplicate or invalid", orig, n)
		}
		seen[n] = true
	}
	// Sorted order decides who keeps the plain name: "a b" < "a.b" < "a_b".
	if names["a b"] != "mcp__s__a_b" || names["c"] != "mcp__s__c" || !strings.HasPrefix(names["a_b"], "mcp__s__a_b_") {
		t.Errorf("names %v", names)
	}
	again := toolNames("s", []string{"c", "a b", "a_b", "a.b"})
	for k, v := range names {
		if again[k] != v {
			t.Errorf("order of listing changed %q: %q vs %q", k, v, again[k])
		}
	}
}

func TestExpand(t *testing.T) {
	env := map[string]string{"TOKEN": "s3cret", "EMPTY": ""}
	e := &expander{lookup: func(k string) string { return env[k] }}
	cases := map[string]string{
		"Bearer ${TOKEN}":          "Bearer s3cret",
		"${TOKEN}${TOKEN}":         "s3crets3cret",
		"${MISSING:-fallback}/x":   "fallback/x",
		"${EMPTY:-default}":        "default",
		"$TOKEN and ^a$":           "$TOKEN and ^a$",
		"unterminated ${TOKEN":     "unterminated ${TOKEN",
		"${NOPE}":                  "",
		"no vars at all":           "no vars at all",
		"${TOKEN:-x} ${UNSET_TOO}": "s3cret ",
	}
	for in, want := range cases {
		if got := e.expand(in); got != want {
			t.Errorf("expand(%q) = %q, want %q", in, got, want)
		}
	}
	if got := strings.Join(e.missingNames(), ","); got != "NOPE,UNSET_TOO" {
		t.Errorf("missing %q", got)
	}
}

func TestTruncateAndSizes(t *testing.T) {
	s := strings.Repeat("a", 9) + "😀" + "tail" // the emoji straddles byte 10
	got := truncate(s, 10)
	if !strings.HasPrefix(got, strings.Repeat("a", 9)+"\n[output truncated: showed the first 9 of 17 bytes") || !utf8.ValidString(got) {
		t.Errorf("truncate cut a rune: %q", got)
	}
	if truncate("short", 10) != "short" {
		t.Error("short text changed")
	}
	for data, n := range map[string]int{"": 0, "YQ==": 1, "YWI=": 2, "YWJj": 3, "YWJjZA==": 4} {
		if base64Len(data) != n {
			t.Errorf("base64Len(%q) = %d, want %d", data, base64Len(data), n)
		}
	}
	res := &mcp.CallToolResult{StructuredContent: map[string]any{"temp": 21}}
	if got := renderResult(res); got != `{"temp":21}` {
		t.Errorf("structured-only result rendered as %q", got)
	}
}
