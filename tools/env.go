package tools

import "github.com/agentls/agentls/tools/workspace"

// Env is what a tool call can reach: one per agent run. The loop builds it
// with NewEnv; lspserver and the CLI supply the Approver and react to staged
// changes through the Changeset.
type Env struct {
	RunID    string
	View     *workspace.View // buffers first, then disk (read cache)
	Ledger   *Ledger         // what this run has read (optimistic locks)
	Changes  *Changeset      // what this run has staged
	Approver Approver        // nil denies everything
	Policy   Policy          // user settings that gate tools
}

// Policy holds the user's settings that change tool behaviour.
type Policy struct {
	RunCommand     string   // "off" (default), "ask"; anything else is "off"
	AllowSecrets   bool     // send secret-looking files to the model
	SecretPatterns []string // extra doublestar patterns treated as secrets
}

// NewEnv returns the environment for run id over view.
func NewEnv(runID string, view *workspace.View, approver Approver, policy Policy) *Env {
	return &Env{RunID: runID, View: view, Ledger: NewLedger(), Changes: NewChangeset(view), Approver: approver, Policy: policy}
}
