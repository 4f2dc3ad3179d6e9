package acpserver_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	acp "github.com/coder/acp-go-sdk"

	"github.com/agentls/agentls/acpserver/acptest"
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
	h := acptest.Start(t, editScript("recorded answer"), acptest.Options{})
	userConfig(t, h.Env, `{"model": {"record": "`+cassette+`"}}`)
	h.Write("a.txt", "hello\n")
	h.MustPrompt(h.NewSession(), "greet")
	h.Close()
	if _, err := os.Stat(cassette); err != nil {
		t.Fatalf("no cassette: %v", err)
	}

	h2 := acptest.Start(t, nil, acptest.Options{NoModel: true})
	userConfig(t, h2.Env, `{"model": {"replay": "`+cassette+`"}}`)
	h2.Write("a.txt", "hello\n")
	if r := h2.MustPrompt(h2.NewSession(), "greet"); r != acp.StopReasonEndTurn {
		t.Fatal(r)
	}
	us, _ := h2.Client.Snapshot()
	if !strings.Contains(acptest.AgentText(us), "recorded answer") || h2.Read("a.txt") != "hello, world\n" {
		t.Fatalf("replay: %q, a.txt %q", acptest.AgentText(us), h2.Read("a.txt"))
	}
}

// maxTurns ends a prompt with max_turn_requests, the reason told in the
// message.
func TestTurnLimit(t *testing.T) {
	n := 0
	h := acptest.Start(t, func(*llmtest.ChatRequest) llmtest.Reply {
		n++
		return acptest.Call("l"+string(rune('a'+n)), "list_dir", `{"path":"."}`)
	}, acptest.Options{})
	userConfig(t, h.Env, `{"maxTurns": 2}`)
	if r := h.MustPrompt(h.NewSession(), "loop"); r != acp.StopReasonMaxTurnRequests {
		t.Fatalf("stop reason %q", r)
	}
	us, _ := h.Client.Snapshot()
	if !strings.Contains(acptest.AgentText(us), "turn limit") {
		t.Fatalf("message %q", acptest.AgentText(us))
	}
}

// A new file is shown as a diff without old text and created (confined)
// only after permission.
func TestNewFile(t *testing.T) {
	h := acptest.Start(t, func(r *llmtest.ChatRequest) llmtest.Reply {
		if !r.HasToolResult("w1") {
			return acptest.Call("w1", "write_file", `{"path":"sub/new.txt","content":"fresh\n"}`)
		}
		return llmtest.Text("created")
	}, acptest.Options{})
	h.Client.OnPermission = func(p acp.RequestPermissionRequest) acp.RequestPermissionResponse {
		if _, err := os.Stat(filepath.Join(h.Dir, "sub", "new.txt")); err == nil {
			t.Error("created before the permission")
		}
		d := p.ToolCall.Content[0].Diff
		if d == nil || d.OldText != nil || d.NewText != "fresh\n" || !strings.HasPrefix(*p.ToolCall.Title, "Create sub/new.txt") {
			t.Errorf("new-file permission: %+v %q", d, *p.ToolCall.Title)
		}
		return acptest.Allow(acptest.OptionID(p, acp.PermissionOptionKindAllowOnce))
	}
	h.MustPrompt(h.NewSession(), "create it")
	if got := h.Read("sub/new.txt"); got != "fresh\n" {
		t.Fatalf("new.txt = %q", got)
	}
}

// A connection keeps at most 32 sessions in memory: the least recently
// used idle one is dropped (saved first) and can be loaded again.
func TestLiveSessionBound(t *testing.T) {
	h := acptest.Start(t, llmtest.Always(llmtest.Text("ok")), acptest.Options{})
	first := h.NewSession()
	h.MustPrompt(first, "remember me")
	for range 32 {
		h.NewSession()
	}
	if _, err := h.Prompt(first, "still there?"); acptest.ReqErr(t, err).Code != -32602 {
		t.Fatalf("the least recently used session was kept: %v", err)
	}
	if _, err := h.Conn.LoadSession(h.Ctx(), acp.LoadSessionRequest{SessionId: first, Cwd: h.Dir, McpServers: []acp.McpServer{}}); err != nil {
		t.Fatal(err)
	}
	if r := h.MustPrompt(first, "still there?"); r != acp.StopReasonEndTurn {
		t.Fatal(r)
	}
}

// The model option offers model.name, model.choices and what the
// endpoint lists (GET /models, asked in the background once per
// endpoint); a chosen one is used by the session's runs.
func TestModelOptionValues(t *testing.T) {
	h := acptest.Start(t, llmtest.Always(llmtest.Text("ok")), acptest.Options{Model: []llmtest.Option{llmtest.WithModels(
		`{"object":"list","data":[{"id":"listed-model","object":"model"},{"id":"test-model","object":"model"}]}`)}})
	userConfig(t, h.Env, `{"model": {"choices": ["chosen-in-config"]}}`)
	res, err := h.Conn.NewSession(h.Ctx(), acp.NewSessionRequest{Cwd: h.Dir, McpServers: []acp.McpServer{}})
	if err != nil {
		t.Fatal(err)
	}
	values := func(o acp.SessionConfigOption) []string {
		var out []string
		for _, v := range *o.Select.Options.Ungrouped {
			out = append(out, string(v.Value))
		}
		return out
	}
	if got := strings.Join(values(res.ConfigOptions[1]), ","); got != "test-model,chosen-in-config" {
		t.Fatalf("model values at session/new: %s", got)
	}
	h.Client.Await(t, "the listed models", func(c acptest.Recorded) bool {
		for _, u := range c.Updates {
			if co := u.Update.ConfigOptionUpdate; co != nil && len(co.ConfigOptions) == 2 &&
				strings.Join(values(co.ConfigOptions[1]), ",") == "test-model,chosen-in-config,listed-model" {
				return true
			}
		}
		return false
	})
	if _, err := h.Conn.SetSessionConfigOption(h.Ctx(), acp.SetSessionConfigOptionRequest{ValueId: &acp.SetSessionConfigOptionValueId{
		SessionId: res.SessionId, ConfigId: "model", Value: "listed-model"}}); err != nil {
		t.Fatal(err)
	}
	h.MustPrompt(res.SessionId, "hi")
	if m := h.Chats()[0].Model; m != "listed-model" {
		t.Fatalf("the run used %q", m)
	}
}

// The user's AGENTS.md and skills folder are found in the face's own
// environment (Options.Env: the client's XDG_CONFIG_HOME), as its
// config.json is, never in the process's (which here points elsewhere).
func TestUserRulesAndSkillsFromFaceEnv(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir()) // the process's: must not be read
	h := acptest.Start(t, editScript("done"), acptest.Options{})
	dir := filepath.Join(h.Env["XDG_CONFIG_HOME"], "agentls")
	if err := os.MkdirAll(filepath.Join(dir, "skills", "tidy"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "AGENTS.md"), []byte("Always answer in haiku (user rule).\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	skill := "---\nname: tidy\ndescription: Tidies imports the user's way.\n---\nSort imports.\n"
	if err := os.WriteFile(filepath.Join(dir, "skills", "tidy", "SKILL.md"), []byte(skill), 0o644); err != nil {
		t.Fatal(err)
	}
	h.Write("a.txt", "hello\n")
	h.MustPrompt(h.NewSession(), "greet")
	var system string
	for _, r := range h.Model.Requests() {
		if len(r.Messages) > 0 {
			system = r.Messages[0].Content
			break
		}
	}
	if !strings.Contains(system, "Always answer in haiku (user rule).") || !strings.Contains(system, "Tidies imports the user's way.") {
		t.Fatalf("the system prompt lacks the user's AGENTS.md or skill from the face's environment:\n%s", system)
	}
}
