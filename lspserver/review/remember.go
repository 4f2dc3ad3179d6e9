package review

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync/atomic"

	"github.com/agentls/agentls/lspserver/core"
	"github.com/agentls/agentls/tools"
)

// CommandRemember is the user's own remember (docs/protocol.md "Memory").
const CommandRemember = "agentls.remember"

// RememberArgs is arguments[0] of agentls.remember.
type RememberArgs struct {
	Note  string `json:"note"`
	Scope string `json:"scope,omitempty"` // "project" (default)
}

// RememberResult is the result of agentls.remember: the run id the
// proposal is filed under (for agentls.accept / agentls.reject) and the
// file it changes; Unchanged when the file already holds the rule.
type RememberResult struct {
	RunID     string `json:"runId,omitempty"`
	URI       string `json:"uri,omitempty"`
	Unchanged bool   `json:"unchanged,omitempty"`
}

var rememberSeq atomic.Uint64

// Remember implements agentls.remember: the note becomes a proposal on
// the project's AGENTS.md, under a run id of its own with no agent run
// behind it, so the user reviews it with the same code lenses, accept and
// reject as a run's change (and an accept writes through the editor, as
// always). The user's own AGENTS.md is outside the workspace, where the
// server never proposes changes: `agentls remember --scope user` writes it.
func (v *Review) Remember(ctx context.Context, arg json.RawMessage) (any, error) {
	var a RememberArgs
	if err := core.DecodeArg(CommandRemember, `{"note": "…", "scope"?: "project"}`, arg, &a); err != nil {
		return nil, err
	}
	switch a.Scope {
	case "", "project":
	case "user":
		return nil, core.InvalidParams("%s: scope user is the user's own AGENTS.md, outside the workspace; add to it with `agentls remember --scope user NOTE`", CommandRemember)
	default:
		return nil, core.InvalidParams("%s: scope must be \"project\" or \"user\", not %q", CommandRemember, a.Scope)
	}
	note, err := tools.NormalizeNote(a.Note)
	if err != nil {
		return nil, core.InvalidParams("%s: %v", CommandRemember, err)
	}
	abs, err := tools.ProjectRules(v.view)
	switch {
	case errors.Is(err, tools.ErrNoFolder):
		return nil, core.InvalidParams("%s: %v", CommandRemember, err)
	case err != nil:
		return nil, core.RequestFailed("%s: %v", CommandRemember, err)
	}
	snap, exists, err := v.view.ReadOrNone(abs)
	if err != nil {
		return nil, core.RequestFailed("%s: %v", CommandRemember, err)
	}
	uri := string(v.docs.URIOf(abs))
	f, added := tools.NoteChange(abs, snap.Text, exists, note)
	if !added {
		return RememberResult{URI: uri, Unchanged: true}, nil
	}
	runID := fmt.Sprintf("remember-%d", rememberSeq.Add(1))
	v.Stage(runID, f)
	return RememberResult{RunID: runID, URI: uri}, nil
}
