package mcp

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
)

// Elicitation is a server's request for input from the user
// (elicitation/create).
type Elicitation struct {
	Server  string // configured server name
	Message string
	// Mode is "form" (Schema describes the answer) or "url" (the user is
	// to open URL).
	Mode   string
	Schema json.RawMessage // requestedSchema, form mode
	URL    string          // url mode
}

// ElicitAction is how the user answered an elicitation.
type ElicitAction string

// The answers MCP defines.
const (
	ElicitAccept  ElicitAction = "accept"
	ElicitDecline ElicitAction = "decline"
	ElicitCancel  ElicitAction = "cancel"
)

// ElicitResult is the user's answer. Content (accept, form mode) maps the
// schema's property names to values; defaults from the schema fill what it
// leaves out.
type ElicitResult struct {
	Action  ElicitAction
	Content map[string]any
}

// serverRequest answers requests from the server: ping, roots/list and
// elicitation/create; anything else gets -32601 (method not found), which
// tells the server the feature is absent (mcp-go answers -32603, an
// internal error, which servers treat as a failure).
func (s *server) serverRequest(ctx context.Context, req transport.JSONRPCRequest) (*transport.JSONRPCResponse, error) {
	result := func(v any) (*transport.JSONRPCResponse, error) {
		b, err := json.Marshal(v)
		if err != nil {
			return transport.NewJSONRPCErrorResponse(req.ID, mcp.INTERNAL_ERROR, err.Error(), nil), nil
		}
		return transport.NewJSONRPCResultResponse(req.ID, b), nil
	}
	switch req.Method {
	case string(mcp.MethodPing):
		return result(struct{}{})
	case string(mcp.MethodListRoots):
		res, _ := rootsHandler{s.m}.ListRoots(ctx, mcp.ListRootsRequest{})
		return result(res)
	case string(mcp.MethodElicitationCreate):
		var p mcp.ElicitationParams
		if b, err := json.Marshal(req.Params); err != nil || json.Unmarshal(b, &p) != nil {
			return transport.NewJSONRPCErrorResponse(req.ID, mcp.INVALID_PARAMS, "malformed elicitation/create params", nil), nil
		}
		if err := p.Validate(); err != nil {
			return transport.NewJSONRPCErrorResponse(req.ID, mcp.INVALID_PARAMS, err.Error(), nil), nil
		}
		res := s.elicit(ctx, p)
		out := map[string]any{"action": res.Action}
		if res.Action == ElicitAccept && res.Content != nil {
			out["content"] = res.Content
		}
		return result(out)
	default:
		return transport.NewJSONRPCErrorResponse(req.ID, mcp.METHOD_NOT_FOUND,
			fmt.Sprintf("method not found: agentls does not support %q", req.Method), nil), nil
	}
}

// elicit asks the user through Options.Elicit (declining without one) and
// applies the schema's defaults to an accepted form.
func (s *server) elicit(ctx context.Context, p mcp.ElicitationParams) ElicitResult {
	e := Elicitation{Server: s.name, Message: p.Message, Mode: p.Mode, URL: p.URL}
	if e.Mode == "" {
		e.Mode = mcp.ElicitationModeForm
	}
	if p.RequestedSchema != nil {
		e.Schema, _ = json.Marshal(p.RequestedSchema)
	}
	if s.m.opts.Elicit == nil {
		return ElicitResult{Action: ElicitDecline}
	}
	if err := s.admitElicitation(); err != nil {
		s.log.Warn("MCP elicitation declined", "err", err)
		return ElicitResult{Action: ElicitDecline}
	}
	e, err := screenElicitation(e)
	if err != nil {
		s.log.Warn("MCP elicitation declined", "err", err)
		return ElicitResult{Action: ElicitDecline}
	}
	// The user may take a while, but not forever: as long as a tool call.
	ctx, cancel := context.WithTimeout(ctx, s.m.opts.CallTimeout)
	defer cancel()
	if s.elicitTurn != nil { // one request in front of the user at a time
		select {
		case s.elicitTurn <- struct{}{}:
			defer func() { <-s.elicitTurn }()
		case <-ctx.Done():
			return ElicitResult{Action: ElicitCancel}
		}
	}
	res, err := s.m.opts.Elicit(ctx, e)
	if err != nil {
		s.log.Debug("elicitation not answered", "err", err)
		return ElicitResult{Action: ElicitCancel}
	}
	switch res.Action {
	case ElicitAccept:
		if e.Mode == mcp.ElicitationModeForm {
			res.Content = ApplyDefaults(e.Schema, res.Content)
		}
	case ElicitDecline, ElicitCancel:
		res.Content = nil
	default:
		res = ElicitResult{Action: ElicitCancel}
	}
	return res
}

// ApplyDefaults fills the properties of an elicitation schema that content
// leaves out with the schema's "default" values.
func ApplyDefaults(schema json.RawMessage, content map[string]any) map[string]any {
	var sc struct {
		Properties map[string]struct {
			Default any `json:"default"`
		} `json:"properties"`
	}
	if json.Unmarshal(schema, &sc) != nil {
		return content
	}
	for name, p := range sc.Properties {
		if p.Default == nil {
			continue
		}
		if _, ok := content[name]; ok {
			continue
		}
		if content == nil {
			content = map[string]any{}
		}
		content[name] = p.Default
	}
	return content
}

// elicitHandler only makes mcp-go advertise the elicitation capability;
// serverRequest answers elicitation/create.
type elicitHandler struct{ s *server }

func (h elicitHandler) Elicit(ctx context.Context, req mcp.ElicitationRequest) (*mcp.ElicitationResult, error) {
	res := h.s.elicit(ctx, req.Params)
	return &mcp.ElicitationResult{ElicitationResponse: mcp.ElicitationResponse{Action: mcp.ElicitationResponseAction(res.Action), Content: res.Content}}, nil
}
