package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/agentls/agentls/tools"
	"github.com/mark3labs/mcp-go/client/transport"
)

// mcpTool is one server tool as the model sees it.
type mcpTool struct {
	srv      *server
	name     string // registry name, mcp__<server>__<tool>
	remote   string // the server's own name for it
	desc     string
	schema   json.RawMessage
	readOnly bool
}

var _ tools.Tool = (*mcpTool)(nil)

func newTool(s *server, name string, lt listedTool) *mcpTool {
	t := lt.Tool
	desc := t.Description
	if desc == "" {
		desc = t.Title
	}
	if desc == "" {
		desc = t.Annotations.Title
	}
	if desc == "" {
		desc = fmt.Sprintf("Tool %q of MCP server %q.", t.Name, s.name)
	}
	return &mcpTool{
		srv: s, name: name, remote: t.Name, desc: desc,
		schema:   modelSchema(lt.schema),
		readOnly: t.Annotations.ReadOnlyHint != nil && *t.Annotations.ReadOnlyHint,
	}
}

// Name implements tools.Tool.
func (t *mcpTool) Name() string { return t.name }

// Description implements tools.Tool.
func (t *mcpTool) Description() string { return t.desc }

// Schema implements tools.Tool.
func (t *mcpTool) Schema() json.RawMessage { return t.schema }

// ReadOnly is the server's readOnlyHint; without it the tool is assumed to
// change things and runs in call order.
func (t *mcpTool) ReadOnly() bool { return t.readOnly }

// Strict reports that the schema is the server's own, not rewritten for
// OpenAI strict mode (all properties required, no additionalProperties):
// the agent must send MCP tools with "strict": false.
func (t *mcpTool) Strict() bool { return false }

// Call runs the tool on the server's current connection. Problems the model
// can act on (bad arguments, the tool failing, a timeout, the server being
// down) come back as error results; only cancellation of ctx is an error.
func (t *mcpTool) Call(ctx context.Context, _ *tools.Env, args json.RawMessage) (tools.Result, error) {
	s := t.srv
	c, err := s.current()
	if err != nil {
		return t.unavailable(err), nil
	}
	args = bytes.TrimSpace(args)
	if len(args) == 0 || string(args) == "null" {
		args = json.RawMessage(`{}`)
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(args, &obj); err != nil {
		return tools.Errorf("invalid arguments for %s: want a JSON object: %v", t.name, err), nil
	}

	timeout := s.m.opts.CallTimeout
	cctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	token := fmt.Sprintf("agentls-%d", s.m.tokens.Add(1))
	defer s.trackCall(token, t.name)()
	res, err := callTool(cctx, c.client.GetTransport(), t.remote, args, token)
	switch {
	case err == nil:
	case ctx.Err() != nil:
		return tools.Result{}, fmt.Errorf("%s: %w", t.name, context.Cause(ctx))
	case errors.Is(cctx.Err(), context.DeadlineExceeded):
		return tools.Errorf("%s timed out after %s; try a smaller request or different arguments", t.name, timeout), nil
	case errors.Is(err, transport.ErrSessionTerminated) || c.lostWith(errSessionEnded):
		// The server answered 404 to the session: it has forgotten it (it
		// restarted). The call never ran; the server reconnects, and the
		// model may call again.
		c.markLost(errSessionEnded)
		return tools.Errorf("%s did not run: MCP server %q ended the session (it may have restarted); reconnecting, call it again", t.name, s.name), nil
	case isConnError(err):
		if strings.Contains(err.Error(), "unexpected nil response") {
			// mcp-go's words for a response stream that ended early.
			err = errors.New("the connection closed before the answer arrived (the server may have stopped)")
		}
		if c.proc != nil && errors.Is(err, transport.ErrTransportClosed) {
			// The child closed stdout; its exit status is the better reason.
			select {
			case <-c.proc.exited:
				err = c.proc.exitError()
			case <-time.After(time.Second):
			}
		}
		c.markLost(err)
		return t.unavailable(err), nil
	default:
		return tools.Errorf("%s failed: %v", t.name, err), nil
	}
	text := renderResult(res)
	if res.IsError && text == "" {
		text = t.name + " reported an error without a message"
	}
	out := tools.Result{Text: text, IsError: res.IsError}
	if tools.WantsData(ctx) && !res.IsError && res.StructuredContent != nil {
		// A program (the script tool) gets the structured content as
		// values; without it, the text.
		out.Data = res.StructuredContent
	}
	return out, nil
}

func (t *mcpTool) unavailable(err error) tools.Result {
	return tools.Errorf("MCP server %q is unavailable: %v", t.srv.name, err)
}

// RemoteName is the MCP server's own name for t, a tool this package put
// in a registry (false for any other tool): what "agentls mcp call" and the
// server's tools/call take.
func RemoteName(t tools.Tool) (string, bool) {
	mt, ok := t.(*mcpTool)
	if !ok {
		return "", false
	}
	return mt.remote, true
}
