package lspserver_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/agent/llm/llmtest"
	"github.com/agentls/agentls/lspserver"
	"github.com/agentls/agentls/lspserver/lsptest"
)

// TestBinaryRedactsCredentialsInBaseURL: a base URL carrying credentials
// (user info and an api-key query parameter) fails a run; the URL shows up
// in what the user sees, but the credentials reach none of $/progress,
// window/showMessage, window/logMessage, agentls/runEvent, the log file or
// the transcript.
func TestBinaryRedactsCredentialsInBaseURL(t *testing.T) {
	srv := llmtest.New(t, llmtest.Always(llmtest.Text("never")), llmtest.WithAPIKey("another-key-0123456789"))
	state := t.TempDir()
	t.Setenv("XDG_STATE_HOME", state)
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	t.Setenv("OPENAI_BASE_URL", "")
	t.Setenv("AGENTLS_MODEL", "")
	t.Setenv("OPENAI_API_KEY", "sk-redact-test-0123456789abcdef")
	secrets := []string{"alice", "pa55word", "s3cretq", "sk-redact-test"}
	base := strings.Replace(srv.URL(), "http://", "http://alice:pa55word@", 1) + "?api-key=s3cretq"

	bin := lsptest.BuildBinary(t)
	logFile := filepath.Join(t.TempDir(), "agentls.log")
	b := lsptest.StartBinary(t, bin, "--log-file", logFile, "--log-level", "debug")
	ctx := lsptest.Context(t)
	if _, err := b.Initialize(ctx, lsptest.InitOptions{Folders: []string{t.TempDir()},
		InitializationOptions: map[string]any{"model": map[string]any{"baseURL": base, "name": "test-model"}}}); err != nil {
		t.Fatal(err)
	}
	var res lspserver.RunResult
	if err := b.Call(ctx, protocol.MethodWorkspaceExecuteCommand, command(lspserver.CommandRun, lspserver.RunArgs{Prompt: "hi"}), &res); err != nil {
		t.Fatal(err)
	}
	failed, err := b.Await(ctx, lspserver.MethodRunEvent, func(m lsptest.Message) bool {
		var e lspserver.RunEvent
		return json.Unmarshal(m.Params, &e) == nil && e.RunID == res.RunID && e.Kind == "failed"
	})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(failed.Params), "[REDACTED]@127.0.0.1") {
		t.Fatalf("the failure does not show the (redacted) URL: %s", failed.Params)
	}
	if _, err := b.Await(ctx, protocol.MethodWindowShowMessage, nil); err != nil {
		t.Fatal(err)
	}
	if err := b.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	if err := b.Exit(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Wait(ctx); err != nil {
		t.Fatal(err)
	}

	shown := map[string]bool{}
	for _, m := range b.Received() {
		shown[m.Method] = true
		for _, s := range secrets {
			if strings.Contains(string(m.Raw), s) {
				t.Errorf("%s carries %q: %s", m.Method, s, m.Raw)
			}
		}
	}
	for _, method := range []string{"$/progress", protocol.MethodWindowShowMessage, lspserver.MethodRunEvent} {
		if !shown[method] {
			t.Errorf("no %s seen; the test would not check it", method)
		}
	}
	logData, err := os.ReadFile(logFile)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(logData), "[REDACTED]") {
		t.Errorf("the log file does not mention the failure's URL:\n%s", logData)
	}
	transcripts, _ := filepath.Glob(filepath.Join(state, "agentls", "runs", "*.jsonl"))
	if len(transcripts) != 1 {
		t.Fatalf("transcripts %v", transcripts)
	}
	tr, err := os.ReadFile(transcripts[0])
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range secrets {
		if strings.Contains(string(logData), s) {
			t.Errorf("log file carries %q:\n%s", s, logData)
		}
		if strings.Contains(string(tr), s) {
			t.Errorf("transcript carries %q:\n%s", s, tr)
		}
	}
}
