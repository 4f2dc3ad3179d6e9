package runs

import (
	"context"
	"encoding/json"

	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/agent/revert"
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

// historyActions are the revert and report actions for the runs the
// index offers on the lines of r in path (revert.Index.Offered).
func (rs *Runs) historyActions(path string, r protocol.Range, only []protocol.CodeActionKind) []protocol.CommandOrCodeAction {
	if !kindWanted(only, protocol.CodeActionKindRefactorRewrite) {
		return nil
	}
	var out []protocol.CommandOrCodeAction
	for _, id := range rs.hist.Offered(path, int(r.Start.Line), int(r.End.Line), func() (string, bool) {
		c, err := revert.InView(rs.view)(path)
		return c.Text, err == nil && c.Exists
	}) {
		rev, _ := json.Marshal(RevertArgs{RunID: id})
		rep, _ := json.Marshal(ReportArgs{RunID: id})
		t1, t2 := "Agent: Revert run "+id, "Agent: Open report of run "+id
		out = append(out,
			&protocol.CodeAction{Title: t1, Kind: core.Ptr(protocol.CodeActionKindRefactorRewrite), Command: protocol.Command{Title: t1, Command: CommandRevert, Arguments: []protocol.LSPAny{rev}}},
			&protocol.CodeAction{Title: t2, Kind: core.Ptr(protocol.CodeActionKindRefactorRewrite), Command: protocol.Command{Title: t2, Command: CommandOpenReport, Arguments: []protocol.LSPAny{rep}}})
	}
	return out
}
