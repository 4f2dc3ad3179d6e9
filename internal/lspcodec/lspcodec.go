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
// (code actions and lenses, on the typing path) return the latter, and
// protocol.Marshal would parse and re-emit it. Such bytes may be a cached
// answer that other requests are being written from at the same moment,
// so they go out without spare capacity: nothing on the way out can
// append into them.
func (Codec) Marshal(v any) ([]byte, error) {
	switch m := v.(type) {
	case json.RawMessage:
		return raw(m), nil
	case jsonrpc2.RawMessage:
		return raw(m), nil
	case *jsonrpc2.RawMessage:
		if m == nil {
			return raw(nil), nil
		}
		return raw(*m), nil
	}
	return protocol.Marshal(v)
}

// raw is b as Marshal sends it: null for nil, else without spare capacity.
func raw(b []byte) []byte {
	if b == nil {
		return []byte("null")
	}
	return b[:len(b):len(b)]
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
