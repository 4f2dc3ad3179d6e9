package acpserver_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	acp "github.com/coder/acp-go-sdk"

	"github.com/agentls/agentls/acpserver/acptest"
	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/agent/llm/llmtest"
)

// N3: session/load replays a saved session; the proposals its file names
// are checked against every write rule first, so a tampered file naming
// .GIT/config or a path through a symlink leading out never joins review.
func TestLoadSessionRefusesProposalsBreakingWriteRules(t *testing.T) {
	dir, state, outside := acptest.RealDir(t, t.TempDir()), t.TempDir(), acptest.RealDir(t, t.TempDir())
	if err := os.Symlink(outside, filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	st, err := agent.OpenSessionStore(filepath.Join(state, "agentls"), dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	sess := agent.NewSession("")
	bad := []agent.SavedProposal{
		{RunID: "r1", Path: filepath.Join(dir, ".GIT", "config"), Proposed: "[core]\n\tfsmonitor = evil\n", Created: true},
		{RunID: "r1", Path: filepath.Join(dir, "link", "x.txt"), Proposed: "x\n", Created: true},
	}
	if err := st.Save(sess, append(bad, agent.SavedProposal{RunID: "r1", Path: filepath.Join(dir, "ok.txt"), Proposed: "ok\n", Created: true}), agent.NewRedactor("")); err != nil {
		t.Fatal(err)
	}
	h := acptest.Start(t, func(*llmtest.ChatRequest) llmtest.Reply { return llmtest.Text("ok") }, acptest.Options{Dir: dir, State: state})
	if _, err := h.Conn.LoadSession(h.Ctx(), acp.LoadSessionRequest{SessionId: acp.SessionId(sess.ID()), Cwd: dir, McpServers: []acp.McpServer{}}); err != nil {
		t.Fatal(err)
	}
	h.Close()
	logs := h.Logs()
	for _, p := range bad {
		if !strings.Contains(logs, "restored proposal refused") || !strings.Contains(logs, p.Path) {
			t.Errorf("no refusal naming %s in the logs", p.Path)
		}
	}
	if n := strings.Count(logs, "restored proposal refused"); n != len(bad) {
		t.Errorf("%d refusals, want %d (the proposal inside the workspace is restored)", n, len(bad))
	}
}
