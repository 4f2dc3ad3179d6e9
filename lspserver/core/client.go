package core

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/internal/redact"
)

// Client is every server→client message agentls sends, typed, so that code
// never scatters method-name strings and tests can substitute a fake.
//
// Methods that are LSP *requests* (ApplyEdit, ShowMessageRequest,
// WorkDoneProgressCreate, CodeLensRefresh, RegisterCapability) wait for the
// editor's answer: never call them from a notification handler, which runs on
// the read loop and would deadlock (docs/pitfalls.md "LSP: server→client calls"); call them from a request
// handler (already released) or a goroutine the Server owns (Server.Go).
// Cancelling ctx sends $/cancelRequest for the outstanding call.
//
// An editor that never answers must not stall anything: every request
// except ShowMessageRequest is bounded by client.requestTimeoutSeconds
// (default 30 s) on top of the caller's ctx, and fails with an error
// saying the editor did not answer. ShowMessageRequest waits for a human
// (approvals), so it has no timeout of its own: it ends with the caller's
// ctx, which for an approval is the run's (cancel, maxWallClockSeconds).
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
	// Notify sends a custom notification such as agentls/runEvent or
	// agentls/proposalsChanged; params are marshalled with
	// protocol.Marshal, after Redacted when they implement Redacter.
	Notify(ctx context.Context, method string, params any) error
}

// Redacter is implemented by notification params that carry text for
// people (a run's error): Notify sends Redacted() instead, so a key or a
// credential quoted by an error never reaches the editor.
type Redacter interface {
	Redacted() any
}

// connClient implements Client over the server's jsonrpc2 connection.
type connClient struct {
	conn jsonrpc2.Conn
	std  protocol.Client
	// timeout is the bound of requests that do not wait for a human.
	timeout func() time.Duration
}

func newConnClient(conn jsonrpc2.Conn, timeout func() time.Duration) *connClient {
	return &connClient{conn: conn, std: protocol.ClientDispatcher(conn), timeout: timeout}
}

// ErrClientTimeout is wrapped by the error of a server→client request the
// editor did not answer within client.requestTimeoutSeconds.
var ErrClientTimeout = errors.New("the editor did not answer")

// bounded runs call with ctx bounded by the request timeout; a call that
// ran out of time (and not because ctx itself ended) fails with an error
// wrapping ErrClientTimeout.
func (c *connClient) bounded(ctx context.Context, method string, call func(context.Context) error) error {
	d := c.timeout()
	tctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	err := call(tctx)
	if err != nil && ctx.Err() == nil && tctx.Err() != nil {
		return fmt.Errorf("%s: %w within %s (client.requestTimeoutSeconds)", method, ErrClientTimeout, d)
	}
	return wrap(method, err)
}

func (c *connClient) ApplyEdit(ctx context.Context, p *protocol.ApplyWorkspaceEditParams) (*protocol.ApplyWorkspaceEditResult, error) {
	var r *protocol.ApplyWorkspaceEditResult
	err := c.bounded(ctx, "workspace/applyEdit", func(ctx context.Context) (err error) {
		r, err = c.std.ApplyEdit(ctx, p)
		return err
	})
	if err != nil {
		return nil, err
	}
	if r == nil {
		return nil, fmt.Errorf("workspace/applyEdit: editor answered null")
	}
	return r, nil
}

// Messages for people (showMessage, showMessageRequest, logMessage,
// $/progress, a run's error) pass through redact.Text on their way out, so
// a key or a credential in a URL (http://user:pass@host, ?api-key=…) quoted
// by any error never reaches the editor, whoever built the message.

func (c *connClient) ShowMessage(ctx context.Context, p *protocol.ShowMessageParams) error {
	q := *p
	q.Message = redact.Text(p.Message)
	return wrap("window/showMessage", c.std.ShowMessage(ctx, &q))
}

func (c *connClient) ShowMessageRequest(ctx context.Context, p *protocol.ShowMessageRequestParams) (*protocol.MessageActionItem, error) {
	q := *p
	q.Message = redact.Text(p.Message)
	r, err := c.std.ShowMessageRequest(ctx, &q)
	return r, wrap("window/showMessageRequest", err)
}

func (c *connClient) LogMessage(ctx context.Context, p *protocol.LogMessageParams) error {
	q := *p
	q.Message = redact.Text(p.Message)
	return wrap("window/logMessage", c.std.LogMessage(ctx, &q))
}

func (c *connClient) Progress(ctx context.Context, p *protocol.ProgressParams) error {
	q := *p
	var v map[string]any
	if json.Unmarshal(p.Value, &v) == nil {
		changed := false
		for _, k := range []string{"title", "message"} {
			if str, ok := v[k].(string); ok {
				if r := redact.Text(str); r != str {
					v[k], changed = r, true
				}
			}
		}
		if changed {
			if raw, err := json.Marshal(v); err == nil {
				q.Value = raw
			}
		}
	}
	return wrap("$/progress", c.std.Progress(ctx, &q))
}

func (c *connClient) WorkDoneProgressCreate(ctx context.Context, p *protocol.WorkDoneProgressCreateParams) error {
	return c.bounded(ctx, "window/workDoneProgress/create", func(ctx context.Context) error {
		return c.std.WorkDoneProgressCreate(ctx, p)
	})
}

func (c *connClient) CodeLensRefresh(ctx context.Context) error {
	return c.bounded(ctx, "workspace/codeLens/refresh", c.std.CodeLensRefresh)
}

func (c *connClient) RegisterCapability(ctx context.Context, p *protocol.RegistrationParams) error {
	return c.bounded(ctx, "client/registerCapability", func(ctx context.Context) error {
		return c.std.RegisterCapability(ctx, p)
	})
}

func (c *connClient) Notify(ctx context.Context, method string, params any) error {
	if r, ok := params.(Redacter); ok {
		params = r.Redacted()
	}
	return wrap(method, c.conn.Notify(ctx, method, params))
}

func wrap(method string, err error) error {
	if err != nil {
		return fmt.Errorf("%s: %w", method, err)
	}
	return nil
}

// ShowDocument asks the editor to show a document or, with external, open
// an address in the browser (window/showDocument).
func (c *connClient) ShowDocument(ctx context.Context, p *protocol.ShowDocumentParams) (*protocol.ShowDocumentResult, error) {
	var res *protocol.ShowDocumentResult
	err := c.bounded(ctx, "window/showDocument", func(ctx context.Context) error {
		var err error
		res, err = c.std.ShowDocument(ctx, p)
		return err
	})
	return res, err
}

// Request sends a custom server→client request and decodes its result. It
// waits for a human, so like ShowMessageRequest it ends only with ctx.
func (c *connClient) Request(ctx context.Context, method string, params, result any) error {
	return wrap(method, protocol.Call(ctx, c.conn, method, params, result))
}

// Show shows msg in the editor (window/showMessage) without waiting; a
// failure is only logged.
func (s *Server) Show(typ protocol.MessageType, msg string) {
	if err := s.client.ShowMessage(s.work.Context(), &protocol.ShowMessageParams{Type: typ, Message: msg}); err != nil {
		s.log.Debug("showMessage not sent", "err", err)
	}
}

// Ask puts a question to the user with window/showMessageRequest, one
// action per choice, and reads the answer by the core's one rule
// (agent.Decide): only an offered action counts; a dismissed, unknown or
// failed answer is the deny. err says why there was no answer, for logs
// and for callers that tell a cancelled run from a refusal. It waits for
// a person: ctx must bound it.
func (s *Server) Ask(ctx context.Context, typ protocol.MessageType, message string, choices []agent.Choice) (agent.Choice, error) {
	actions := make([]protocol.MessageActionItem, len(choices))
	for i, c := range choices {
		actions[i] = protocol.MessageActionItem{Title: c.ID}
	}
	item, err := s.client.ShowMessageRequest(ctx, &protocol.ShowMessageRequestParams{Type: typ, Message: message, Actions: actions})
	title := ""
	if item != nil {
		title = item.Title
	}
	return agent.Decide(choices, title, err), err
}

// LogToEditor writes msg to the editor's log for this server
// (window/logMessage); a failure is only logged.
func (s *Server) LogToEditor(ctx context.Context, typ protocol.MessageType, msg string) {
	if err := s.client.LogMessage(ctx, &protocol.LogMessageParams{Type: typ, Message: msg}); err != nil {
		s.log.Debug("logMessage not sent", "err", err)
	}
}
