package complete

import (
	"strings"
	"testing"

	"github.com/agentls/agentls/agent/config"
)

func TestResolveFamilies(t *testing.T) {
	cases := []struct {
		fim, model, mode, family string
	}{
		{config.FIMAuto, "qwen2.5-coder:7b", "template", "qwen2.5-coder"},
		{config.FIMAuto, "bigcode/starcoder2-3b", "template", "starcoder2"},
		{config.FIMAuto, "codellama:7b-code", "template", "codellama"},
		{config.FIMAuto, "deepseek-coder-6.7b-base", "template", "deepseek-coder"},
		{config.FIMAuto, "codestral-latest", "template", "codestral"},
		{config.FIMAuto, "gpt-3.5-turbo-instruct", "suffix", ""},
		{config.FIMSuffix, "qwen2.5-coder:7b", "suffix", "qwen2.5-coder"},
		{config.FIMChat, "gpt-4.1", "chat", ""},
	}
	for _, c := range cases {
		m, tm := resolve(c.fim, nil, c.model)
		if m.String() != c.mode || tm.Family != c.family {
			t.Errorf("%s %s: got %s %q, want %s %q", c.fim, c.model, m, tm.Family, c.mode, c.family)
		}
	}
	m, tm := resolve(config.FIMAuto, &config.FIMTemplate{Prefix: "<P>", Suffix: "<S>", Middle: "<M>"}, "mystery")
	if m != ModeTemplate || tm.fill("a", "b") != "<P>a<S>b<M>" {
		t.Errorf("custom template: %s %q", m, tm.fill("a", "b"))
	}
}

func TestFill(t *testing.T) {
	want := map[string]string{
		"qwen2.5-coder:1.5b":  "<|fim_prefix|>P<|fim_suffix|>S<|fim_middle|>",
		"starcoder2:3b":       "<fim_prefix>P<fim_suffix>S<fim_middle>",
		"codellama:7b-code":   "<PRE> P <SUF>S <MID>",
		"deepseek-coder:1.3b": "<｜fim▁begin｜>P<｜fim▁hole｜>S<｜fim▁end｜>",
		"codestral:22b":       "[SUFFIX]S[PREFIX]P",
	}
	for model, w := range want {
		tm, ok := Detect(model)
		if !ok || tm.fill("P", "S") != w {
			t.Errorf("%s: %q, want %q", model, tm.fill("P", "S"), w)
		}
	}
}

func TestClean(t *testing.T) {
	cases := []struct{ answer, suffix, want string }{
		{"x + y)", ")\n", "x + y"},                 // repeats the closing paren
		{"g()", ")\n", "g()"},                      // its own parens stay whole
		{"return a\n}", "\n}\n", "return a"},       // repeats the closing brace
		{"   \n\t", "\n", ""},                      // whitespace only
		{"foo(bar)\nbaz()", ") + 1\n", "foo(bar)"}, // inside a line: one line; its own paren stays
		{"name\nmore", " string) {\n", "name"},     // inside a line: up to its end
		{"line1\nline2\n\n", "\n", "line1\nline2"},
	}
	for _, c := range cases {
		if got := clean(c.answer, c.suffix, false); got != c.want {
			t.Errorf("clean(%q, %q) = %q, want %q", c.answer, c.suffix, got, c.want)
		}
	}
	if got := clean("```go\nreturn 1\n```", "\n", true); got != "return 1" {
		t.Errorf("chat fence: %q", got)
	}
}

func TestMemoThrough(t *testing.T) {
	m := &memo{prefix: "func f() {\n\t", suffix: "\n}", text: "return 42"}
	if rest, ok := m.through("func f() {\n\tre", "\n}"); !ok || rest != "turn 42" {
		t.Fatalf("typed 2: %q %v", rest, ok)
	}
	if _, ok := m.through("func f() {\n\tx", "\n}"); ok {
		t.Fatal("typing that does not match still answered")
	}
	if _, ok := m.through("func f() {\n\treturn 42", "\n}"); ok {
		t.Fatal("a completion typed whole still answered")
	}
	if _, ok := m.through("func f() {\n\tre", "\n}\nmore"); ok {
		t.Fatal("changed suffix still answered")
	}
}

func TestWindows(t *testing.T) {
	text := strings.Repeat("line of code\n", 2000)
	off := len(text) / 2
	p, s := windows(text, off)
	if !strings.HasSuffix(text[:off], p) || !strings.HasPrefix(text[off:], s) {
		t.Fatal("windows are not the text around the cursor")
	}
	if len(p) > prefixWindowBytes || len(s) > suffixWindowBytes || !strings.HasPrefix(p, "line") || !strings.HasSuffix(s, "\n") {
		t.Fatalf("window bounds: %d %d", len(p), len(s))
	}
}
