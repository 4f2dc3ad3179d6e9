package runs

import (
	"context"
	"encoding/json"
	"errors"

	"go.lsp.dev/protocol"
	lspuri "go.lsp.dev/uri"

	"github.com/agentls/agentls/lspserver/core"
	"github.com/agentls/agentls/tools/mcp"
)

// MCP elicitation in the editor. A server asking the user for input
// (elicitation/create) reaches the editor in one of two ways:
//
//   - clients that declare capabilities.experimental.agentls.elicitationForms
//     (our plugins) get the custom request agentls/elicit with the whole form
//     and answer {action, content};
//   - otherwise the request is asked as a question with choices
//     (mcp.AskWithoutForm: which shapes can be, and what each answer means)
//     with window/showMessageRequest, one action per choice; "Open" of a
//     URL-mode request is window/showDocument (external). A form that needs
//     fields is declined and logged.
//
// Dismissing the message is "cancel". Defaults from the schema are applied
// by tools/mcp after the answer.

// MethodElicit is the server→client request our plugins answer with the
// user's input for an MCP server's form.
const MethodElicit = "agentls/elicit"

// ElicitParams are agentls/elicit's params.
type ElicitParams struct {
	Server          string          `json:"server"`
	Message         string          `json:"message"`
	Mode            string          `json:"mode"` // "form" or "url"
	RequestedSchema json.RawMessage `json:"requestedSchema,omitempty"`
	URL             string          `json:"url,omitempty"`
}

// ElicitAnswer is agentls/elicit's result.
type ElicitAnswer struct {
	Action  string         `json:"action"` // "accept", "decline" or "cancel"
	Content map[string]any `json:"content,omitempty"`
}

// requester is the part of the real client that sends custom requests.
type requester interface {
	Request(ctx context.Context, method string, params, result any) error
}

// elicit answers an MCP server's elicitation/create (mcp.Options.Elicit).
func (rs *Runs) elicit(ctx context.Context, e mcp.Elicitation) (mcp.ElicitResult, error) {
	if sess := rs.core.Session(); sess != nil && sess.Features.ElicitationForms {
		if r, ok := rs.core.Client().(requester); ok {
			var ans ElicitAnswer
			err := r.Request(ctx, MethodElicit, ElicitParams{Server: e.Server, Message: e.Message, Mode: e.Mode, RequestedSchema: e.Schema, URL: e.URL}, &ans)
			if err != nil {
				return mcp.ElicitResult{}, err
			}
			return mcp.ElicitResult{Action: mcp.ElicitAction(ans.Action), Content: ans.Content}, nil
		}
	}
	q := mcp.AskWithoutForm(e)
	if q.Declined != "" {
		rs.log.Info("MCP elicitation declined: the form needs a plugin that renders agentls/elicit", "server", e.Server, "reason", q.Declined)
		rs.core.LogToEditor(ctx, protocol.MessageTypeWarning, q.Text+"\n(agentls declined: this form needs the agentls editor plugin)")
		return mcp.ElicitResult{Action: mcp.ElicitDecline}, nil
	}
	actions := make([]protocol.MessageActionItem, len(q.Choices))
	for i, c := range q.Choices {
		actions[i] = protocol.MessageActionItem{Title: c.Title}
	}
	item, err := rs.core.Client().ShowMessageRequest(ctx, &protocol.ShowMessageRequestParams{Type: protocol.MessageTypeInfo, Message: q.Text, Actions: actions})
	switch {
	case err != nil:
		return mcp.ElicitResult{}, err
	case item == nil:
		return mcp.ElicitResult{Action: mcp.ElicitCancel}, nil
	}
	res := q.Answer(item.Title)
	if res.Action == mcp.ElicitAccept && q.URL != "" {
		rs.openExternal(ctx, q.URL)
	}
	return res, nil
}

// openExternal asks the editor to open uri outside (window/showDocument
// with external: true); an editor that cannot is shown the address. Only
// https (or loopback http) addresses are opened (mcp.CheckBrowserURL):
// every caller passes an address a server chose, and an editor opens
// vscode://, file:// or command: links as actions.
func (rs *Runs) openExternal(ctx context.Context, address string) {
	if err := mcp.CheckBrowserURL(address); err != nil {
		rs.log.Warn("address not opened", "err", err)
		rs.core.LogToEditor(ctx, protocol.MessageTypeWarning, "agentls: not opened: "+err.Error())
		return
	}
	rs.showDocument(ctx, address)
}

// showDocument asks the editor to open address outside (showDocument with
// external: true), else names it in a message. Callers vouch for address:
// openExternal checks addresses that come from elsewhere (MCP servers);
// the run report's file:// address is agentls's own file.
func (rs *Runs) showDocument(ctx context.Context, address string) {
	sd, ok := rs.core.Client().(interface {
		ShowDocument(ctx context.Context, p *protocol.ShowDocumentParams) (*protocol.ShowDocumentResult, error)
	})
	if sess := rs.core.Session(); ok && sess != nil && sess.Features.ShowDocument {
		res, err := sd.ShowDocument(ctx, &protocol.ShowDocumentParams{URI: lspuri.URI(address), External: core.Ptr(true)})
		if err == nil && res != nil && res.Success {
			return
		}
		if err != nil && !errors.Is(err, context.Canceled) {
			rs.log.Debug("window/showDocument failed", "err", err)
		}
	}
	if err := rs.core.Client().ShowMessage(ctx, &protocol.ShowMessageParams{Type: protocol.MessageTypeInfo, Message: "agentls: open " + address}); err != nil {
		rs.log.Debug("showMessage failed", "err", err)
	}
}
