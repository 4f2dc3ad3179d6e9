package tools

import (
	"context"
	_ "embed"

	"github.com/agentls/agentls/tools/editmatch"
)

//go:embed descriptions/multi_edit.md
var multiEditDescription string

type multiEditParams struct {
	Path  string          `json:"path" jsonschema:"file path"`
	Edits []multiEditItem `json:"edits" jsonschema:"applied in order"`
}

type multiEditItem struct {
	OldString  string `json:"old_string"`
	NewString  string `json:"new_string"`
	ReplaceAll *bool  `json:"replace_all,omitempty"`
}

// MultiEdit is the multi_edit tool: several edit_file edits to one file,
// each applied to the result of the one before, staged only if all match.
func MultiEdit() Tool {
	return New("multi_edit", multiEditDescription, false, multiEdit)
}

func multiEdit(ctx context.Context, env *Env, p multiEditParams) (Result, error) {
	edits := make([]editmatch.Edit, len(p.Edits))
	for i, e := range p.Edits {
		edits[i] = editmatch.Edit{Old: e.OldString, New: e.NewString, ReplaceAll: e.ReplaceAll != nil && *e.ReplaceAll}
	}
	return env.applyEdits(ctx, p.Path, edits), nil
}
