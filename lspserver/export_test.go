package lspserver

import (
	"context"
	"encoding/json"

	"go.lsp.dev/jsonrpc2"
)

// ClientOf exposes the server's Client to external tests.
func ClientOf(s *Server) Client { return s.client }

// AddTestRoute adds a raw method to the table, for tests of dispatch itself
// (panics, slow handlers). Call it before Serve.
func AddTestRoute(s *Server, method string, notification bool, fn func(ctx context.Context, params json.RawMessage) (any, error)) {
	s.routes[method] = route{
		notification:   notification,
		optionalParams: true,
		run: func(ctx context.Context, raw jsonrpc2.RawMessage) (any, error) {
			return fn(ctx, json.RawMessage(raw))
		},
	}
}
