package lspserver_test

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/agentls/agentls/lspserver"
	"github.com/agentls/agentls/lspserver/lsptest"
)

// TestInvalidUTF8NeverEchoed: a client that sends bytes that are not UTF-8
// in a method name, an id, a URI or a command name gets replies that are
// valid UTF-8 JSON (strict clients drop a connection otherwise), and the
// server keeps serving.
func TestInvalidUTF8NeverEchoed(t *testing.T) {
	s := newSession(t, lsptest.InitOptions{}, lspserver.Options{})
	ctx := lsptest.Context(t)
	frames := []string{
		"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"bad/\xff\xfemethod\"}",
		"{\"jsonrpc\":\"2.0\",\"id\":\"id-\xff\",\"method\":\"nope/\xc3\"}",
		"{\"jsonrpc\":\"2.0\",\"id\":\"id2-\xff\",\"method\":\"workspace/executeCommand\",\"params\":{\"command\":\"agentls.\xffnope\"}}",
		"{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"agentls/document\",\"params\":{\"textDocument\":{\"uri\":\"file:///no/\xff.txt\"}}}",
		"{\"jsonrpc\":\"2.0\",\"id\":\"\xff\",\"method\":1}",
		"{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"textDocument/hover\",\"params\":{\"textDocument\":{\"uri\":\"file:///x\xff\"},\"position\":{\"line\":\"\xff\",\"character\":0}}}",
	}
	for _, f := range frames {
		if err := s.c.WriteFrame([]byte(f)); err != nil {
			t.Fatal(err)
		}
	}
	for range frames {
		m, err := s.c.Await(ctx, "", func(m lsptest.Message) bool { return m.IsResponse() })
		if err != nil {
			t.Fatal(err)
		}
		if !utf8.Valid(m.Raw) {
			t.Errorf("reply is not valid UTF-8: %q", m.Raw)
		}
		if m.Error == nil {
			t.Errorf("want an error reply, got %s", m.Raw)
		}
	}
	if got := s.logs.String(); strings.Contains(got, "panic") {
		t.Errorf("server panicked:\n%s", got)
	}
	// Still serving.
	if err := s.c.DidOpen(ctx, s.uri("ok.txt"), "plaintext", 1, "fine"); err != nil {
		t.Fatal(err)
	}
	checkDoc(t, s, s.uri("ok.txt"), 1, "fine", "after the hostile frames")
}
