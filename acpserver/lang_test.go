package acpserver_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	acp "github.com/coder/acp-go-sdk"

	"github.com/agentls/agentls/acpserver/acptest"
	"github.com/agentls/agentls/agent/llm/llmtest"
	"github.com/agentls/agentls/internal/testwait"
	"github.com/agentls/agentls/tools/lang/langtest"
)

// Language servers over ACP: the same runs as over LSP, so an edit's
// result ends with gopls's verdict in the same turn, and gopls ends when
// the connection does.
func TestLanguageServerOverACP(t *testing.T) {
	gopls := langtest.Path(t, "gopls")
	var result string
	h := acptest.Start(t, func(r *llmtest.ChatRequest) llmtest.Reply {
		switch {
		case !r.HasToolResult("r"):
			return acptest.Call("r", "read_file", `{"path":"main.go"}`)
		case !r.HasToolResult("e"):
			return acptest.Call("e", "edit_file", `{"path":"main.go","old_string":"println(1)","new_string":"println(undefinedThing)"}`)
		}
		result, _ = r.ToolResult("e")
		return llmtest.Text("done")
	}, acptest.Options{})
	cmd, _ := json.Marshal([]string{gopls})
	userConfig(t, h.Env, `{"languageServers": {"gopls": {"command": `+string(cmd)+`}}, "languageServerWaitSeconds": 30}`)
	for name, content := range map[string]string{"go.mod": "module example.com/m\n\ngo 1.22\n", "main.go": "package main\n\nfunc main() {\n\tprintln(1)\n}\n"} {
		if err := os.WriteFile(filepath.Join(h.Dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if r := h.MustPrompt(h.NewSession(), "break it"); r != acp.StopReasonEndTurn {
		t.Fatalf("stop reason %q", r)
	}
	if !strings.HasSuffix(result, "main.go:4: undefined: undefinedThing") {
		t.Fatalf("edit result over ACP:\n%s", result)
	}
	// The client sees it on the edit's tool call.
	us, _ := h.Client.Snapshot()
	shown := false
	for _, c := range acptest.ToolCalls(us) {
		for _, u := range acptest.ToolUpdates(us, c.ToolCallId) {
			for _, ct := range u.Content {
				if ct.Content != nil && ct.Content.Content.Text != nil &&
					strings.Contains(ct.Content.Content.Text.Text, "⚠ main.go introduces 1 problem(s)\nmain.go:4: undefined: undefinedThing") {
					shown = true
				}
			}
		}
	}
	if !shown {
		t.Fatalf("no tool call update shows the problem: %+v", acptest.ToolCalls(us))
	}
	// The cold start is shown as it happens, as a tool call of its own.
	var start *acp.SessionUpdateToolCall
	for _, c := range acptest.ToolCalls(us) {
		if c.Title == "Start language server gopls" {
			start = c
		}
	}
	if start == nil || len(start.Content) == 0 || start.Content[0].Content == nil ||
		start.Content[0].Content.Content.Text.Text != "starting language server gopls…" {
		t.Fatalf("no tool call shows gopls starting: %+v", acptest.ToolCalls(us))
	}
	ups := acptest.ToolUpdates(us, start.ToolCallId)
	if len(ups) != 1 || ups[0].Status == nil || *ups[0].Status != acp.ToolCallStatusCompleted ||
		!strings.HasPrefix(ups[0].Content[0].Content.Content.Text.Text, "language server gopls ready (") {
		t.Fatalf("gopls's start did not end as ready: %+v", ups)
	}
	if !goplsIn(h.Dir) {
		t.Fatal("no gopls serving the session's folder")
	}
	h.Close()
	deadline := time.Now().Add(testwait.Limit)
	for goplsIn(h.Dir) {
		if time.Now().After(deadline) {
			t.Fatal("gopls still running after the connection ended")
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// goplsIn reports a gopls process whose working directory is dir.
func goplsIn(dir string) bool {
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		cwd, err := os.Readlink(filepath.Join("/proc", e.Name(), "cwd"))
		comm, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "comm"))
		if err == nil && cwd == dir && strings.TrimSpace(string(comm)) == "gopls" {
			return true
		}
	}
	return false
}
