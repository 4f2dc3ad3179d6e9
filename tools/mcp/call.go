package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
)

// Tool calls go out on the transport with our own request id rather than
// through mcp-go's Client.CallTool, so that a call whose context ends can be
// cancelled with notifications/cancelled on every transport: mcp-go sends
// it over stdio only, and over streamable HTTP merely closes the response
// stream, which on the handshake-era protocol we pin does not cancel the
// request (the server keeps working).

// callIDs numbers our tools/call requests.
var callIDs atomic.Int64

// cancelNoticeTimeout bounds sending notifications/cancelled.
const cancelNoticeTimeout = 5 * time.Second

// callTool sends tools/call and decodes the result. When ctx ends first, it
// tells the server with notifications/cancelled and returns ctx's error.
func callTool(ctx context.Context, tr transport.Interface, name string, args json.RawMessage, progressToken string) (*mcp.CallToolResult, error) {
	id := mcp.NewRequestId(fmt.Sprintf("agentls-call-%d", callIDs.Add(1)))
	params := map[string]any{"name": name, "arguments": args}
	if progressToken != "" {
		params["_meta"] = map[string]any{"progressToken": progressToken}
	}
	resp, err := tr.SendRequest(ctx, transport.JSONRPCRequest{
		JSONRPC: mcp.JSONRPC_VERSION, ID: id, Method: string(mcp.MethodToolsCall), Params: params,
	})
	if err != nil {
		if ctx.Err() != nil {
			sendCancelled(tr, id, context.Cause(ctx))
			return nil, ctx.Err()
		}
		return nil, err
	}
	if resp.Error != nil {
		return nil, resp.Error.AsError()
	}
	var res mcp.CallToolResult
	if err := json.Unmarshal(resp.Result, &res); err != nil {
		return nil, fmt.Errorf("malformed tools/call result: %w", err)
	}
	return &res, nil
}

// sendCancelled tells the server to stop working on request id.
func sendCancelled(tr transport.Interface, id mcp.RequestId, why error) {
	ctx, cancel := context.WithTimeout(context.Background(), cancelNoticeTimeout)
	defer cancel()
	reason := "cancelled by the client"
	if why == context.DeadlineExceeded {
		reason = "timed out"
	}
	n := mcp.JSONRPCNotification{JSONRPC: mcp.JSONRPC_VERSION}
	n.Method = string(mcp.MethodNotificationCancelled)
	n.Params.AdditionalFields = map[string]any{"requestId": id, "reason": reason}
	_ = tr.SendNotification(ctx, n) // best effort: the connection may be gone
}
