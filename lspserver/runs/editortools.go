package runs

import (
	"context"
	"encoding/json"
	"sync"

	"github.com/agentls/agentls/lspserver/core"
	"github.com/agentls/agentls/tools"
	"github.com/agentls/agentls/tools/editortools"
)

// The editor's own tools (docs/editor-tools.md).
const (
	// MethodRegisterTools is the client → server request that gives the
	// agent the editor's tools (replacing its earlier set).
	MethodRegisterTools = "agentls/registerTools"
	// MethodInvokeClientTool is the server → client request that runs one.
	MethodInvokeClientTool = "agentls/invokeClientTool"
)

// RegisterToolsParams are agentls/registerTools' params.
type RegisterToolsParams struct {
	Tools []editortools.Def `json:"tools"`
}

// InvokeClientToolParams are agentls/invokeClientTool's params.
type InvokeClientToolParams struct {
	RunID     string          `json:"runId"`
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
}

// InvokeClientToolResult is agentls/invokeClientTool's result.
type InvokeClientToolResult struct {
	Content string `json:"content"`
	IsError bool   `json:"isError,omitempty"`
}

// editorToolsState holds the connected editor's tool set, made on first
// use (the client is known only once the connection is up).
type editorToolsState struct {
	once sync.Once
	set  *editortools.Set
}

// editorTools is the editor's tool set; its calls go to the editor as
// agentls/invokeClientTool, each bounded by client.requestTimeoutSeconds
// and the run's cancellation.
func (rs *Runs) editorTools() *editortools.Set {
	rs.editor.once.Do(func() {
		rs.editor.set = editortools.NewSet(rs.invokeClientTool, rs.ClientRequestTimeout)
	})
	return rs.editor.set
}

func (rs *Runs) invokeClientTool(ctx context.Context, runID, name string, args json.RawMessage) (string, bool, error) {
	r, ok := rs.core.Client().(requester)
	if !ok {
		return "", false, errNoRequests
	}
	var res InvokeClientToolResult
	if err := r.Request(ctx, MethodInvokeClientTool, InvokeClientToolParams{RunID: runID, Name: name, Arguments: args}, &res); err != nil {
		return "", false, err
	}
	return res.Content, res.IsError, nil
}

// errNoRequests: the connection's client cannot send custom requests
// (a test double).
var errNoRequests = core.RequestFailed("this connection cannot send %s", MethodInvokeClientTool)

// RegisterTools answers agentls/registerTools: the set replaces the
// editor's earlier one from the next turn of every run on. A bad set is
// InvalidParams and leaves the earlier one.
func (rs *Runs) RegisterTools(_ context.Context, p *RegisterToolsParams) (struct{}, error) {
	if err := rs.editorTools().Replace(p.Tools); err != nil {
		return struct{}{}, core.InvalidParams("%s: %v", MethodRegisterTools, err)
	}
	names := make([]string, len(p.Tools))
	for i, d := range p.Tools {
		names[i] = editortools.Prefix + d.Name
	}
	rs.log.Info("editor tools registered", "tools", names)
	return struct{}{}, nil
}

// syncTools is a run's Setup.SyncTools: the MCP tools and the editor's
// tools as they are at this turn.
func (rs *Runs) syncTools(reg *tools.Registry) {
	rs.syncMCPTools(reg)
	rs.editorTools().Sync(reg)
}
