// Package core is the connection side of agentls's LSP server: the
// validating wire that frames the input (internal/rpcwire), the jsonrpc2 codec
// (internal/lspcodec, shared with the language-server client tools/lang),
// dispatch through the typed method table (Route, Request, Notification:
// dispatch.go) and the command table (commands.go), the lifecycle state
// machine and what initialize negotiated (lifecycle.go), the editor's raw
// settings (settings.go), the typed Client for server→client messages
// with its timeouts and redaction (client.go), LSP↔internal/text
// conversions (convert.go), and the watch on the editor process
// (lifecycle.go, through internal/lifetime, which also owns the handlers,
// background work and bounded exit of server.go).
//
// It knows nothing of documents, runs or proposals: the other parts
// (lspserver/docs, lspserver/runs, lspserver/review) hold a *Server,
// register their handlers through the wiring (lspserver/methods.go) and
// use Client, Session, Go and the settings. It imports only internal/
// packages and agent/config (for the settings' section syntax).
package core
