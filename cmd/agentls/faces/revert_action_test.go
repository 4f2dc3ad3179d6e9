package faces_test

import (
	"encoding/json"
	"strings"
	"testing"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/agentls/agentls/acpserver/acptest"
	"github.com/agentls/agentls/internal/testwait"
	"github.com/agentls/agentls/lspserver/lsptest"
)

// codeActionTitles are the titles of the code actions at line of u.
func codeActionTitles(t *testing.T, c *lsptest.Client, u uri.URI, line uint32) []string {
	t.Helper()
	var acts []json.RawMessage
	p := &protocol.CodeActionParams{TextDocument: protocol.TextDocumentIdentifier{URI: u},
		Range: protocol.Range{Start: protocol.Position{Line: line}, End: protocol.Position{Line: line}}}
	if err := c.Call(lsptest.Context(t), protocol.MethodTextDocumentCodeAction, p, &acts); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, a := range acts {
		var x struct {
			Title string `json:"title"`
		}
		_ = json.Unmarshal(a, &x)
		out = append(out, x.Title)
	}
	return out
}

func hasTitle(ts []string, want string) bool {
	for _, t := range ts {
		if t == want {
			return true
		}
	}
	return false
}

// A live LSP server offers "Agent: Revert run …" on the lines a run
// allowed over ACP changed, also when the run landed after the server
// built its index.
func TestLSPOffersRevertOfRunAllowedOverACP(t *testing.T) {
	h := acptest.Start(t, acptest.EditAndCreate("done"), acptest.Options{})
	a := h.Write("a.txt", acptest.RevertOrig)
	lsp := newLSP(t, h)
	u := uri.File(a)
	if err := lsp.DidOpen(lsptest.Context(t), u, "plaintext", 1, acptest.RevertOrig); err != nil {
		t.Fatal(err)
	}
	codeActionTitles(t, lsp, u, 1) // builds the index before the run

	id := h.NewSession()
	h.MustPrompt(id, "greet the world")
	_, perms := h.Client.Snapshot()
	runID := acptest.RunID(t, perms)
	after := h.Read("a.txt")
	if err := lsp.DidChange(lsptest.Context(t), u, 2, lsptest.Whole(after)); err != nil {
		t.Fatal(err)
	}
	title := "Agent: Revert run " + runID
	testwait.Until(t, "the revert code action of the ACP run", func() bool {
		return hasTitle(codeActionTitles(t, lsp, u, 1), title)
	})
	if ts := codeActionTitles(t, lsp, u, 0); hasTitle(ts, title) || !strings.Contains(after, "hello, world") {
		t.Fatalf("revert offered on a line the run did not change: %v", ts)
	}
}
