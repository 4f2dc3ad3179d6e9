// Package acpserver is agentls's Agent Client Protocol front-end: `agentls
// acp` speaks ACP v1 (newline-delimited JSON-RPC 2.0) on stdio for the
// editors that host agents over ACP (Zed, JetBrains, Neovim's
// CodeCompanion and avante.nvim, Emacs agent-shell). It is a thin
// front-end beside lspserver over the same core: agent.Session runs the
// agent, agent.SessionStore persists sessions (the same files the LSP
// server and `agentls run` use, so a session continues from any of them),
// and agent/proposal holds the staged changes under review. It lives
// under internal/ because the repository's top-level layout is fixed; in
// the import graph it sits where lspserver does (it imports agent, tools
// and agent/proposal; nothing imports it but cmd/agentls).
//
// What maps to what (docs/acp.md has the table for users):
//
//   - session/new, session/load, session/resume: an agent.Session in the
//     workspace of cwd (session ids are agentls session ids); load replays
//     the saved conversation as session/update; list reads the session
//     store; close forgets the session here (its file stays).
//   - session/prompt: one agent run (agentls.run). Its events become
//     agent_message_chunk, tool_call / tool_call_update (with kind,
//     locations and a diff for every staged change) and plan (todo_write).
//   - Review: each staged change is put in the proposal store and asked
//     about with session/request_permission (the diff, hunk ids and the
//     document's revision in _meta). Allowed hunks are written with
//     fs/write_text_file when the client offers it, else through
//     tools.WriteConfined; a rejection (with an optional reason in the
//     response's _meta) is a review decision like agentls.reject. Each
//     written change is recorded in agent/revert's snapshot store: ACP has
//     no revert method, so `agentls revert` or the LSP server's
//     agentls.revert takes the run back.
//   - Modes preview / apply / plan and the model are session modes and
//     config options; skills are available commands.
//
// The Go SDK (github.com/coder/acp-go-sdk v0.13.0) does the JSON-RPC; what
// it lacks is written here and says so where it is (internal/rpcwire: answers to
// malformed lines; prompt.go: the per-session cancel).
package acpserver
