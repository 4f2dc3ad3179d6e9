package acpserver_test

import (
	"strings"
	"testing"

	acp "github.com/coder/acp-go-sdk"

	"github.com/agentls/agentls/acpserver/acptest"
	"github.com/agentls/agentls/agent/llm/llmtest"
)

// Only an offered "allow" writes a change: an answer naming an option
// that was never offered, an empty one, a cancelled outcome or one the
// client cannot even encode leaves the file alone, and nothing reaches
// the editor's fs/write_text_file. An unoffered option is a rejection
// (the model is told on its next prompt, as of any rejection).
func TestPermissionFailsClosed(t *testing.T) {
	for _, tc := range []struct {
		name   string
		answer acp.RequestPermissionResponse
		told   string // on the change's tool call, when set
	}{
		{"unknown option", acptest.Allow("yes-please"), `Rejected: the editor answered with option "yes-please", which agentls did not offer`},
		{"empty option", acptest.Allow(""), "which agentls did not offer"},
		{"cancelled", acp.RequestPermissionResponse{Outcome: acp.NewRequestPermissionOutcomeCancelled()}, ""},
		{"malformed", acp.RequestPermissionResponse{}, ""},
	} {
		for _, perHunk := range []bool{false, true} {
			name := tc.name
			if perHunk {
				name += "/per hunk"
			}
			t.Run(name, func(t *testing.T) {
				o := acptest.Options{FS: true}
				if perHunk {
					o.Meta = map[string]any{"agentls": map[string]any{"hunkPermissions": true}}
				}
				h := acptest.Start(t, editScript("done"), o)
				h.Write("a.txt", "hello\n")
				h.Client.OnPermission = func(acp.RequestPermissionRequest) acp.RequestPermissionResponse { return tc.answer }
				if r := h.MustPrompt(h.NewSession(), "greet"); r != acp.StopReasonEndTurn {
					t.Fatalf("stop reason %s", r)
				}
				rec := h.Client.Recorded()
				if len(rec.Perms) == 0 {
					t.Fatal("no permission was asked")
				}
				if len(rec.Writes) != 0 || h.Read("a.txt") != "hello\n" {
					t.Fatalf("written without an allow: writes %+v, a.txt %q", rec.Writes, h.Read("a.txt"))
				}
				if texts := acptest.UpdateTexts(rec.Updates); tc.told != "" && !strings.Contains(texts, tc.told) {
					t.Fatalf("the tool call does not say %q:\n%s", tc.told, texts)
				}
			})
		}
	}
}

// A permission nobody answers ends with the run's maxWallClockSeconds:
// the prompt ends (the run stopped on its wall clock), nothing is
// written, and the change's tool call says why.
func TestUnansweredPermissionEndsWithWallClock(t *testing.T) {
	h := acptest.Start(t, editScript("done"), acptest.Options{})
	h.UserConfig(`{"maxWallClockSeconds": 1}`)
	h.Write("a.txt", "hello\n")
	never := make(chan struct{})
	h.Client.OnPermission = func(acp.RequestPermissionRequest) acp.RequestPermissionResponse {
		<-never
		return acptest.Allow("allow")
	}
	t.Cleanup(func() { close(never) }) // before the harness closes
	if r := h.MustPrompt(h.NewSession(), "greet"); r != acp.StopReasonEndTurn {
		t.Fatalf("stop reason %s", r)
	}
	if got := h.Read("a.txt"); got != "hello\n" {
		t.Fatalf("written without an answer: %q", got)
	}
	us, _ := h.Client.Snapshot()
	if text := acptest.AgentText(us); !strings.Contains(text, "wall-clock limit reached") {
		t.Fatalf("the prompt does not say the run hit its wall clock: %q", text)
	}
	if !strings.Contains(acptest.UpdateTexts(us), "no answer within the run's time limit (maxWallClockSeconds)") {
		t.Fatalf("the change's tool call does not say why:\n%s", acptest.UpdateTexts(us))
	}
}

// An answer to one of agentls's requests over the 10 MiB line limit (an
// 11 MiB fs/read_text_file answer) fails that request at once: the read
// tool tells the model why, no message about it goes to the client (an
// error response would carry agentls's own request id), and the
// connection keeps working. client.requestTimeoutSeconds is far beyond
// the test's bound, so a read left waiting for its timeout fails here.
func TestOversizedClientAnswerFailsOnlyThatRequest(t *testing.T) {
	script := func(r *llmtest.ChatRequest) llmtest.Reply {
		if strings.Contains(r.LastUser(), "again") {
			return llmtest.Text("still here")
		}
		if !r.HasToolResult("c1") {
			return acptest.Call("c1", "read_file", `{"path":"a.txt"}`)
		}
		return llmtest.Text("too big")
	}
	h := acptest.Start(t, script, acptest.Options{FS: true})
	h.UserConfig(`{"client": {"requestTimeoutSeconds": 3600}}`)
	path := h.Write("a.txt", "small on disk\n")
	h.Client.OnRead = func(p acp.ReadTextFileRequest) (acp.ReadTextFileResponse, error) {
		if p.Path == path {
			return acp.ReadTextFileResponse{Content: strings.Repeat("x", 11<<20)}, nil
		}
		return acp.ReadTextFileResponse{}, acp.NewInternalError(map[string]any{"error": "not open"})
	}
	id := h.NewSession()
	if r := h.MustPrompt(id, "read a.txt"); r != acp.StopReasonEndTurn {
		t.Fatalf("stop reason %s", r)
	}
	reqs := h.Chats()
	last := reqs[len(reqs)-1]
	if !last.HasToolResult("c1") || !last.Contains("more than agentls takes from the editor") || last.Contains("small on disk") {
		t.Fatalf("the read did not fail with the reason: %s", last.LastUser())
	}
	for _, line := range h.ServerOutput() {
		if strings.Contains(line, `"error"`) && !strings.Contains(line, `"method"`) {
			t.Fatalf("the server answered the oversized answer: %.300s", line)
		}
	}
	if r := h.MustPrompt(id, "again"); r != acp.StopReasonEndTurn {
		t.Fatalf("second prompt: %s", r)
	}
	us, _ := h.Client.Snapshot()
	if !strings.Contains(acptest.AgentText(us), "still here") {
		t.Fatal("the connection did not keep working")
	}
}

// An unanswered workspace-trust question ends with the run's wall clock
// too: the file stays untrusted (its setting withheld) and the prompt goes
// on without it.
func TestUnansweredTrustEndsWithWallClock(t *testing.T) {
	script := func(r *llmtest.ChatRequest) llmtest.Reply {
		if r.HasTool("run_command") {
			return llmtest.Text("trusted without an answer")
		}
		return llmtest.Text("untrusted")
	}
	h := acptest.Start(t, script, acptest.Options{})
	h.UserConfig(`{"maxWallClockSeconds": 1}`)
	h.Write(".agentls/config.json", `{"tools": {"runCommand": "ask"}}`)
	never := make(chan struct{})
	h.Client.OnPermission = func(p acp.RequestPermissionRequest) acp.RequestPermissionResponse {
		<-never
		return acptest.Allow(acptest.OptionID(p, acp.PermissionOptionKindAllowAlways))
	}
	t.Cleanup(func() { close(never) }) // before the harness closes
	if r := h.MustPrompt(h.NewSession(), "run something"); r != acp.StopReasonEndTurn {
		t.Fatalf("stop reason %s", r)
	}
	us, perms := h.Client.Snapshot()
	if len(perms) != 1 || perms[0].ToolCall.Title == nil || !strings.HasPrefix(*perms[0].ToolCall.Title, "Trust ") {
		t.Fatalf("asked %d questions, want the trust question once", len(perms))
	}
	if text := acptest.AgentText(us); !strings.Contains(text, "untrusted") {
		t.Fatalf("the prompt did not go on untrusted: %q", text)
	}
}
