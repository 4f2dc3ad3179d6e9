package lspserver

// This file is the seam between the two halves of agent runs in the editor:
// runs (runs.go, commands.go, progress.go, events.go, approve.go,
// codeaction.go) and review (proposals.go, accept.go, codelens.go,
// review_actions.go, edits.go). Each half implements the functions listed
// for it; the other half only calls them. PLACEHOLDER bodies below are
// replaced by their owners.

import (
	"github.com/agentls/agentls/tools/text"
)

// reviewArgs is arguments[0] of agentls.accept and agentls.reject
// (docs/protocol.md): no field selects everything pending.
type reviewArgs struct {
	RunID  string `json:"runId,omitempty"`
	URI    string `json:"uri,omitempty"`
	HunkID string `json:"hunkId,omitempty"`
}

// acceptResult is the result of agentls.accept (docs/protocol.md).
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

// rejectResult is the result of agentls.reject (docs/protocol.md).
type rejectResult struct {
	Rejected int `json:"rejected"`
}

// fileEdit is one file's change for a WorkspaceEdit.
type fileEdit struct {
	Path    string      // absolute path
	Version *int32      // open document version the edits were computed against; nil if not open
	Created bool        // new file: CreateFile first (or a fallback when unsupported)
	Edits   []text.Edit // in the session's position encoding
}

// ---- review half (owner: review helper) ----
//
// Implemented in review_stage.go (stagePreview, forgetRun,
// registerRunChanges), accept.go (acceptCommand, rejectCommand),
// review_actions.go (reviewActions) and edits.go (workspaceEdit).

// ---- runs half (owner: runs helper) ----
// runCommand (agentls.run) is implemented in commands.go.
