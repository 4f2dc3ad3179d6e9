// Package rpcwire guards the byte stream between a client and a face's
// JSON-RPC library: LSP's Content-Length frames (Frames) and ACP's one
// message per line (Lines). Both libraries end the whole connection, or
// silently drop, what they cannot parse; JSON-RPC asks for an error
// answer and a client that sent one bad message should keep its session.
// So every message passes here first: a well-formed one goes on, anything
// else is answered (-32700, -32600) and skipped, and an oversized answer
// to one of our own requests fails that request at once (never an error
// response sent back, which would carry our id into the client's
// requests). The rule lives once, for both faces.
package rpcwire
