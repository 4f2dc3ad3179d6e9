package lspserver_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/agentls/agentls/lspserver"
	"github.com/agentls/agentls/lspserver/lsptest"
)

// TestTypedClient sends every server→client message of lspserver.Client over
// the real wire and checks what the editor receives and what comes back.
func TestTypedClient(t *testing.T) {
	s := newSession(t, lsptest.InitOptions{}, lspserver.Options{})
	ctx := lsptest.Context(t)
	cl := lspserver.ClientOf(s.srv)
	s.c.Handle(protocol.MethodWorkspaceApplyEdit, lsptest.Results(
		&protocol.ApplyWorkspaceEditResult{Applied: true},
		&protocol.ApplyWorkspaceEditResult{Applied: false, FailureReason: ptr("document changed")},
	))
	s.c.Handle(protocol.MethodWindowShowMessageRequest, lsptest.ChooseAction("Allow once"))

	u := s.uri("a.go")
	edit := &protocol.ApplyWorkspaceEditParams{Label: ptr("Agent edit"), Edit: protocol.WorkspaceEdit{
		DocumentChanges: []protocol.DocumentChange{&protocol.TextDocumentEdit{
			TextDocument: protocol.OptionalVersionedTextDocumentIdentifier{
				TextDocumentIdentifier: protocol.TextDocumentIdentifier{URI: u}, Version: ptr[int32](4)},
			Edits: []protocol.TextDocumentEditElement{&protocol.TextEdit{
				Range: protocol.Range{End: protocol.Position{Line: 1, Character: 2}}, NewText: "日本😀"}},
		}},
	}}
	res, err := cl.ApplyEdit(ctx, edit)
	if err != nil || !res.Applied {
		t.Fatalf("ApplyEdit = %+v, %v; want applied", res, err)
	}
	m, err := s.c.Await(ctx, protocol.MethodWorkspaceApplyEdit, nil)
	if err != nil {
		t.Fatal(err)
	}
	var got protocol.ApplyWorkspaceEditParams
	if err := m.DecodeParams(&got); err != nil {
		t.Fatal(err)
	}
	tde, ok := got.Edit.DocumentChanges[0].(*protocol.TextDocumentEdit)
	if !ok || tde.TextDocument.URI != u || *tde.TextDocument.Version != 4 || tde.Edits[0].(*protocol.TextEdit).NewText != "日本😀" {
		t.Fatalf("editor received %s", m)
	}
	res, err = cl.ApplyEdit(ctx, edit)
	if err != nil || res.Applied || res.FailureReason == nil || *res.FailureReason != "document changed" {
		t.Fatalf("second ApplyEdit = %+v, %v; want refused with the reason", res, err)
	}

	item, err := cl.ShowMessageRequest(ctx, &protocol.ShowMessageRequestParams{
		Type: protocol.MessageTypeWarning, Message: "Run `make`?",
		Actions: []protocol.MessageActionItem{{Title: "Allow once"}, {Title: "Deny"}},
	})
	if err != nil || item == nil || item.Title != "Allow once" {
		t.Fatalf("ShowMessageRequest = %+v, %v", item, err)
	}

	if err := cl.WorkDoneProgressCreate(ctx, &protocol.WorkDoneProgressCreateParams{Token: protocol.String("agentls/run-1")}); err != nil {
		t.Fatal(err)
	}
	begin, _ := protocol.Marshal(&protocol.WorkDoneProgressBegin{Kind: "begin", Title: "Agent"})
	if err := cl.Progress(ctx, &protocol.ProgressParams{Token: protocol.String("agentls/run-1"), Value: begin}); err != nil {
		t.Fatal(err)
	}
	if err := cl.CodeLensRefresh(ctx); err != nil {
		t.Fatal(err)
	}
	if err := cl.RegisterCapability(ctx, &protocol.RegistrationParams{Registrations: []protocol.Registration{{ID: "x", Method: "workspace/didChangeWatchedFiles"}}}); err != nil {
		t.Fatal(err)
	}
	if err := cl.ShowMessage(ctx, &protocol.ShowMessageParams{Type: protocol.MessageTypeInfo, Message: "run finished"}); err != nil {
		t.Fatal(err)
	}
	if err := cl.LogMessage(ctx, &protocol.LogMessageParams{Type: protocol.MessageTypeLog, Message: "log line"}); err != nil {
		t.Fatal(err)
	}
	event := map[string]any{"runId": "r1", "seq": 1, "kind": "text", "text": "héllo"}
	if err := cl.Notify(ctx, lspserver.MethodRunEvent, event); err != nil {
		t.Fatal(err)
	}
	if err := cl.Notify(ctx, lspserver.MethodProposalsChanged, map[string]uri.URI{"uri": u}); err != nil {
		t.Fatal(err)
	}

	for _, want := range []struct{ method, fragment string }{
		{protocol.MethodWindowShowMessageRequest, "Allow once"},
		{protocol.MethodWindowWorkDoneProgressCreate, "agentls/run-1"},
		{protocol.MethodProgress, `"kind":"begin"`},
		{protocol.MethodWorkspaceCodeLensRefresh, ""},
		{protocol.MethodClientRegisterCapability, `"id":"x"`},
		{protocol.MethodWindowShowMessage, "run finished"},
		{protocol.MethodWindowLogMessage, "log line"},
		{lspserver.MethodRunEvent, `"text":"héllo"`},
		{lspserver.MethodProposalsChanged, string(u)},
	} {
		m, err := s.c.Await(ctx, want.method, func(m lsptest.Message) bool { return strings.Contains(string(m.Params), want.fragment) })
		if err != nil {
			t.Fatalf("%s: %v", want.method, err)
		}
		if want.method == lspserver.MethodRunEvent {
			var ev map[string]any
			if err := json.Unmarshal(m.Params, &ev); err != nil || ev["runId"] != "r1" || ev["seq"] != 1.0 {
				t.Errorf("runEvent params = %s", m.Params)
			}
		}
	}
}

// TestTypedClientErrors: an editor's error answer reaches the caller with
// its code, and a cancelled call returns promptly.
func TestTypedClientErrors(t *testing.T) {
	s := newSession(t, lsptest.InitOptions{}, lspserver.Options{})
	ctx := lsptest.Context(t)
	s.c.Handle(protocol.MethodWindowWorkDoneProgressCreate, func(lsptest.Message) (any, *lsptest.Error) {
		return nil, &lsptest.Error{Code: -32603, Message: "no progress UI"}
	})
	err := lspserver.ClientOf(s.srv).WorkDoneProgressCreate(ctx, &protocol.WorkDoneProgressCreateParams{Token: protocol.Integer(7)})
	if err == nil || !strings.Contains(err.Error(), "no progress UI") {
		t.Fatalf("err = %v, want the editor's error", err)
	}
	// The default applyEdit handler refuses, with a reason.
	res, err := lspserver.ClientOf(s.srv).ApplyEdit(ctx, &protocol.ApplyWorkspaceEditParams{})
	if err != nil || res.Applied || res.FailureReason == nil {
		t.Fatalf("default applyEdit = %+v, %v", res, err)
	}

	// Cancelling a call that the editor holds returns at once and tells the
	// editor with $/cancelRequest.
	release := make(chan struct{})
	s.c.Handle(protocol.MethodWindowShowMessageRequest, func(lsptest.Message) (any, *lsptest.Error) {
		<-release
		return nil, nil
	})
	callCtx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() {
		_, err := lspserver.ClientOf(s.srv).ShowMessageRequest(callCtx, &protocol.ShowMessageRequestParams{Message: "hold"})
		done <- err
	}()
	if _, err := s.c.Await(ctx, protocol.MethodWindowShowMessageRequest, nil); err != nil {
		t.Fatal(err)
	}
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled call returned %v, want context.Canceled", err)
	}
	if _, err := s.c.Await(ctx, protocol.MethodCancelRequest, nil); err != nil {
		t.Errorf("no $/cancelRequest: %v", err)
	}
	close(release)
}

func ptr[T any](v T) *T { return &v }
