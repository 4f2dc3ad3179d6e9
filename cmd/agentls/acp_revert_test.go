package main

import (
	"context"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	acp "github.com/coder/acp-go-sdk"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/agent/llm/llmtest"
	"github.com/agentls/agentls/internal/testwait"
)

// acpEditor is the editor side of `agentls acp` in these tests: it allows
// every change (agentls then writes it to disk: no fs capability) and
// keeps the permission requests.
type acpEditor struct {
	mu    sync.Mutex
	perms []acp.RequestPermissionRequest
}

func (e *acpEditor) SessionUpdate(context.Context, acp.SessionNotification) error { return nil }

func (e *acpEditor) RequestPermission(_ context.Context, p acp.RequestPermissionRequest) (acp.RequestPermissionResponse, error) {
	e.mu.Lock()
	e.perms = append(e.perms, p)
	e.mu.Unlock()
	for _, o := range p.Options {
		if o.Kind == acp.PermissionOptionKindAllowOnce {
			return acp.RequestPermissionResponse{Outcome: acp.NewRequestPermissionOutcomeSelected(o.OptionId)}, nil
		}
	}
	return acp.RequestPermissionResponse{Outcome: acp.NewRequestPermissionOutcomeCancelled()}, nil
}

func (e *acpEditor) ReadTextFile(context.Context, acp.ReadTextFileRequest) (acp.ReadTextFileResponse, error) {
	return acp.ReadTextFileResponse{}, acp.NewMethodNotFound("fs/read_text_file")
}
func (e *acpEditor) WriteTextFile(context.Context, acp.WriteTextFileRequest) (acp.WriteTextFileResponse, error) {
	return acp.WriteTextFileResponse{}, acp.NewMethodNotFound("fs/write_text_file")
}
func (e *acpEditor) CreateTerminal(context.Context, acp.CreateTerminalRequest) (acp.CreateTerminalResponse, error) {
	return acp.CreateTerminalResponse{}, acp.NewMethodNotFound("terminal/create")
}
func (e *acpEditor) KillTerminal(context.Context, acp.KillTerminalRequest) (acp.KillTerminalResponse, error) {
	return acp.KillTerminalResponse{}, acp.NewMethodNotFound("terminal/kill")
}
func (e *acpEditor) TerminalOutput(context.Context, acp.TerminalOutputRequest) (acp.TerminalOutputResponse, error) {
	return acp.TerminalOutputResponse{}, acp.NewMethodNotFound("terminal/output")
}
func (e *acpEditor) ReleaseTerminal(context.Context, acp.ReleaseTerminalRequest) (acp.ReleaseTerminalResponse, error) {
	return acp.ReleaseTerminalResponse{}, acp.NewMethodNotFound("terminal/release")
}
func (e *acpEditor) WaitForTerminalExit(context.Context, acp.WaitForTerminalExitRequest) (acp.WaitForTerminalExitResponse, error) {
	return acp.WaitForTerminalExitResponse{}, acp.NewMethodNotFound("terminal/wait_for_exit")
}

// A run whose changes were allowed over `agentls acp` is taken back by
// `agentls revert RUN_ID`: the edited file returns to its old text except
// a line the user changed since, the created file is deleted, the run's
// transcript records the files accepted then reverted, a second revert
// does nothing, and the session's next run is told.
func TestRevertRunAllowedOverACP(t *testing.T) {
	srv := llmtest.New(t, func(req *llmtest.ChatRequest) llmtest.Reply {
		if req.Contains("what changed?") {
			return llmtest.Text("noted")
		}
		switch {
		case !req.HasToolResult("r"):
			return llmtest.ToolCalls(llmtest.Call{ID: "r", Name: "read_file", Args: `{"path":"a.txt"}`})
		case !req.HasToolResult("e"):
			return llmtest.ToolCalls(
				llmtest.Call{ID: "e", Name: "edit_file", Args: `{"path":"a.txt","old_string":"hello","new_string":"hello, world"}`},
				llmtest.Call{ID: "w", Name: "write_file", Args: `{"path":"NEW.md","content":"new\n"}`})
		}
		return llmtest.Text("done")
	})
	cliEnv(t, srv)
	ws, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	a := filepath.Join(ws, "a.txt")
	writeFile(t, a, "# title\nhello\nlast\n", 0o644)

	// `agentls acp` on pipes, driven by the Go SDK's client.
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan int, 1)
	var stderr strings.Builder
	go func() {
		code := acpMain(nil, inR, outW, &stderr)
		_ = outW.Close()
		done <- code
	}()
	editor := &acpEditor{}
	conn := acp.NewClientSideConnection(editor, inW, outR)
	conn.SetLogger(slog.New(slog.DiscardHandler))
	ctx, cancel := context.WithTimeout(context.Background(), testwait.Limit)
	defer cancel()
	if _, err := conn.Initialize(ctx, acp.InitializeRequest{ProtocolVersion: acp.ProtocolVersionNumber}); err != nil {
		t.Fatal(err)
	}
	sess, err := conn.NewSession(ctx, acp.NewSessionRequest{Cwd: ws, McpServers: []acp.McpServer{}})
	if err != nil {
		t.Fatal(err)
	}
	if res, err := conn.Prompt(ctx, acp.PromptRequest{SessionId: sess.SessionId, Prompt: []acp.ContentBlock{acp.TextBlock("greet the world")}}); err != nil || res.StopReason != acp.StopReasonEndTurn {
		t.Fatalf("prompt: %v %v", res.StopReason, err)
	}
	_ = inW.Close()
	select {
	case code := <-done:
		if code != 0 {
			t.Fatalf("agentls acp exited %d: %s", code, stderr.String())
		}
	case <-time.After(testwait.Limit):
		t.Fatal("agentls acp did not end after its input closed")
	}
	_ = outR.Close()
	<-conn.Done()

	editor.mu.Lock()
	perms := editor.perms
	editor.mu.Unlock()
	if len(perms) != 2 || readFile(t, a) != "# title\nhello, world\nlast\n" || readFile(t, filepath.Join(ws, "NEW.md")) != "new\n" {
		t.Fatalf("%d permissions; a.txt %q", len(perms), readFile(t, a))
	}
	meta, _ := perms[0].Meta["agentls"].(map[string]any)
	runID, _ := meta["runId"].(string)
	if runID == "" {
		t.Fatalf("no run id in %v", perms[0].Meta)
	}

	writeFile(t, a, "# mine\nhello, world\nlast\n", 0o644) // the user's edit, another line
	code, out, errOut := runRevert(t, "--dir", ws, runID)
	if code != 0 || !strings.Contains(out, "a.txt: reverted") || !strings.Contains(out, "NEW.md: deleted") {
		t.Fatalf("revert: %d\n%s\n%s", code, out, errOut)
	}
	if got := readFile(t, a); got != "# mine\nhello\nlast\n" {
		t.Fatalf("a.txt after revert %q", got)
	}
	if _, err := os.Stat(filepath.Join(ws, "NEW.md")); !os.IsNotExist(err) {
		t.Fatalf("NEW.md survived the revert: %v", err)
	}
	// The run's transcript holds each file's fate, as over LSP: accepted
	// (allowed over ACP), then reverted.
	tpath, err := agent.FindTranscript("", runID)
	if err != nil {
		t.Fatalf("the ACP run's transcript: %v", err)
	}
	tr := readFile(t, tpath)
	for _, want := range []string{`"fate":"accepted","hunks":1,"kind":"fate","path":"` + a, `"fate":"accepted","hunks":1,"kind":"fate","path":"` + filepath.Join(ws, "NEW.md"),
		`"fate":"reverted","hunks":1,"kind":"fate","path":"` + a, `"fate":"reverted","hunks":1,"kind":"fate","path":"` + filepath.Join(ws, "NEW.md")} {
		if strings.Count(tr, want) != 1 {
			t.Errorf("transcript has %d of %s", strings.Count(tr, want), want)
		}
	}
	if code, _, errOut = runRevert(t, "--dir", ws, runID); code != 0 || !strings.Contains(errOut, "already reverted") {
		t.Fatalf("second revert: %d %s", code, errOut)
	}
	if code, _, errOut := runCLI(t, "--dir", ws, "--session", string(sess.SessionId), "what changed?"); code != 0 {
		t.Fatalf("follow-up: %d %s", code, errOut)
	}
	var last llmtest.RecordedRequest // the last chat (`agentls acp` also asks GET /models)
	for _, r := range srv.Requests() {
		if r.Path == "/v1/chat/completions" {
			last = r
		}
	}
	if !last.Contains("The user reverted the changes of run "+runID) || !last.Contains("NEW.md: deleted") {
		t.Fatal("the session's next run was not told about the revert")
	}
}
