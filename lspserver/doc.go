// Package lspserver is agentls's protocol surface: the LSP lifecycle, text
// synchronisation into the workspace view, workspace folders, configuration
// and watched files, the agentls/* custom methods, and the typed Client for
// server→client messages. It holds no agent logic.
//
// # Parts
//
// The package has four parts with one-way dependencies, each a group of
// files (the review part lists its own in review.go):
//
//   - core: framing, dispatch, lifecycle, settings (stream.go, dispatch.go,
//     methods.go, lifecycle.go, config.go, settings.go, client.go);
//   - documents: text sync into the workspace view, folders, watched files
//     (textsync.go, workspace.go, watcher.go, document.go);
//   - runs: agentls.run and friends, progress, approvals, run events and
//     sessions (commands.go, runs.go, sessions.go, progress.go, events.go,
//     approve.go, apply.go, codeaction.go, mcp.go); a run is built and
//     executed by agent.Session;
//   - review: proposals and decisions (review.go and the files it lists).
//
// Runs feed review with staged-change events; review answers with
// agent.Decisions that the command layer passes to the run's session.
// Review never calls into runs.
//
// # Message handling
//
// docs/pitfalls.md "LSP: handler chain and message order": a validating wire (stream.go) frames the input itself
// and answers malformed frames (-32700 not JSON, -32600 not a JSON-RPC
// message) so they never kill the jsonrpc2 connection; an unframeable
// header ends Serve with ExitBadInput. Notifications run inline on the read
// loop in wire order; every request is released with jsonrpc2.Async (after
// running, for the few marked ordered). Errors of notifications are logged,
// never returned; panics become -32603 for requests. Requests before
// initialize get -32002, after shutdown -32600; unknown requests -32601;
// params that do not decode -32602.
//
// # Adding a feature
//
//   - A method: write `func (s *Server) x(ctx context.Context, p *P) (R, error)`
//     in the file for its area and list it in methodTable (methods.go) with
//     request(...) or notification(...). Params are decoded with
//     protocol.Unmarshal; return invalidParams(...)/requestFailed(...) or
//     any *jsonrpc2.Error for coded errors (a plain error becomes -32603).
//   - Its capability: extend Server.capabilities (lifecycle.go).
//   - Server→client messages: s.client (the Client interface, client.go).
//     Requests to the editor (ApplyEdit, ShowMessageRequest, ...) must not
//     be made from a notification handler: use s.goBackground, or a request
//     handler (already released).
//   - Long work (agent runs): s.goBackground with the server context s.ctx,
//     which Serve cancels and waits for at exit.
//   - What the client supports: s.Session().Features; the negotiated
//     position encoding: s.Session().Encoding; conversions: convert.go.
//   - User settings: s.InitializationOptions(), s.Settings(),
//     s.OnSettingsChange.
package lspserver
