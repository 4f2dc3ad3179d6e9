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

// maxHistoryActions bounds the runs offered on one line: a menu that
// grows with every run buries the actions the user came for.
const maxHistoryActions = 2

// historyActions are the revert and report actions for the (newest two)
// runs whose changed lines are in r in path, where those lines are now.
func (rs *Runs) historyActions(path string, r protocol.Range, only []protocol.CodeActionKind) []protocol.CommandOrCodeAction {
	if !kindWanted(only, protocol.CodeActionKindRefactorRewrite) {
		return nil
	}
	runs := rs.hist.Now(path, func() (string, bool) {
		c, err := rs.currentText(path)
		return c.Text, err == nil && c.Exists
	})
	var out []protocol.CommandOrCodeAction
	offered := 0
	for i := len(runs) - 1; i >= 0 && offered < maxHistoryActions; i-- { // newest run first
		lr := runs[i]
		if !touches(lr.Now, int(r.Start.Line), int(r.End.Line)) {
			continue
		}
		offered++
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
