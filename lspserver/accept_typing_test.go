package lspserver_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/agentls/agentls/internal/text"
	"github.com/agentls/agentls/lspserver"
	"github.com/agentls/agentls/lspserver/lsptest"
)

// TestAcceptAllWhileTyping: the user keeps typing while an accept-all is
// applied. In the worst order the keystroke reaches the server right after
// the editor's didChange for the edit and before its applyEdit answer, so
// the document never equals the accepted text when the server checks it.
// Every accept must still report applied:true (the edit did land), and the
// document must hold the accepted change plus the typing. A second typist
// goroutine types between accepts too.
func TestAcceptAllWhileTyping(t *testing.T) {
	t.Parallel()
	s := newSession(t, lsptest.InitOptions{}, lspserver.Options{})
	e := editorFor(s, text.UTF16)
	ctx := lsptest.Context(t)
	const rounds = 30
	for i := range rounds {
		name := fmt.Sprintf("t%d.go", i)
		u := e.open(t, name, demoBase)
		e.stage(fmt.Sprintf("run%d", i), name, demoBase, demoProposed, false)

		// The editor applies the edit, then the user's keystroke (at the
		// end of the document, away from every hunk) arrives before the
		// answer.
		var typed []string
		var mu sync.Mutex
		s.c.Handle(protocol.MethodWorkspaceApplyEdit, func(m lsptest.Message) (any, *lsptest.Error) {
			res, rerr := e.applyEdit(m)
			for k := range 3 {
				key := fmt.Sprintf("/*%d.%d*/", i, k)
				if err := typeAtEnd(ctx, e, u, key); err != nil {
					return nil, &lsptest.Error{Code: lsptest.CodeInternalError, Message: err.Error()}
				}
				mu.Lock()
				typed = append(typed, key)
				mu.Unlock()
			}
			return res, rerr
		})
		res := e.accept(t, reviewArgs{})
		if !res.Applied || res.FailureReason != "" {
			t.Fatalf("round %d: accept-all while typing = %+v, want applied:true", i, res)
		}
		mu.Lock()
		want := demoProposed + strings.Join(typed, "")
		mu.Unlock()
		if got := e.text(t, u); got != want {
			t.Fatalf("round %d: editor text\n got %q\nwant %q", i, got, want)
		}
		d, err := s.c.Document(ctx, u)
		if err != nil {
			t.Fatal(err)
		}
		if d.Text != want {
			t.Fatalf("round %d: server text\n got %q\nwant %q", i, d.Text, want)
		}
		if ps := e.proposals(t, u); len(ps) != 0 {
			t.Fatalf("round %d: proposals left after accept-all: %+v", i, ps)
		}
	}
}

// typeAtEnd is the user typing s at the end of u's document.
func typeAtEnd(ctx context.Context, e *fakeEditor, u uri.URI, s string) error {
	e.mu.Lock()
	d := e.docs[u]
	ix := text.NewIndex(d.text)
	r := toRange(ix.Range(len(d.text), len(d.text), e.enc))
	d.text += s
	d.version++
	v := d.version
	e.mu.Unlock()
	return e.c.DidChange(ctx, u, v, &protocol.TextDocumentContentChangePartial{Range: r, Text: s})
}
