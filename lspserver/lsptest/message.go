package lsptest

import (
	"bytes"
	"encoding/json"
	"fmt"

	"go.lsp.dev/protocol"
)

// Message is one JSON-RPC message received from the server, as it was on
// the wire.
type Message struct {
	ID     json.RawMessage `json:"id,omitempty"`     // nil for notifications; "null" for id-less error responses
	Method string          `json:"method,omitempty"` // "" for responses
	Params json.RawMessage `json:"params,omitempty"`
	Result json.RawMessage `json:"result,omitempty"`
	Error  *Error          `json:"error,omitempty"`
	Raw    json.RawMessage `json:"-"` // the whole body
}

// IsRequest reports whether m is a server→client request (it expects an
// answer, which the Client's handlers give).
func (m Message) IsRequest() bool { return m.Method != "" && m.hasID() }

// IsNotification reports whether m is a server→client notification.
func (m Message) IsNotification() bool { return m.Method != "" && !m.hasID() }

// IsResponse reports whether m answers a request (ours, or a raw frame's).
func (m Message) IsResponse() bool { return m.Method == "" }

func (m Message) hasID() bool { return len(m.ID) > 0 && !bytes.Equal(m.ID, []byte("null")) }

// DecodeParams decodes m's params with protocol.Unmarshal (LSP unions and
// URIs are handled).
func (m Message) DecodeParams(v any) error {
	if err := protocol.Unmarshal(m.Params, v); err != nil {
		return fmt.Errorf("decode %s params: %w", m.Method, err)
	}
	return nil
}

// DecodeResult decodes a response's result with protocol.Unmarshal.
func (m Message) DecodeResult(v any) error {
	if err := protocol.Unmarshal(m.Result, v); err != nil {
		return fmt.Errorf("decode result: %w", err)
	}
	return nil
}

// String returns the raw body, for failure messages.
func (m Message) String() string { return string(m.Raw) }

// Error is a JSON-RPC error object; error responses to Call come back as
// *Error, so tests can assert the exact code.
type Error struct {
	Code    int64           `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

func (e *Error) Error() string { return fmt.Sprintf("jsonrpc error %d: %s", e.Code, e.Message) }

// Standard error codes, for assertions.
const (
	CodeParseError           = -32700
	CodeInvalidRequest       = -32600
	CodeMethodNotFound       = -32601
	CodeInvalidParams        = -32602
	CodeInternalError        = -32603
	CodeServerNotInitialized = -32002
	CodeRequestFailed        = -32803
	CodeRequestCancelled     = -32800
)
