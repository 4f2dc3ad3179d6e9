// Package lspcodec is the jsonrpc2 codec for LSP connections made with
// go.lsp.dev/jsonrpc2 v1: agentls's own server connection to the editor and
// its client connections to language servers (tools/lang). It mirrors
// go.lsp.dev/protocol's unexported lspCodec (protocol codec.go):
// protocol.Marshal/Unmarshal, which know the LSP union types, with raw
// messages passed through verbatim.
package lspcodec

import (
	"encoding/json"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
)

// Codec implements jsonrpc2.Codec for LSP; use it with jsonrpc2.WithCodec.
type Codec struct{}

// Marshal encodes v; a jsonrpc2.RawMessage or an encoding/json one goes
// out as is (nil as null): handlers that encode their answer themselves
// (lazy code actions, on the typing path) return the latter, and
// protocol.Marshal would parse and re-emit it.
func (Codec) Marshal(v any) ([]byte, error) {
	switch m := v.(type) {
	case json.RawMessage:
		if m == nil {
			return []byte("null"), nil
		}
		return m, nil
	case jsonrpc2.RawMessage:
		if m == nil {
			return []byte("null"), nil
		}
		return m, nil
	case *jsonrpc2.RawMessage:
		if m == nil || *m == nil {
			return []byte("null"), nil
		}
		return *m, nil
	}
	return protocol.Marshal(v)
}

// Unmarshal decodes b into v; a *jsonrpc2.RawMessage gets a copy of b
// (the connection reuses its buffers).
func (Codec) Unmarshal(b []byte, v any) error {
	if p, ok := v.(*jsonrpc2.RawMessage); ok {
		*p = append(jsonrpc2.RawMessage(nil), b...)
		return nil
	}
	return protocol.Unmarshal(b, v)
}
