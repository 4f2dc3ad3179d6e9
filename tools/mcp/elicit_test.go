package mcp

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentls/agentls/internal/testwait"
)

// elicitRecorder is an Options.Elicit that accepts and keeps what it saw.
type elicitRecorder struct {
	mu   sync.Mutex
	seen []Elicitation
	busy atomic.Int32 // prompts in front of the user now
	peak atomic.Int32
}

func (r *elicitRecorder) elicit(ctx context.Context, e Elicitation) (ElicitResult, error) {
	n := r.busy.Add(1)
	defer r.busy.Add(-1)
	for p := r.peak.Load(); n > p && !r.peak.CompareAndSwap(p, n); p = r.peak.Load() {
	}
	time.Sleep(5 * time.Millisecond) // a person reading
	r.mu.Lock()
	r.seen = append(r.seen, e)
	r.mu.Unlock()
	return ElicitResult{Action: ElicitAccept, Content: map[string]any{}}, nil
}

func (r *elicitRecorder) all() []Elicitation {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Elicitation(nil), r.seen...)
}

func startRequests(t *testing.T, r *elicitRecorder, logs *testwait.Buffer) *Manager {
	t.Helper()
	m := startManager(t, Options{Servers: map[string]ServerConfig{"h": helperConfig(t, "requests", nil)},
		Elicit: r.elicit, Logger: testLogger(t, logs)})
	waitState(t, m, "h", StateReady)
	return m
}

// N8: a server cannot prompt the user when no call of it is in progress:
// an elicitation sent after its tool call returned is declined without
// reaching the front-end.
func TestElicitationRefusedWithoutToolCall(t *testing.T) {
	r, logs := &elicitRecorder{}, &testwait.Buffer{}
	m := startRequests(t, r, logs)
	if res := call(t, m.Registry(), "mcp__h__ask_later", `{"ms":50}`); res.Text != "scheduled" {
		t.Fatalf("ask_later: %q", res.Text)
	}
	deadline := time.Now().Add(20 * time.Second)
	for !strings.Contains(logs.String(), "no tool call of this server is in progress") {
		if time.Now().After(deadline) {
			t.Fatalf("no refusal logged:\n%s", logs.String())
		}
		time.Sleep(5 * time.Millisecond)
	}
	if res := call(t, m.Registry(), "mcp__h__asked_later", `{}`); res.Text != "decline" {
		t.Errorf("the server got %q, want decline", res.Text)
	}
	if got := r.all(); len(got) != 0 {
		t.Errorf("the user was asked: %+v", got)
	}
}

// N8: a flood of 200 prompts in one call shows at most 4, one at a time,
// and declines the rest at once.
func TestElicitationFloodBounded(t *testing.T) {
	r, logs := &elicitRecorder{}, &testwait.Buffer{}
	m := startRequests(t, r, logs)
	res := call(t, m.Registry(), "mcp__h__ask_many", `{"n":200}`)
	if res.Text != "accept=4 decline=196 cancel=0 error=0" {
		t.Fatalf("ask_many: %q", res.Text)
	}
	if n := len(r.all()); n != maxElicitationsPerCall {
		t.Errorf("the user saw %d prompts, want %d", n, maxElicitationsPerCall)
	}
	if p := r.peak.Load(); p != 1 {
		t.Errorf("%d prompts were in front of the user at once, want 1", p)
	}
	// The budget is per call: the next call may ask again.
	if res := call(t, m.Registry(), "mcp__h__ask_many", `{"n":1}`); res.Text != "accept=1 decline=0 cancel=0 error=0" {
		t.Errorf("next call: %q", res.Text)
	}
}

// N8: what reaches the front-end is bounded and has no raw control
// characters; forms whose answers would carry control characters, or that
// are huge, and URL-mode requests that are not https are refused.
func TestElicitationScreened(t *testing.T) {
	r, logs := &elicitRecorder{}, &testwait.Buffer{}
	m := startRequests(t, r, logs)
	ask := func(args map[string]any) string {
		b, _ := json.Marshal(args)
		return call(t, m.Registry(), "mcp__h__ask", string(b)).Text
	}
	schema := func(props map[string]any) string {
		b, _ := json.Marshal(map[string]any{"type": "object", "title": "T\x1b[2J", "properties": props})
		return string(b)
	}

	// Shown, escaped.
	if got := ask(map[string]any{"message": "Pay \x1b]8;;https://evil.example\x07here\x1b]8;;\x07 \u202eexe.txt", "form": "color"}); !strings.HasPrefix(got, "accept") {
		t.Fatalf("clean form: %q", got)
	}
	seen := r.all()
	if len(seen) != 1 || seen[0].Message != `Pay \x1b]8;;https://evil.example\x07here\x1b]8;;\x07 \u202eexe.txt` {
		t.Fatalf("message seen as %q", seen[0].Message)
	}
	if got := ask(map[string]any{"schema": schema(map[string]any{"x": map[string]any{"type": "string", "title": "Name\x1b[1A", "description": "d\u202e"}})}); !strings.HasPrefix(got, "accept") {
		t.Fatalf("titled form: %q", got)
	}
	sc := string(r.all()[1].Schema)
	if strings.ContainsAny(sc, "\x1b\u202e") || !strings.Contains(sc, `Name\\x1b[1A`) || !strings.Contains(sc, `T\\x1b[2J`) {
		t.Fatalf("schema seen as %s", sc)
	}

	// Refused: each is declined and the user never sees it.
	many := map[string]any{}
	for i := range 17 {
		many[string(rune('a'+i))] = map[string]any{"type": "string"}
	}
	enum := make([]string, 5001)
	for i := range enum {
		enum[i] = "v" + strings.Repeat("x", i%5)
	}
	for name, args := range map[string]map[string]any{
		"10 MB message":        {"message": strings.Repeat("m", 10<<20)},
		"5001 buttons":         {"schema": schema(map[string]any{"c": map[string]any{"type": "string", "enum": enum}})},
		"17 fields":            {"schema": schema(many)},
		"ESC in an enum value": {"schema": schema(map[string]any{"c": map[string]any{"type": "string", "enum": []string{"ok", "\x1b[2Jno"}}})},
		"ESC in a field name":  {"schema": schema(map[string]any{"a\x1b[2J": map[string]any{"type": "string"}})},
	} {
		before := len(r.all())
		if got := ask(args); !strings.HasPrefix(got, "decline") {
			t.Errorf("%s: %q, want decline", name, got)
		}
		if len(r.all()) != before {
			t.Errorf("%s reached the user", name)
		}
	}
	for _, u := range []string{"javascript:alert(1)", "file:///etc/passwd", "vscode://x/y", "http://evil.example/"} {
		before := len(r.all())
		if got := call(t, m.Registry(), "mcp__h__ask_url", `{"url":"`+u+`"}`).Text; got != "decline" {
			t.Errorf("URL %s: %q, want decline", u, got)
		}
		if len(r.all()) != before {
			t.Errorf("URL %s reached the user", u)
		}
	}
	if got := call(t, m.Registry(), "mcp__h__ask_url", `{"url":"https://auth.example/continue"}`).Text; got != "accept" {
		t.Errorf("https URL: %q", got)
	}
	if !strings.Contains(logs.String(), "elicitation refused") {
		t.Errorf("refusals not logged")
	}
}
