package lspserver_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/agent/llm/llmtest"
	"github.com/agentls/agentls/lspserver"
	"github.com/agentls/agentls/lspserver/lsptest"
)

// Memory over LSP (issue 32): a model's remember call and the user's
// agentls.remember both become proposals on AGENTS.md, nothing is written
// before agentls.accept, and after the accept the next run's system
// prompt carries the note.
func TestRememberProposalAcceptedReachesNextRun(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	script := llmtest.Sequence(
		llmtest.ToolCalls(llmtest.Call{ID: "c1", Name: "remember", Args: `{"note":"Wrap errors with %w."}`}),
		llmtest.Text("I proposed to remember that."),
		llmtest.Text("ok"),
	)
	rs := newRunSession(t, script, runOpts{})
	agents := filepath.Join(rs.root, "AGENTS.md")
	writeFile(t, agents, "# Rules\n")
	// The editor applies and saves what it is asked to.
	var applied int
	rs.c.Handle(protocol.MethodWorkspaceApplyEdit, func(m lsptest.Message) (any, *lsptest.Error) {
		applied++
		return &protocol.ApplyWorkspaceEditResult{Applied: true}, nil
	})

	id := rs.start(t, lspserver.RunArgs{Prompt: "we wrap errors with %w, remember it"})
	rs.event(t, id, "finished")
	ps := proposalsOf(t, rs)
	if len(ps) != 1 || !strings.HasSuffix(string(ps[0].URI), "/AGENTS.md") || ps[0].ProposedText != "# Rules\n- Wrap errors with %w.\n" {
		t.Fatalf("proposals = %+v", ps)
	}
	if b, _ := os.ReadFile(agents); string(b) != "# Rules\n" {
		t.Fatalf("AGENTS.md written before accept: %q", b)
	}

	// The user's own note through agentls.remember: a second proposal.
	var rr lspserver.RememberResult
	if err := rs.c.Call(lsptest.Context(t), protocol.MethodWorkspaceExecuteCommand, command(lspserver.CommandRemember, lspserver.RememberArgs{Note: "Tests use t.TempDir."}), &rr); err != nil {
		t.Fatal(err)
	}
	if rr.RunID == "" || !strings.HasSuffix(rr.URI, "/AGENTS.md") {
		t.Fatalf("agentls.remember = %+v", rr)
	}
	var found bool
	for _, p := range proposalsOf(t, rs) {
		found = found || (p.RunID == rr.RunID && strings.HasSuffix(p.ProposedText, "- Tests use t.TempDir.\n"))
	}
	if !found {
		t.Fatalf("agentls.remember staged no proposal: %+v", proposalsOf(t, rs))
	}

	// Accept the run's proposal; the editor saves it.
	var res lspserver.AcceptResult
	if err := rs.c.Call(lsptest.Context(t), protocol.MethodWorkspaceExecuteCommand, command(lspserver.CommandAccept, map[string]any{"runId": id}), &res); err != nil {
		t.Fatal(err)
	}
	if !res.Applied || applied != 1 {
		t.Fatalf("accept = %+v, %d edits", res, applied)
	}
	writeFile(t, agents, ps[0].ProposedText)

	id2 := rs.start(t, lspserver.RunArgs{Prompt: "next"})
	rs.event(t, id2, "finished")
	reqs := rs.model.Requests()
	sys := reqs[len(reqs)-1].Messages[0].Content
	if !strings.Contains(sys, "- Wrap errors with %w.") {
		t.Fatalf("the next run's system prompt lacks the note:\n%s", sys)
	}
	if strings.Contains(reqs[0].Messages[0].Content, "Wrap errors") {
		t.Fatal("the note was in the prompt before accept")
	}
}

func proposalsOf(t *testing.T, rs *runSession) []lspserver.ProposalInfo {
	t.Helper()
	var props lspserver.ProposalsResult
	if err := rs.c.Call(lsptest.Context(t), lspserver.MethodProposals, &lspserver.ProposalsParams{}, &props); err != nil {
		t.Fatal(err)
	}
	return props.Proposals
}
