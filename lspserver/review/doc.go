// Package review is the review part of agentls's LSP server: the
// proposals agent runs leave for the user, and the user's decisions on
// them. The rules live in the review desk (agent/desk: the proposal
// store, staging, rebase, accept plans, rejects, the decisions, the
// problem book); this is its LSP face: staging (stage.go), the rebase
// hooks (rebase.go, a docs.Follower), agentls/proposals and the change
// announcements (proposals.go), agentls.accept/agentls.reject
// (accept.go) and the check that an accepted edit landed, also when the
// editor shows it only after the command's answer (verify.go, over
// desk.Landing), code
// lenses (codelens.go), accept/reject code actions (actions.go), hover
// (hover.go) and preview diagnostics for clients without a plugin
// (diagnostics.go).
//
// Boundary: review is fed by the runs part through Stage (runs.Review is
// the interface runs see) and by the documents part through docs.Follower.
// It answers with results and agent.Decisions that the wiring (lspserver's
// command table, OnDecided for accepts settled after their answer, and
// OnReason for rejections whose reason is asked after it)
// passes to the runs' sessions; it never imports lspserver/runs, and the
// compiler keeps it that way.
package review
