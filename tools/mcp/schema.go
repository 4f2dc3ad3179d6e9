package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"sync/atomic"

	"github.com/agentls/agentls/tools"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
)

// Tool schemas reach the model as the server sent them. mcp-go decodes
// inputSchema into a struct that keeps only type, properties, required,
// additionalProperties and $defs (a top-level $ref, oneOf/anyOf/allOf,
// if/then/else and $schema were lost), so tools/list is sent on the
// transport directly and each tool's inputSchema kept as raw JSON.

// listedTool is one tool of a tools/list result: mcp-go's decoding for the
// name, description and annotations, plus the raw input schema.
type listedTool struct {
	mcp.Tool
	schema json.RawMessage
}

// rawListIDs numbers our own tools/list requests; the string prefix keeps
// them apart from mcp-go's numeric request ids on the same connection.
var rawListIDs atomic.Int64

// maxListPages bounds pagination against a server that never stops.
const maxListPages = 1000

// listToolsRaw fetches every page of tools/list.
func listToolsRaw(ctx context.Context, tr transport.Interface) ([]listedTool, error) {
	var out []listedTool
	cursor := ""
	seen := map[string]bool{}
	for range maxListPages {
		var params any
		if cursor != "" {
			params = map[string]any{"cursor": cursor}
		}
		req := transport.JSONRPCRequest{
			JSONRPC: mcp.JSONRPC_VERSION,
			ID:      mcp.NewRequestId(fmt.Sprintf("agentls-list-%d", rawListIDs.Add(1))),
			Method:  string(mcp.MethodToolsList),
			Params:  params,
		}
		resp, err := tr.SendRequest(ctx, req)
		if err != nil {
			return nil, err
		}
		if resp.Error != nil {
			return nil, resp.Error.AsError()
		}
		var page struct {
			Tools      []json.RawMessage `json:"tools"`
			NextCursor string            `json:"nextCursor"`
		}
		if err := json.Unmarshal(resp.Result, &page); err != nil {
			return nil, fmt.Errorf("malformed tools/list result: %w", err)
		}
		for _, raw := range page.Tools {
			var lt listedTool
			if err := json.Unmarshal(raw, &lt.Tool); err != nil {
				return nil, fmt.Errorf("malformed tool in tools/list: %w", err)
			}
			var only struct {
				InputSchema json.RawMessage `json:"inputSchema"`
			}
			_ = json.Unmarshal(raw, &only) // the whole tool decoded above
			lt.schema = only.InputSchema
			out = append(out, lt)
		}
		if page.NextCursor == "" {
			return out, nil
		}
		if seen[page.NextCursor] {
			return nil, fmt.Errorf("tools/list: the server repeated cursor %q", page.NextCursor)
		}
		seen[page.NextCursor] = true
		cursor = page.NextCursor
	}
	return nil, fmt.Errorf("tools/list: more than %d pages", maxListPages)
}

// modelSchema adapts a server's input schema for the model endpoint (see
// tools.ForeignSchema, shared with the editor's tools).
func modelSchema(raw json.RawMessage) json.RawMessage { return tools.ForeignSchema(raw) }
