package runs

import (
	"context"
	"encoding/json"

	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/lspserver/core"
)

// The code actions "Agent: Revert run …" and "Agent: Open report of run
// …" appear on the lines a run changed (the way eglot and other
// plugin-less clients reach them), from the core's index of landed runs
// (revert.Index over the workspace's sessions' runs).

// newHistIndex is the index of the runs whose landed changes can be
// reverted.
func (rs *Runs) newHistIndex() {
	rs.hist.Store = rs.reverts
	rs.hist.Runs = func() []string {
		var ids []string
		for _, sess := range rs.sessions().CatchUp() { // runs of sessions continued elsewhere (agentls acp)
			ids = append(ids, sess.Info().Runs...)
		}
		return ids
	}
	rs.hist.Go = func(build func()) { rs.core.Go("revert index", func(context.Context) { build() }) }
}

// historyActions are the revert and report actions for the runs that
// changed the lines of r in path.
func (rs *Runs) historyActions(path string, r protocol.Range, only []protocol.CodeActionKind) []protocol.CommandOrCodeAction {
	if !kindWanted(only, protocol.CodeActionKindRefactorRewrite) {
		return nil
	}
	runs := rs.hist.LandedIn(path)
	if len(runs) == 0 {
		return nil
	}
	c, err := rs.currentText(path)
	if err != nil || !c.Exists {
		return nil
	}
	cur := c.Text
	var out []protocol.CommandOrCodeAction
	for i := len(runs) - 1; i >= 0; i-- { // newest run first
		lr := runs[i]
		if cur == lr.After && !touches(lr.Lines, int(r.Start.Line), int(r.End.Line)) {
			continue // unchanged since: only on the lines the run changed
		}
		rev, _ := json.Marshal(RevertArgs{RunID: lr.RunID})
		rep, _ := json.Marshal(ReportArgs{RunID: lr.RunID})
		t1 := "Agent: Revert run " + lr.RunID
		t2 := "Agent: Open report of run " + lr.RunID
		out = append(out,
			&protocol.CodeAction{Title: t1, Kind: core.Ptr(protocol.CodeActionKindRefactorRewrite), Command: protocol.Command{Title: t1, Command: CommandRevert, Arguments: []protocol.LSPAny{rev}}},
			&protocol.CodeAction{Title: t2, Kind: core.Ptr(protocol.CodeActionKindRefactorRewrite), Command: protocol.Command{Title: t2, Command: CommandOpenReport, Arguments: []protocol.LSPAny{rep}}})
	}
	return out
}

func touches(spans [][2]int, from, to int) bool {
	for _, s := range spans {
		if from <= s[1] && s[0] <= to {
			return true
		}
	}
	return false
}
