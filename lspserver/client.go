package lspserver

import (
	"context"
	"fmt"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
)

// Custom server→client notifications of the agentls protocol (docs/protocol.md).
const (
	MethodRunEvent         = "agentls/runEvent"
	MethodProposalsChanged = "agentls/proposalsChanged"
)

// Client is every server→client message agentls sends, typed, so that code
// never scatters method-name strings and tests can substitute a fake.
//
// Methods that are LSP *requests* (ApplyEdit, ShowMessageRequest,
// WorkDoneProgressCreate, CodeLensRefresh, RegisterCapability) wait for the
// editor's answer: never call them from a notification handler, which runs on
// the read loop and would deadlock (docs/pitfalls.md "LSP: server→client calls"); call them from a request
// handler (already released) or a goroutine the Server owns (Server.goBackground).
// Cancelling ctx sends $/cancelRequest for the outstanding call.
type Client interface {
	// ApplyEdit asks the editor to apply a workspace edit (workspace/applyEdit).
	ApplyEdit(ctx context.Context, params *protocol.ApplyWorkspaceEditParams) (*protocol.ApplyWorkspaceEditResult, error)
	// ShowMessage shows a message without waiting (window/showMessage).
	ShowMessage(ctx context.Context, params *protocol.ShowMessageParams) error
	// ShowMessageRequest asks the user to pick an action; nil means dismissed
	// (window/showMessageRequest).
	ShowMessageRequest(ctx context.Context, params *protocol.ShowMessageRequestParams) (*protocol.MessageActionItem, error)
	// LogMessage writes to the editor's log for this server (window/logMessage).
	LogMessage(ctx context.Context, params *protocol.LogMessageParams) error
	// Progress reports work-done progress ($/progress).
	Progress(ctx context.Context, params *protocol.ProgressParams) error
	// WorkDoneProgressCreate creates a server-initiated progress token
	// (window/workDoneProgress/create).
	WorkDoneProgressCreate(ctx context.Context, params *protocol.WorkDoneProgressCreateParams) error
	// CodeLensRefresh asks the editor to re-request code lenses
	// (workspace/codeLens/refresh).
	CodeLensRefresh(ctx context.Context) error
	// RegisterCapability registers a capability dynamically
	// (client/registerCapability).
	RegisterCapability(ctx context.Context, params *protocol.RegistrationParams) error
	// Notify sends a custom notification such as MethodRunEvent or
	// MethodProposalsChanged; params are marshalled with protocol.Marshal.
	Notify(ctx context.Context, method string, params any) error
}

// connClient implements Client over the server's jsonrpc2 connection.
type connClient struct {
	conn jsonrpc2.Conn
	std  protocol.Client
}

func newConnClient(conn jsonrpc2.Conn) *connClient {
	return &connClient{conn: conn, std: protocol.ClientDispatcher(conn)}
}

func (c *connClient) ApplyEdit(ctx context.Context, p *protocol.ApplyWorkspaceEditParams) (*protocol.ApplyWorkspaceEditResult, error) {
	r, err := c.std.ApplyEdit(ctx, p)
	if err != nil {
		return nil, fmt.Errorf("workspace/applyEdit: %w", err)
	}
	if r == nil {
		return nil, fmt.Errorf("workspace/applyEdit: editor answered null")
	}
	return r, nil
}

func (c *connClient) ShowMessage(ctx context.Context, p *protocol.ShowMessageParams) error {
	return wrap("window/showMessage", c.std.ShowMessage(ctx, p))
}

func (c *connClient) ShowMessageRequest(ctx context.Context, p *protocol.ShowMessageRequestParams) (*protocol.MessageActionItem, error) {
	r, err := c.std.ShowMessageRequest(ctx, p)
	return r, wrap("window/showMessageRequest", err)
}

func (c *connClient) LogMessage(ctx context.Context, p *protocol.LogMessageParams) error {
	return wrap("window/logMessage", c.std.LogMessage(ctx, p))
}

func (c *connClient) Progress(ctx context.Context, p *protocol.ProgressParams) error {
	return wrap("$/progress", c.std.Progress(ctx, p))
}

func (c *connClient) WorkDoneProgressCreate(ctx context.Context, p *protocol.WorkDoneProgressCreateParams) error {
	return wrap("window/workDoneProgress/create", c.std.WorkDoneProgressCreate(ctx, p))
}

func (c *connClient) CodeLensRefresh(ctx context.Context) error {
	return wrap("workspace/codeLens/refresh", c.std.CodeLensRefresh(ctx))
}

func (c *connClient) RegisterCapability(ctx context.Context, p *protocol.RegistrationParams) error {
	return wrap("client/registerCapability", c.std.RegisterCapability(ctx, p))
}

func (c *connClient) Notify(ctx context.Context, method string, params any) error {
	return wrap(method, c.conn.Notify(ctx, method, params))
}

func wrap(method string, err error) error {
	if err != nil {
		return fmt.Errorf("%s: %w", method, err)
	}
	return nil
}
