package runs

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"go.lsp.dev/protocol"
	lspuri "go.lsp.dev/uri"

	"github.com/agentls/agentls/lspserver/core"
	"github.com/agentls/agentls/tools/mcp"
)

// MCP elicitation in the editor. A server asking the user for input
// (elicitation/create) reaches the editor in one of three ways:
//
//   - clients that declare capabilities.experimental.agentls.elicitationForms
//     (our plugins) get the custom request agentls/elicit with the whole form
//     and answer {action, content};
//   - otherwise a confirmation (no fields), a single yes/no field or a single
//     enum field becomes window/showMessageRequest, one action per answer
//     plus "Decline"; a URL-mode request offers "Open" (window/showDocument,
//     external) and "Decline";
//   - any other form is declined (and logged): a plain LSP client cannot
//     render it.
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

// elicitFields is a form's schema as far as a message with buttons can
// show it.
type elicitFields struct {
	Properties map[string]struct {
		Type  string   `json:"type"`
		Title string   `json:"title"`
		Enum  []string `json:"enum"`
	} `json:"properties"`
}

// elicit answers an MCP server's elicitation/create (mcp.Options.Elicit).
func (rs *Runs) elicit(ctx context.Context, e mcp.Elicitation) (mcp.ElicitResult, error) {
	decline := mcp.ElicitResult{Action: mcp.ElicitDecline}
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
	prefix := fmt.Sprintf("MCP server %q asks: %s", e.Server, e.Message)
	if e.Mode == "url" {
		item, err := rs.core.Client().ShowMessageRequest(ctx, &protocol.ShowMessageRequestParams{Type: protocol.MessageTypeInfo,
			Message: prefix + "\n" + e.URL, Actions: []protocol.MessageActionItem{{Title: "Open"}, {Title: "Decline"}}})
		switch {
		case err != nil:
			return mcp.ElicitResult{}, err
		case item == nil:
			return mcp.ElicitResult{Action: mcp.ElicitCancel}, nil
		case item.Title != "Open":
			return decline, nil
		}
		rs.openExternal(ctx, e.URL)
		return mcp.ElicitResult{Action: mcp.ElicitAccept}, nil
	}
	var f elicitFields
	if err := json.Unmarshal(e.Schema, &f); err != nil {
		return decline, nil
	}
	var field string
	var answers []string // action titles that accept, in order
	switch len(f.Properties) {
	case 0:
		answers = []string{"Accept"}
	case 1:
		for name, p := range f.Properties {
			field = name
			switch {
			case len(p.Enum) > 0:
				answers = p.Enum
			case p.Type == "boolean":
				answers = []string{"Yes", "No"}
			}
			if p.Title != "" {
				prefix += " (" + p.Title + ")"
			}
		}
	}
	if answers == nil {
		rs.log.Info("MCP elicitation declined: the form needs a plugin that renders agentls/elicit", "server", e.Server)
		rs.core.LogToEditor(ctx, protocol.MessageTypeWarning, prefix+"\n(agentls declined: this form needs the agentls editor plugin)")
		return decline, nil
	}
	actions := make([]protocol.MessageActionItem, 0, len(answers)+1)
	for _, a := range answers {
		actions = append(actions, protocol.MessageActionItem{Title: a})
	}
	actions = append(actions, protocol.MessageActionItem{Title: "Decline"})
	item, err := rs.core.Client().ShowMessageRequest(ctx, &protocol.ShowMessageRequestParams{Type: protocol.MessageTypeInfo, Message: prefix, Actions: actions})
	switch {
	case err != nil:
		return mcp.ElicitResult{}, err
	case item == nil:
		return mcp.ElicitResult{Action: mcp.ElicitCancel}, nil
	case !slices.Contains(answers, item.Title):
		return decline, nil
	}
	res := mcp.ElicitResult{Action: mcp.ElicitAccept}
	if field != "" {
		var v any = item.Title
		if f.Properties[field].Type == "boolean" {
			v = item.Title == "Yes"
		}
		res.Content = map[string]any{field: v}
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
