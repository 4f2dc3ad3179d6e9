package tools

import "github.com/agentls/agentls/tools/workspace"

// Changeset holds a run's staged edits. PLACEHOLDER: the tools owner
// replaces this file.
type Changeset struct{ view *workspace.View }

// NewChangeset returns an empty changeset over view.
func NewChangeset(view *workspace.View) *Changeset { return &Changeset{view: view} }
