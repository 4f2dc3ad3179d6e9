package lspserver

import (
	"context"
	"encoding/json"

	"github.com/agentls/agentls/lspserver/core"
)

// ClientOf exposes the server's Client to external tests.
func ClientOf(s *Server) Client { return s.core.Client() }

// AddTestRoute adds a raw method to the table, for tests of dispatch itself
// (panics, slow handlers). Call it before Serve.
func AddTestRoute(s *Server, method string, notification bool, fn func(ctx context.Context, params json.RawMessage) (any, error)) {
	if notification {
		s.core.Handle(method, core.Notification(func(ctx context.Context, p *json.RawMessage) error {
			_, err := fn(ctx, *p)
			return err
		}, core.OptionalParams))
		return
	}
	s.core.Handle(method, core.Request(func(ctx context.Context, p *json.RawMessage) (any, error) {
		return fn(ctx, *p)
	}, core.OptionalParams))
}
