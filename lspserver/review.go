package lspserver

// Review: the proposals agent runs leave for the user, and the user's
// decisions on them. This part of the package owns the proposal store
// (lspserver/proposal) and its LSP face:
//
//	review.go          this overview; agentls.accept/agentls.reject argument and result types
//	review_stage.go    staged-change events in, decisions out (the one-way flow)
//	review_rebase.go   the user's edits and disk changes rebase proposals
//	proposals.go       review state, agentls/proposals, change announcements
//	accept.go          agentls.accept / agentls.reject
//	codelens.go        accept/reject lenses per hunk
//	review_actions.go  accept/reject code actions
//	edits.go           proposals → WorkspaceEdit
//
// Boundary: review is fed by the runs part (runs.go) with staged-change
// events (stagePreview) and by the documents part (textsync.go,
// watcher.go) with document changes (review_rebase.go hooks). It answers
// with results and agent.Decisions that the command layer (commands.go)
// passes to the run's session; it never calls into the runs part.

// reviewArgs is arguments[0] of agentls.accept and agentls.reject
// (docs/protocol.md): no field selects everything pending.
type reviewArgs struct {
	RunID  string `json:"runId,omitempty"`
	URI    string `json:"uri,omitempty"`
	HunkID string `json:"hunkId,omitempty"`
	// Reason (agentls.reject only) is told to the model on the session's
	// next run.
	Reason string `json:"reason,omitempty"`
}

// acceptResult is the result of agentls.accept.
type acceptResult struct {
	Applied       bool           `json:"applied"`
	FailureReason string         `json:"failureReason,omitempty"`
	Conflicts     []hunkConflict `json:"conflicts,omitempty"`
}

// hunkConflict names a hunk that was not applied and why.
type hunkConflict struct {
	URI    string `json:"uri"`
	HunkID string `json:"hunkId"`
	Reason string `json:"reason"`
}

// rejectResult is the result of agentls.reject.
type rejectResult struct {
	Rejected int `json:"rejected"`
}
