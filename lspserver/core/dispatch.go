package core

import (
	"context"
	"encoding/json"
	"errors"
	"runtime/debug"
	"strings"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
)

// Route is one entry of the method table (lspserver/methods.go): how a
// method is decoded and run. Build routes with Request and Notification,
// never by hand.
type Route struct {
	notification bool // a notification, not a request
	// ordered requests run to completion, and are answered, on the read
	// loop before the next message is read (initialize, shutdown: later
	// messages must see their effect, and their answer goes out before
	// anything a later message causes); all other requests are released
	// with jsonrpc2.Async first so a slow one never holds up reading.
	ordered bool
	// optionalParams accepts absent or null params (decoded as the zero
	// value); otherwise they are InvalidParams.
	optionalParams bool
	run            func(ctx context.Context, params jsonrpc2.RawMessage) (any, error)
	// decode only decodes params as run would, for the param fuzzer.
	decode func(params jsonrpc2.RawMessage) error
}

// RouteOption adjusts a Route.
type RouteOption func(*Route)

// Ordered marks a request that must finish, and be answered, before the
// next message is read. Its handler gets the connection's context, not the
// request's (see Server.handler), and cannot be cancelled.
func Ordered(r *Route) { r.ordered = true }

// OptionalParams lets a method be sent without params.
func OptionalParams(r *Route) { r.optionalParams = true }

// RawRun makes the route run fn on the params as they came, undecoded
// (Decode, for the param fuzzer, still decodes them as the route's type):
// for a handler that answers repeated requests from a cache keyed on their
// bytes before paying for decoding (code actions, runs/actioncache.go).
// fn decodes them itself otherwise, with DecodeParams. raw is only valid
// during the call (the connection reuses its buffers).
func RawRun(fn func(ctx context.Context, raw json.RawMessage) (any, error)) RouteOption {
	return func(r *Route) {
		r.run = func(ctx context.Context, raw jsonrpc2.RawMessage) (any, error) { return fn(ctx, json.RawMessage(raw)) }
	}
}

// Run decodes params and runs the handler, as dispatch does (for
// benchmarks of a handler without the transport).
func (r Route) Run(ctx context.Context, params jsonrpc2.RawMessage) (any, error) {
	return r.run(ctx, params)
}

// Decode only decodes params as Run would, for the param fuzzer.
func (r Route) Decode(params jsonrpc2.RawMessage) error { return r.decode(params) }

// Request makes a route for an LSP request whose params decode into P.
func Request[P, R any](fn func(context.Context, *P) (R, error), opts ...RouteOption) Route {
	r := Route{run: func(ctx context.Context, raw jsonrpc2.RawMessage) (any, error) {
		var p P
		if err := DecodeParams(raw, &p); err != nil {
			return nil, err
		}
		return fn(ctx, &p)
	}, decode: func(raw jsonrpc2.RawMessage) error {
		var p P
		return DecodeParams(raw, &p)
	}}
	for _, o := range opts {
		o(&r)
	}
	return r
}

// Notification makes a route for an LSP notification whose params decode
// into P. Its handler runs on the read loop, in wire order: it must be quick,
// must not keep ctx (use Server.Context), and must not make server→client
// requests.
func Notification[P any](fn func(context.Context, *P) error, opts ...RouteOption) Route {
	r := Request(func(ctx context.Context, p *P) (any, error) { return nil, fn(ctx, p) }, opts...)
	r.notification = true
	return r
}

// NoParams is the params type of methods that take none (shutdown, exit).
type NoParams struct{}

// DecodeParams decodes request params as a route does; a failure is
// InvalidParams (-32602), not the ParseError protocol.ServerHandler would
// answer.
//
// Params of type json.RawMessage are passed on as they arrived (the wire
// has validated them as JSON), without a decoding pass.
func DecodeParams(raw jsonrpc2.RawMessage, p any) error {
	switch p := p.(type) {
	case *NoParams:
		return nil
	case *json.RawMessage:
		*p = json.RawMessage(raw)
		return nil
	}
	if err := protocol.Unmarshal(raw, p); err != nil {
		return jsonrpc2.Errorf(jsonrpc2.InvalidParams, "invalid params: %s", stableJSONError(err))
	}
	return nil
}

// DecodeRaw is DecodeParams for a RawRun handler.
func DecodeRaw(raw json.RawMessage, p any) error { return DecodeParams(jsonrpc2.RawMessage(raw), p) }

// stableJSONError is err's text with one wording: go-json-experiment picks
// "cannot" or "unable to" at random on purpose (so callers do not parse its
// messages), but clients and our golden transcripts deserve the same
// message for the same mistake.
func stableJSONError(err error) string {
	return strings.ReplaceAll(err.Error(), "unable to ", "cannot ")
}

// handler is the connection's whole handler chain. $/cancelRequest is served
// here, before the per-call cancellation wrapper, so a malformed one is
// logged instead of killing the connection (docs/pitfalls.md "LSP: cancellation").
//
// Ordered requests bypass the cancellation wrapper and are never released
// with jsonrpc2.Async: jsonrpc2 then writes their answer before it reads
// the next message. (Released after their work, as they once were, the
// answer raced the next messages: an initialize sent with shutdown and
// exit right behind it, as a script does, could lose its answer to the
// exit.) A request that is not released must not derive a context from
// its pooled request context (the library bug in docs/pitfalls.md), so
// they run on the connection's context, which jsonrpc2.DetachContext
// returns, and derive nothing from the request's.
func (s *Server) handler() jsonrpc2.Handler {
	dispatch, cancel := jsonrpc2.CancelHandler(s.dispatch)
	return func(ctx context.Context, req *jsonrpc2.Request) (any, error) {
		if req.Method() == protocol.MethodCancelRequest && !req.IsCall() {
			s.cancelRequest(req.Params(), cancel)
			return nil, nil
		}
		if r, ok := s.routes[req.Method()]; ok && r.ordered && req.IsCall() {
			return s.dispatch(jsonrpc2.DetachContext(ctx), req)
		}
		return dispatch(ctx, req)
	}
}

func (s *Server) cancelRequest(raw jsonrpc2.RawMessage, cancel func(jsonrpc2.ID)) {
	var p protocol.CancelParams
	if err := protocol.Unmarshal(raw, &p); err != nil {
		s.log.Warn("ignoring malformed $/cancelRequest", "err", err)
		return
	}
	switch id := p.ID.(type) {
	case protocol.Integer:
		cancel(jsonrpc2.NewNumberID(int64(id)))
	case protocol.String:
		cancel(jsonrpc2.NewStringID(string(id)))
	default:
		s.log.Warn("ignoring $/cancelRequest without a usable id")
	}
}

// dispatch routes one message through the lifecycle gate and the method
// table. Every request but an ordered one is released with jsonrpc2.Async
// before it does any work (the §2 context bug makes a synchronous request
// that derived a context unsafe; ordered ones get a context that is not
// the request's, see handler); errors of notifications are logged, never returned (returning one
// kills the connection); panics become InternalError for requests.
func (s *Server) dispatch(ctx context.Context, req *jsonrpc2.Request) (result any, err error) {
	method, isCall := req.Method(), req.IsCall()
	r, known := s.routes[method]
	if isCall && !(known && r.ordered) { // ordered requests stay on the read loop (handler)
		jsonrpc2.Async(ctx)
		// Before Async the method string borrows the read buffer, which
		// the read loop reuses once released; Async cloned it in place.
		method = req.Method()
	}
	leave, ok := s.work.Enter()
	if !ok {
		if isCall {
			return nil, jsonrpc2.NewError(jsonrpc2.InvalidRequest, "server is exiting")
		}
		return nil, nil
	}
	defer leave()
	defer func() {
		if p := recover(); p != nil {
			s.log.Error("handler panicked", "method", method, "panic", p, "stack", string(debug.Stack()))
			result, err = nil, nil
			if isCall {
				err = jsonrpc2.Errorf(jsonrpc2.InternalError, "internal error in %s: %v", method, p)
			}
		}
	}()

	if gateErr := s.gate(method, isCall); gateErr != nil {
		if isCall {
			return nil, gateErr
		}
		s.log.Debug("dropping notification", "method", method, "reason", gateErr.Message)
		return nil, nil
	}
	switch {
	case !known && isCall:
		return nil, jsonrpc2.Errorf(jsonrpc2.MethodNotFound, "method not found: %s", method)
	case !known:
		if strings.HasPrefix(method, "$/") {
			s.log.Debug("ignoring optional notification", "method", method)
		} else {
			s.log.Info("ignoring unknown notification", "method", method)
		}
		return nil, nil
	case r.notification && isCall:
		return nil, jsonrpc2.Errorf(jsonrpc2.InvalidRequest, "%s is a notification; send it without an id", method)
	case !r.notification && !isCall:
		s.log.Warn("ignoring request sent as a notification (no id)", "method", method)
		return nil, nil
	}

	params := req.Params()
	if params == nil && !r.optionalParams {
		err = jsonrpc2.Errorf(jsonrpc2.InvalidParams, "invalid params: %s needs params, got none or null", method)
	} else {
		if params == nil {
			params = jsonrpc2.RawMessage("{}")
		}
		result, err = r.run(ctx, params)
	}
	if err != nil && !isCall {
		s.log.Warn("notification failed", "method", method, "err", err)
		return nil, nil
	}
	return result, codedError(method, err)
}

// codedError makes sure an error goes on the wire with a JSON-RPC code: a
// plain Go error would be sent as code 0 (docs/pitfalls.md "LSP: errors"), so it becomes
// InternalError with its message, unless it already wraps a *jsonrpc2.Error.
func codedError(method string, err error) error {
	if err == nil {
		return nil
	}
	var coded *jsonrpc2.Error
	if errors.As(err, &coded) {
		return err
	}
	return jsonrpc2.Errorf(jsonrpc2.InternalError, "%s: %v", method, err)
}

// RequestFailed is the LSP RequestFailed error (-32803): the request was
// valid but could not be carried out.
func RequestFailed(format string, args ...any) error {
	return jsonrpc2.Errorf(jsonrpc2.Code(protocol.LSPErrorCodesRequestFailed), format, args...)
}

// ContentModified is the LSP ContentModified error (-32801): the document
// changed in a way that invalidates the request's answer; the client asks
// again.
func ContentModified(format string, args ...any) error {
	return jsonrpc2.Errorf(jsonrpc2.Code(protocol.LSPErrorCodesContentModified), format, args...)
}

// InvalidParams is the InvalidParams error (-32602).
func InvalidParams(format string, args ...any) error {
	return jsonrpc2.Errorf(jsonrpc2.InvalidParams, format, args...)
}
