package main

import (
	"github.com/agentls/agentls/internal/workspace"
	"github.com/agentls/agentls/tools"
)

// applyChanges writes every staged file whose disk content is still what
// the agent based its change on, through the one confined write path
// (tools.WriteConfined: inside the workspace, never .git, atomic); a file
// changed on disk meanwhile (or created, for a new file) is left alone and
// reported, never overwritten. written lists the files it wrote (what a
// revert takes back and what is no longer pending), in cs.Files() order.
func applyChanges(cs *tools.Changeset, view *workspace.View) (written []string, errs []error) {
	for _, p := range cs.Files() {
		f, ok := cs.Get(p)
		if !ok {
			continue
		}
		if err := tools.WriteConfined(view, f.Path, f.Base, f.Created, f.Text); err != nil {
			errs = append(errs, err)
			continue
		}
		written = append(written, p)
	}
	return written, errs
}
