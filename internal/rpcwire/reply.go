package rpcwire

import "encoding/json"

// JSON-RPC 2.0 error codes the guards answer with.
const (
	codeParseError     = -32700
	codeInvalidRequest = -32600
	codeInternalError  = -32603
)

// errorReply is a JSON-RPC error response written by a guard itself.
type errorReply struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Error   replyError      `json:"error"`
}

// replyError is the error object of an errorReply.
type replyError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
	Data    any    `json:"data,omitempty"`
}

// newErrorReply answers id (nil: JSON null, when the id is unknown).
func newErrorReply(id json.RawMessage, code int, msg string) *errorReply {
	if id == nil {
		id = json.RawMessage("null")
	}
	return &errorReply{JSONRPC: "2.0", ID: id, Error: replyError{Code: code, Message: msg}}
}
