package core

import (
	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
)

// codec is the jsonrpc2 codec of the connection. It mirrors go.lsp.dev's
// unexported lspCodec (protocol codec.go): protocol.Marshal/Unmarshal, which
// know the LSP union types, with raw messages passed through verbatim.
type codec struct{}

func (codec) Marshal(v any) ([]byte, error) {
	switch m := v.(type) {
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

func (codec) Unmarshal(b []byte, v any) error {
	if p, ok := v.(*jsonrpc2.RawMessage); ok {
		*p = append(jsonrpc2.RawMessage(nil), b...)
		return nil
	}
	return protocol.Unmarshal(b, v)
}
