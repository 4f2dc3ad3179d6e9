// Package lspserver is agentls's protocol surface, the LSP server the
// editor talks to. This package is the wiring: it builds the five parts,
// connects them and lists the method table; each part is a subpackage
// with one job, so the compiler keeps their boundaries.
//
// # Parts
//
//   - core (lspserver/core): framing, dispatch through the typed method
//     table, the lifecycle, the editor's settings and the typed Client for
//     server→client messages;
//   - docs (lspserver/docs): text synchronisation into the workspace view,
//     workspace folders, watched files, agentls/document, and the
//     WorkspaceEdit builder both review and runs send;
//   - review (lspserver/review): the proposal store's LSP face: staging,
//     rebasing onto the user's edits, accept/reject, code lenses, hover and
//     preview diagnostics;
//   - runs (lspserver/runs): agentls.run and friends, progress, approvals,
//     run events, sessions, plans, MCP servers, workspace trust and the
//     code actions that start runs; a run is built and executed by
//     agent.Session;
//   - inline (lspserver/inline): inline completions (ghost text) and their
//     completion-list item, over agent/complete; runs hands it every
//     configuration it loads (runs.Runs.OnConfig).
//
// Imports point one way: core ← docs ← review, and core ← docs ← runs;
// runs and review never import each other; inline imports core and docs. Runs feed review with staged
// changes through runs.Review (which *review.Review implements); review
// follows the documents through docs.Follower; review answers
// agentls.accept/agentls.reject with agent.Decisions, which the command
// table (methods.go) passes to runs.Runs.Decide (and, for an accept the
// editor shows only after the command's answer, review.Review.OnDecided,
// and for a rejection whose reason is asked after it, review.Review.OnReason
// with runs.Runs.Queue and Record, connected in New). docs/architecture.md
// draws the whole module's graph.
//
// # Message handling
//
// docs/pitfalls.md "LSP: handler chain and message order": a validating
// wire (internal/rpcwire) frames the input itself and answers malformed
// frames (-32700 not JSON, -32600 not a JSON-RPC message) so they never
// kill the jsonrpc2 connection; an unframeable header ends Serve with
// ExitBadInput. Notifications run inline on the read loop in wire order;
// every request is released with jsonrpc2.Async (after running, for the
// few marked ordered). Errors of notifications are logged, never returned;
// panics become -32603 for requests. Requests before initialize get
// -32002, after shutdown -32600; unknown requests -32601; params that do
// not decode -32602.
//
// # Adding a feature
//
//   - A method: write `func (x *Part) X(ctx context.Context, p *P) (R, error)`
//     in the file for its area in the part that owns it and list it in
//     methodTable (methods.go) with core.Request(...) or
//     core.Notification(...). Params are decoded with protocol.Unmarshal;
//     return core.InvalidParams/core.RequestFailed or any *jsonrpc2.Error
//     for coded errors (a plain error becomes -32603).
//   - A command: a `func(ctx, arg json.RawMessage) (any, error)` handler
//     listed in commandTable (methods.go); decode arg with core.DecodeArg.
//   - Its capability: extend Server.capabilities (lifecycle.go).
//   - Server→client messages: core.Server.Client (the Client interface).
//     Requests to the editor (ApplyEdit, ShowMessageRequest, ...) must not
//     be made from a notification handler: use core.Server.Go, or a
//     request handler (already released).
//   - Long work (agent runs): core.Server.Go, which gets the server
//     context; Serve cancels it and waits for the work at exit.
//   - What the client supports: core.Server.Session().Features; the
//     negotiated position encoding: Session().Encoding; conversions:
//     core/convert.go.
//   - User settings: core.Server.InitializationOptions, Settings (merged by
//     config.MergeSettings) and OnSettingsChange.
//   - A part needing another part it may not import: an interface or a
//     callback defined in the lower package, connected in New.
package lspserver
