package acpserver_test

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	acp "github.com/coder/acp-go-sdk"

	"github.com/agentls/agentls/acpserver/acptest"
	"github.com/agentls/agentls/agent/llm/llmtest"
)

// replaceAll edits both "foo" of a.txt in one call: two hunks.
func replaceAll(answer string) llmtest.Script {
	return func(r *llmtest.ChatRequest) llmtest.Reply {
		switch {
		case !r.HasToolResult("c1"):
			return acptest.Call("c1", "read_file", `{"path":"a.txt"}`)
		case !r.HasToolResult("c2"):
			return acptest.Call("c2", "edit_file", `{"path":"a.txt","old_string":"foo","new_string":"bar","replace_all":true}`)
		}
		return llmtest.Text(answer)
	}
}

const twoHunks = "foo\n2\n3\n4\n5\n6\n7\n8\nfoo\n"

// hunkIDs reads the hunk ids of a permission request's _meta.
func hunkIDs(t *testing.T, p acp.RequestPermissionRequest) []string {
	t.Helper()
	a, _ := p.Meta["agentls"].(map[string]any)
	hs, _ := a["hunks"].([]any)
	var out []string
	for _, h := range hs {
		m, _ := h.(map[string]any)
		id, _ := m["id"].(string)
		out = append(out, id)
	}
	if len(out) == 0 {
		t.Fatalf("no hunks in _meta: %v", p.Meta)
	}
	return out
}

// A per-hunk client (rejectHunks in its answer) gets some hunks written
// and the others rejected.
func TestRejectSomeHunksInTheAnswer(t *testing.T) {
	h := acptest.Start(t, replaceAll("done"), acptest.Options{})
	h.Write("a.txt", twoHunks)
	h.Client.OnPermission = func(p acp.RequestPermissionRequest) acp.RequestPermissionResponse {
		ids := hunkIDs(t, p)
		if len(ids) != 2 {
			t.Errorf("hunks %v", ids)
		}
		r := acptest.Allow(acptest.OptionID(p, acp.PermissionOptionKindAllowOnce))
		r.Meta = map[string]any{"agentls": map[string]any{"rejectHunks": []any{ids[1]}, "reason": "only the first"}}
		return r
	}
	h.MustPrompt(h.NewSession(), "rename foo")
	if got := h.Read("a.txt"); got != strings.Replace(twoHunks, "foo", "bar", 1) {
		t.Fatalf("a.txt = %q", got)
	}
}

// A client that asks for hunkPermissions is asked once per hunk.
func TestOnePermissionPerHunk(t *testing.T) {
	h := acptest.Start(t, replaceAll("done"), acptest.Options{Meta: map[string]any{"agentls": map[string]any{"hunkPermissions": true}}})
	h.Write("a.txt", twoHunks)
	n := 0
	h.Client.OnPermission = func(p acp.RequestPermissionRequest) acp.RequestPermissionResponse {
		n++
		if len(hunkIDs(t, p)) != 1 || !strings.Contains(*p.ToolCall.Title, "change "+string(rune('0'+n))+" of 2") {
			t.Errorf("request %d: %v %q", n, p.Meta, *p.ToolCall.Title)
		}
		if n == 2 {
			return acptest.Allow(acptest.OptionID(p, acp.PermissionOptionKindRejectOnce))
		}
		return acptest.Allow(acptest.OptionID(p, acp.PermissionOptionKindAllowOnce))
	}
	h.MustPrompt(h.NewSession(), "rename foo")
	if n != 2 {
		t.Fatalf("%d permission requests, want 2", n)
	}
	if got := h.Read("a.txt"); got != strings.Replace(twoHunks, "foo", "bar", 1) {
		t.Fatalf("a.txt = %q", got)
	}
}

// "Allow all changes in this session" writes later changes without
// asking; apply mode never asks.
func TestAllowAlwaysAndApplyMode(t *testing.T) {
	h := acptest.Start(t, func(r *llmtest.ChatRequest) llmtest.Reply {
		file, p := "a.txt", "a"
		if strings.Contains(r.LastUser(), "b.txt") {
			file, p = "b.txt", "b"
		}
		switch {
		case !r.HasToolResult(p + "1"):
			return acptest.Call(p+"1", "read_file", `{"path":"`+file+`"}`)
		case !r.HasToolResult(p + "2"):
			return acptest.Call(p+"2", "edit_file", `{"path":"`+file+`","old_string":"hello","new_string":"hello, world"}`)
		}
		return llmtest.Text("done")
	}, acptest.Options{})
	h.Write("a.txt", "hello\n")
	h.Write("b.txt", "hello\n")
	h.Client.OnPermission = func(p acp.RequestPermissionRequest) acp.RequestPermissionResponse {
		return acptest.Allow(acptest.OptionID(p, acp.PermissionOptionKindAllowAlways))
	}
	id := h.NewSession()
	h.MustPrompt(id, "greet in a.txt")
	id2 := h.NewSession()
	h.MustPrompt(id, "greet in b.txt") // same session: no question
	_, perms := h.Client.Snapshot()
	if len(perms) != 1 || h.Read("a.txt") != "hello, world\n" || h.Read("b.txt") != "hello, world\n" {
		t.Fatalf("permissions %d, a=%q b=%q", len(perms), h.Read("a.txt"), h.Read("b.txt"))
	}
	h.Write("a.txt", "hello\n")
	if _, err := h.Conn.SetSessionMode(h.Ctx(), acp.SetSessionModeRequest{SessionId: id2, ModeId: "apply"}); err != nil {
		t.Fatal(err)
	}
	h.MustPrompt(id2, "greet in a.txt")
	if _, perms = h.Client.Snapshot(); len(perms) != 1 || h.Read("a.txt") != "hello, world\n" {
		t.Fatalf("apply mode: permissions %d, a=%q", len(perms), h.Read("a.txt"))
	}
}

// The user edits the hunk's lines while the question is open: the hunk is
// conflicted and not written (the optimistic lock), and the tool call
// says why. An edit elsewhere in the file is kept and the change rebased.
func TestConflictWhileAsking(t *testing.T) {
	t.Run("touched", func(t *testing.T) {
		h := acptest.Start(t, editScript("done"), acptest.Options{})
		h.Write("a.txt", "hello\nsecond\n")
		h.Client.OnPermission = func(p acp.RequestPermissionRequest) acp.RequestPermissionResponse {
			h.Write("a.txt", "hello there\nsecond\n") // the user typed on the hunk's line
			return acptest.Allow(acptest.OptionID(p, acp.PermissionOptionKindAllowOnce))
		}
		h.MustPrompt(h.NewSession(), "greet")
		if got := h.Read("a.txt"); got != "hello there\nsecond\n" {
			t.Fatalf("the user's edit was overwritten: %q", got)
		}
		us, _ := h.Client.Snapshot()
		ups := acptest.ToolUpdates(us, acptest.ToolCalls(us)[1].ToolCallId)
		end := ups[len(ups)-1]
		if *end.Status != acp.ToolCallStatusFailed || !strings.Contains(acptest.ContentText(end.Content), "Not written") {
			t.Fatalf("conflicted edit call: %+v %q", end.Status, acptest.ContentText(end.Content))
		}
	})
	t.Run("elsewhere", func(t *testing.T) {
		h := acptest.Start(t, editScript("done"), acptest.Options{})
		h.Write("a.txt", "hello\n2\n3\nlast\n")
		h.Client.OnPermission = func(p acp.RequestPermissionRequest) acp.RequestPermissionResponse {
			h.Write("a.txt", "hello\n2\n3\nlast, edited\n")
			return acptest.Allow(acptest.OptionID(p, acp.PermissionOptionKindAllowOnce))
		}
		h.MustPrompt(h.NewSession(), "greet")
		if got := h.Read("a.txt"); got != "hello, world\n2\n3\nlast, edited\n" {
			t.Fatalf("rebased write: %q", got)
		}
	})
}

// An untrusted workspace config is asked about at the first prompt; its
// settings apply only once trusted, and the run_command it enables asks
// before each command.
func TestTrustAndRunCommand(t *testing.T) {
	script := func(r *llmtest.ChatRequest) llmtest.Reply {
		if !r.HasTool("run_command") {
			return llmtest.Text("no commands here")
		}
		if !r.HasToolResult("r1") {
			return acptest.Call("r1", "run_command", `{"command":"echo agentls-was-here"}`)
		}
		return llmtest.Text("ran it")
	}
	h := acptest.Start(t, script, acptest.Options{})
	h.Write(".agentls/config.json", `{"tools": {"runCommand": "ask"}}`)
	var asked []string
	h.Client.OnPermission = func(p acp.RequestPermissionRequest) acp.RequestPermissionResponse {
		title := ""
		if p.ToolCall.Title != nil {
			title = *p.ToolCall.Title
		}
		asked = append(asked, title)
		if len(asked) == 1 { // the trust question: refuse
			return acptest.Allow(acptest.OptionID(p, acp.PermissionOptionKindRejectOnce))
		}
		return acptest.Allow(acptest.OptionID(p, acp.PermissionOptionKindAllowOnce))
	}
	id := h.NewSession()
	h.MustPrompt(id, "run something")
	if len(asked) != 1 || h.Chats()[0].HasTool("run_command") {
		t.Fatalf("untrusted: asked %v, tools %v", asked, h.Chats()[0].ToolNames())
	}
	us, _ := h.Client.Snapshot()
	if !strings.Contains(contentTextOfAll(us), "tools.runCommand") {
		t.Fatal("the trust question did not name the withheld setting")
	}

	// A new connection asks again; this time the answer is Trust.
	h2 := acptest.Start(t, script, acptest.Options{Dir: h.Dir, State: h.State})
	asked = nil
	h2.Client.OnPermission = func(p acp.RequestPermissionRequest) acp.RequestPermissionResponse {
		asked = append(asked, *p.ToolCall.Title)
		if len(asked) == 1 {
			return acptest.Allow(acptest.OptionID(p, acp.PermissionOptionKindAllowAlways))
		}
		if p.ToolCall.Kind == nil || *p.ToolCall.Kind != acp.ToolKindExecute || !strings.Contains(*p.ToolCall.Title, "echo agentls-was-here") {
			t.Errorf("command permission: %+v", p.ToolCall)
		}
		return acptest.Allow(acptest.OptionID(p, acp.PermissionOptionKindAllowOnce))
	}
	id2 := h2.NewSession()
	h2.MustPrompt(id2, "run something")
	reqs := h2.Chats()
	res, _ := reqs[len(reqs)-1].ToolResult("r1")
	if len(asked) != 2 || !strings.Contains(res, "agentls-was-here") {
		t.Fatalf("trusted: asked %v, result %q", asked, res)
	}
	if _, err := os.Stat(filepath.Join(h.State, "agentls", "trust.json")); err != nil {
		t.Fatalf("trust not remembered: %v", err)
	}
}

func contentTextOfAll(us []acp.SessionNotification) string {
	var b strings.Builder
	for _, u := range us {
		if tc := u.Update.ToolCall; tc != nil {
			b.WriteString(acptest.ContentText(tc.Content))
		}
	}
	return b.String()
}

// "Always allow" for one command allows that command again without a
// question, and only it: a different command of the same run is asked
// about (agent.Approvals, the editor's rule). It was the run-wide
// tools.AllowAlways over ACP, which let any later command through.
func TestAlwaysAllowsOnlyThatCommand(t *testing.T) {
	calls := []string{"echo agentls-one", "echo agentls-one", "echo agentls-two"}
	script := func(r *llmtest.ChatRequest) llmtest.Reply {
		if !r.HasTool("run_command") {
			return llmtest.Text("no commands here")
		}
		for i, c := range calls {
			id := fmt.Sprintf("c%d", i)
			if !r.HasToolResult(id) {
				return acptest.Call(id, "run_command", fmt.Sprintf(`{"command":%q}`, c))
			}
		}
		return llmtest.Text("ran them")
	}
	h := acptest.Start(t, script, acptest.Options{})
	h.Write(".agentls/config.json", `{"tools": {"runCommand": "ask"}}`)
	var commands []string
	h.Client.OnPermission = func(p acp.RequestPermissionRequest) acp.RequestPermissionResponse {
		if p.ToolCall.Kind != nil && *p.ToolCall.Kind == acp.ToolKindExecute {
			commands = append(commands, *p.ToolCall.Title)
		}
		return acptest.Allow(acptest.OptionID(p, acp.PermissionOptionKindAllowAlways)) // Trust, then always
	}
	h.MustPrompt(h.NewSession(), "run them")
	want := []string{"Run echo agentls-one", "Run echo agentls-two"}
	if !slices.Equal(commands, want) {
		t.Fatalf("asked about %q, want %q", commands, want)
	}
	reqs := h.Chats()
	last := reqs[len(reqs)-1]
	for i, c := range calls {
		if res, _ := last.ToolResult(fmt.Sprintf("c%d", i)); !strings.Contains(res, strings.TrimPrefix(c, "echo ")) {
			t.Errorf("command %d (%s) did not run: %q", i, c, res)
		}
	}
}
