package lspserver_test

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/agent/llm/llmtest"
	"github.com/agentls/agentls/lspserver"
	"github.com/agentls/agentls/lspserver/lsptest"
)

// The built server is killed with SIGKILL while a proposal is pending and
// started again on the same workspace and state directory: the session
// and its proposal are listed again; the file changed on disk meanwhile,
// so the hunk the user's edit touched is conflicted and the other one
// still applies when accepted.
func TestSessionRestoreAfterSIGKILL(t *testing.T) {
	bin := lsptest.BuildBinary(t)
	home := t.TempDir()
	t.Setenv("XDG_STATE_HOME", filepath.Join(home, "state"))
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, "config"))
	t.Setenv("HOME", home)
	root := t.TempDir()
	demo := filepath.Join(root, "demo.go")
	writeFile(t, demo, demoBase)
	ms := &sessionScript{}
	model := llmtest.New(t, ms.script)
	init := lsptest.InitOptions{Folders: []string{root}, InitializationOptions: map[string]any{
		"model":   map[string]any{"baseURL": model.URL(), "name": "test-model"},
		"preview": map[string]any{"diagnostics": false},
	}}

	b1 := lsptest.StartBinary(t, bin)
	ctx := lsptest.Context(t)
	if _, err := b1.Initialize(ctx, init); err != nil {
		t.Fatal(err)
	}
	var res lspserver.RunResult
	if err := b1.Call(ctx, protocol.MethodWorkspaceExecuteCommand, command(lspserver.CommandRun, lspserver.RunArgs{Prompt: "Bump the return values."}), &res); err != nil {
		t.Fatal(err)
	}
	if _, err := b1.Await(ctx, lspserver.MethodRunEvent, func(m lsptest.Message) bool {
		var e lspserver.RunEvent
		return json.Unmarshal(m.Params, &e) == nil && e.RunID == res.RunID && isFinal(e.Kind)
	}); err != nil {
		t.Fatal(err)
	}
	if props := binaryProposals(t, b1); len(props) != 1 || len(props[0].Hunks) != 2 {
		t.Fatalf("proposals before the kill = %+v", props)
	}
	if err := b1.Cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	if _, err := b1.Wait(ctx); err != nil {
		t.Fatal(err)
	}

	// The user edits the line of the second hunk while no server runs.
	writeFile(t, demo, strings.Replace(demoBase, "return 3", "return 3 // fixed by the user", 1))

	b2 := lsptest.StartBinary(t, bin)
	b2.Handle(protocol.MethodWorkspaceApplyEdit, lsptest.ApplyEditResult(true, ""))
	if _, err := b2.Initialize(ctx, init); err != nil {
		t.Fatal(err)
	}
	var ss lspserver.SessionsResult
	if err := b2.Call(ctx, lspserver.MethodSessions, map[string]any{}, &ss); err != nil {
		t.Fatal(err)
	}
	if len(ss.Sessions) != 1 || ss.Sessions[0].ID != res.SessionID || ss.Sessions[0].Runs != 1 {
		t.Fatalf("sessions after restart = %+v", ss.Sessions)
	}
	props := binaryProposals(t, b2)
	if len(props) != 1 || len(props[0].Hunks) != 2 {
		t.Fatalf("proposals after restart = %+v", props)
	}
	h := props[0].Hunks
	if h[0].Status != "pending" || h[0].NewText != "\treturn 10\n" || h[1].Status != "conflicted" {
		t.Fatalf("restored hunks = %+v", h)
	}
	var acc struct {
		Applied   bool `json:"applied"`
		Conflicts []struct {
			HunkID string `json:"hunkId"`
		} `json:"conflicts"`
	}
	if err := b2.Call(ctx, protocol.MethodWorkspaceExecuteCommand, command(lspserver.CommandAccept, map[string]any{}), &acc); err != nil {
		t.Fatal(err)
	}
	if !acc.Applied || len(acc.Conflicts) != 1 || acc.Conflicts[0].HunkID != h[1].ID {
		t.Fatalf("accept after restart = %+v", acc)
	}
	var sent []byte
	for _, m := range b2.Received() {
		if m.Method == protocol.MethodWorkspaceApplyEdit {
			sent = m.Params
		}
	}
	// The minimal edit of the first hunk: "return 1" → "return 10" on line
	// 3; nothing on line 11 (the conflicted "return 3").
	if !strings.Contains(string(sent), `"start":{"line":3,"character":9}`) || !strings.Contains(string(sent), `"newText":"0"`) ||
		strings.Contains(string(sent), `"line":11`) {
		t.Fatalf("applyEdit after restart = %s", sent)
	}
	if err := b2.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	if err := b2.Exit(ctx); err != nil {
		t.Fatal(err)
	}
}

func binaryProposals(t *testing.T, b *lsptest.Binary) []lspserver.ProposalInfo {
	t.Helper()
	var res lspserver.ProposalsResult
	if err := b.Call(lsptest.Context(t), lspserver.MethodProposals, &lspserver.ProposalsParams{}, &res); err != nil {
		t.Fatal(err)
	}
	return res.Proposals
}
