package core

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
)

// Command is one agentls.* command of workspace/executeCommand: the
// commands are one table (lspserver/methods.go), each entry with its name
// and a handler that gets arguments[0] raw and decodes it with DecodeArg.
type Command struct {
	Name string
	Run  func(ctx context.Context, arg json.RawMessage) (any, error)
}

// ExecuteCommand returns the workspace/executeCommand handler for table.
// A command that fails because the client cancelled the request
// ($/cancelRequest) answers RequestCancelled (-32800), as LSP asks; an
// unknown command is InvalidParams naming the known ones.
func ExecuteCommand(table []Command) func(context.Context, *protocol.ExecuteCommandParams) (any, error) {
	byName := make(map[string]Command, len(table))
	names := make([]string, 0, len(table))
	for _, c := range table {
		byName[c.Name] = c
		names = append(names, c.Name)
	}
	return func(ctx context.Context, p *protocol.ExecuteCommandParams) (any, error) {
		c, ok := byName[p.Command]
		if !ok {
			return nil, InvalidParams("unknown command %q; agentls offers %s", p.Command, strings.Join(names, ", "))
		}
		var arg json.RawMessage
		if len(p.Arguments) > 0 {
			arg = json.RawMessage(p.Arguments[0])
		}
		res, err := c.Run(ctx, arg)
		if err != nil && ctx.Err() != nil {
			return nil, jsonrpc2.NewError(protocol.CodeRequestCancelled, p.Command+": request cancelled")
		}
		return res, err
	}
}

// CommandNames is executeCommandProvider.commands for table.
func CommandNames(table []Command) []string {
	out := make([]string, len(table))
	for i, c := range table {
		out[i] = c.Name
	}
	return out
}

// DecodeArg decodes a command's arguments[0] into v; absent or null
// leaves v as it is. A value that does not decode is InvalidParams
// showing shape, what the command expects.
func DecodeArg(command, shape string, raw json.RawMessage, v any) error {
	if IsNull(raw) {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	if err := dec.Decode(v); err != nil {
		return InvalidParams("%s: arguments[0] must be an object like %s: %v", command, shape, err)
	}
	return nil
}
