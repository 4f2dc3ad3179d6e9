package acpserver_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	acp "github.com/coder/acp-go-sdk"

	"github.com/agentls/agentls/agent/llm/llmtest"
)

// userConfig writes the user's config file of h's environment.
func userConfig(t *testing.T, env map[string]string, json string) {
	t.Helper()
	p := filepath.Join(env["XDG_CONFIG_HOME"], "agentls", "config.json")
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(json), 0o644); err != nil {
		t.Fatal(err)
	}
}

// model.record / model.replay cassettes work over ACP as elsewhere: a
// session recorded against the model is answered again from the
// cassette by a connection with no model configured.
func TestCassetteRecordReplay(t *testing.T) {
	cassette := filepath.Join(t.TempDir(), "run.cassette.json")
	h := start(t, editScript("recorded answer"), harnessOpts{})
	userConfig(t, h.env, `{"model": {"record": "`+cassette+`"}}`)
	h.write("a.txt", "hello\n")
	h.mustPrompt(h.newSession(), "greet")
	h.close()
	if _, err := os.Stat(cassette); err != nil {
		t.Fatalf("no cassette: %v", err)
	}

	h2 := start(t, nil, harnessOpts{noModel: true})
	userConfig(t, h2.env, `{"model": {"replay": "`+cassette+`"}}`)
	h2.write("a.txt", "hello\n")
	if r := h2.mustPrompt(h2.newSession(), "greet"); r != acp.StopReasonEndTurn {
		t.Fatal(r)
	}
	us, _ := h2.client.snapshot()
	if !strings.Contains(agentText(us), "recorded answer") || h2.read("a.txt") != "hello, world\n" {
		t.Fatalf("replay: %q, a.txt %q", agentText(us), h2.read("a.txt"))
	}
}

// maxTurns ends a prompt with max_turn_requests, the reason told in the
// message.
func TestTurnLimit(t *testing.T) {
	n := 0
	h := start(t, func(*llmtest.ChatRequest) llmtest.Reply {
		n++
		return call("l"+string(rune('a'+n)), "list_dir", `{"path":"."}`)
	}, harnessOpts{})
	userConfig(t, h.env, `{"maxTurns": 2}`)
	if r := h.mustPrompt(h.newSession(), "loop"); r != acp.StopReasonMaxTurnRequests {
		t.Fatalf("stop reason %q", r)
	}
	us, _ := h.client.snapshot()
	if !strings.Contains(agentText(us), "turn limit") {
		t.Fatalf("message %q", agentText(us))
	}
}

// A new file is shown as a diff without old text and created (confined)
// only after permission.
func TestNewFile(t *testing.T) {
	h := start(t, func(r *llmtest.ChatRequest) llmtest.Reply {
		if !r.HasToolResult("w1") {
			return call("w1", "write_file", `{"path":"sub/new.txt","content":"fresh\n"}`)
		}
		return llmtest.Text("created")
	}, harnessOpts{})
	h.client.onPerm = func(p acp.RequestPermissionRequest) acp.RequestPermissionResponse {
		if _, err := os.Stat(filepath.Join(h.dir, "sub", "new.txt")); err == nil {
			t.Error("created before the permission")
		}
		d := p.ToolCall.Content[0].Diff
		if d == nil || d.OldText != nil || d.NewText != "fresh\n" || !strings.HasPrefix(*p.ToolCall.Title, "Create sub/new.txt") {
			t.Errorf("new-file permission: %+v %q", d, *p.ToolCall.Title)
		}
		return allow(optionID(p, acp.PermissionOptionKindAllowOnce))
	}
	h.mustPrompt(h.newSession(), "create it")
	if got := h.read("sub/new.txt"); got != "fresh\n" {
		t.Fatalf("new.txt = %q", got)
	}
}

// A connection keeps at most 32 sessions in memory: the least recently
// used idle one is dropped (saved first) and can be loaded again.
func TestLiveSessionBound(t *testing.T) {
	h := start(t, llmtest.Always(llmtest.Text("ok")), harnessOpts{})
	first := h.newSession()
	h.mustPrompt(first, "remember me")
	for range 32 {
		h.newSession()
	}
	if _, err := h.prompt(first, "still there?"); reqErr(t, err).Code != -32602 {
		t.Fatalf("the least recently used session was kept: %v", err)
	}
	if _, err := h.conn.LoadSession(h.ctx(), acp.LoadSessionRequest{SessionId: first, Cwd: h.dir, McpServers: []acp.McpServer{}}); err != nil {
		t.Fatal(err)
	}
	if r := h.mustPrompt(first, "still there?"); r != acp.StopReasonEndTurn {
		t.Fatal(r)
	}
}
