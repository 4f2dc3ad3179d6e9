package lspserver_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/agentls/agentls/lspserver"
	"github.com/agentls/agentls/lspserver/lsptest"
)

// TestMalformedRangesRejected: a didChange whose range is malformed (a
// negative, fractional, non-integer or absurdly large position, a missing
// start or end, start after end) is refused with a log line and the
// document stays as it was; the next well-formed change still applies.
// Characters past a line's end remain legal (LSP clamps them).
func TestMalformedRangesRejected(t *testing.T) {
	const text = "line zero\nline one\nline two\n"
	for _, tc := range []struct{ name, rng string }{
		{"negative line", `{"start":{"line":-1,"character":0},"end":{"line":0,"character":4}}`},
		{"negative character", `{"start":{"line":0,"character":-3},"end":{"line":0,"character":4}}`},
		{"line 2^32", `{"start":{"line":4294967296,"character":0},"end":{"line":4294967296,"character":0}}`},
		{"line 2^32-1", `{"start":{"line":0,"character":0},"end":{"line":4294967295,"character":0}}`},
		{"character 2^31", `{"start":{"line":0,"character":0},"end":{"line":0,"character":2147483648}}`},
		{"fractional line", `{"start":{"line":1.5,"character":0},"end":{"line":2,"character":0}}`},
		{"string line", `{"start":{"line":"1","character":0},"end":{"line":2,"character":0}}`},
		{"null character", `{"start":{"line":1,"character":null},"end":{"line":2,"character":0}}`},
		{"missing end", `{"start":{"line":0,"character":0}}`},
		{"missing start", `{"end":{"line":1,"character":0}}`},
		{"missing character", `{"start":{"line":0},"end":{"line":1,"character":0}}`},
		{"start after end", `{"start":{"line":2,"character":0},"end":{"line":0,"character":0}}`},
		{"start after end on a line", `{"start":{"line":0,"character":6},"end":{"line":0,"character":2}}`},
		{"range not an object", `[0,0,1,0]`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newSession(t, lsptest.InitOptions{}, lspserver.Options{})
			ctx := lsptest.Context(t)
			u := s.uri("m.txt")
			if err := s.c.DidOpen(ctx, u, "plaintext", 1, text); err != nil {
				t.Fatal(err)
			}
			params := json.RawMessage(`{"textDocument":{"uri":"` + string(u) + `","version":2},"contentChanges":[{"range":` + tc.rng + `,"text":"X"}]}`)
			if err := s.c.Notify(ctx, "textDocument/didChange", params); err != nil {
				t.Fatal(err)
			}
			checkDoc(t, s, u, 1, text, "after the malformed change")
			if !strings.Contains(s.logs.String(), "didChange") {
				t.Errorf("no log line about the refused didChange; logs:\n%s", s.logs.String())
			}
			// The session goes on: a legal change (character past the end of
			// the line clamps) applies.
			if err := s.c.DidChange(ctx, u, 3, lsptest.Partial(0, 99, 0, 120, "!")); err != nil {
				t.Fatal(err)
			}
			checkDoc(t, s, u, 3, "line zero!\nline one\nline two\n", "after a legal change")
		})
	}
}
