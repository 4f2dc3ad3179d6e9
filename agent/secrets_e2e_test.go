package agent

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/agentls/agentls/agent/config"
	"github.com/agentls/agentls/agent/llm/llmtest"
	"github.com/agentls/agentls/internal/workspace"
	"github.com/agentls/agentls/tools/lang"
	"github.com/agentls/agentls/tools/lang/langtest"
)

// TestSecretsNeverReachTheModel: a scripted model (real SSE, real
// go-openai) tries every path to the secrets of a workspace served by
// gopls: read_file of .env, .netrc and .git/config (a token in the
// remote's URL), grep inside .git, a rename whose edits touch a file the
// user's secretPatterns hide, references into it. Every request body the
// model received is free of the secrets, and each tool answered (refused
// or masked), so the test is not passing on calls that never ran.
func TestSecretsNeverReachTheModel(t *testing.T) {
	noLeaksAfterCleanup(t)
	const tok = "ghp_0123456789abcdefghijABCDEFGHIJ012345"
	const envSecret = "sk-live-envvalue-0123456789abcdef"
	root := langWorkspace(t, map[string]string{
		"go.mod":      "module example.com/m\n\ngo 1.22\n",
		"util.go":     "package main\n\n// Add adds.\nfunc Add(a, b int) int { return a + b }\n",
		"main.go":     "package main\n\nimport \"fmt\"\n\nfunc main() {\n\tfmt.Println(Add(1, 2))\n}\n",
		"secrets.go":  "package main\n\nconst apiToken = \"" + tok + "\"\n\nvar _ = Add(3, 4)\n",
		".env":        "API_KEY=" + envSecret + "\n",
		".netrc":      "machine github.com login octo password " + tok + "\n",
		".git/config": "[remote \"origin\"]\n\turl = https://octo:" + tok + "@github.com/octo/repo.git\n",
	})
	calls := []llmtest.Call{
		{ID: "env", Name: "read_file", Args: `{"path":".env"}`},
		{ID: "netrc", Name: "read_file", Args: `{"path":".netrc"}`},
		{ID: "gitconfig", Name: "read_file", Args: `{"path":".git/config"}`},
		{ID: "grep", Name: "grep", Args: `{"pattern":"url|ghp_|password|API_KEY","path":"."}`},
		{ID: "grepgit", Name: "grep", Args: `{"pattern":"url|ghp_","path":".git"}`},
		{ID: "rename", Name: "rename", Args: `{"path":"main.go","line":6,"symbol":"Add","new_name":"Sum"}`},
		{ID: "refs", Name: "references", Args: `{"path":"util.go","line":4,"symbol":"Add"}`},
	}
	results := map[string]string{}
	m := lang.NewManager(lang.Options{Servers: lang.Resolve(nil, false, langtest.LookPath(t, "gopls")), Wait: 30 * time.Second})
	defer m.Close()
	srv := llmtest.New(t, func(req *llmtest.ChatRequest) llmtest.Reply {
		for _, c := range calls {
			if !req.HasToolResult(c.ID) {
				return llmtest.ToolCalls(c)
			}
		}
		for _, c := range calls {
			results[c.ID], _ = req.ToolResult(c.ID)
		}
		return llmtest.Text("done")
	})
	cfg := config.Defaults()
	cfg.Tools.SecretPatterns = []string{"secrets.go"}
	run, err := NewSession("").Prepare(context.Background(), Setup{
		Config:        cfg,
		View:          workspace.New(workspace.Options{Folders: []string{root}}),
		TranscriptDir: NoTranscript,
		Model:         newClient(t, srv),
		Lang:          m,
	}, RunRequest{Prompt: "find the credentials", OnEvent: (&eventLog{}).on})
	if err != nil {
		t.Fatal(err)
	}
	out := run.Execute(context.Background())
	if out.Status != StatusFinished || out.Answer != "done" {
		t.Fatalf("outcome %v %q", out.Status, out.Answer)
	}
	reqs := srv.Requests()
	if len(reqs) != len(calls)+1 {
		t.Fatalf("%d requests, want %d", len(reqs), len(calls)+1)
	}
	for i, r := range reqs {
		body := string(r.Raw)
		for _, s := range []string{tok, envSecret, "0123456789abcdefghij"} {
			if strings.Contains(body, s) {
				t.Fatalf("request %d carries the secret %q:\n%s", i, s, body)
			}
		}
	}
	want := map[string]string{
		"env":       ".env looks like a secret",
		"netrc":     ".netrc looks like a secret",
		"gitconfig": "url = https://[REDACTED]@github.com/octo/repo.git",
		"grep":      "secret-looking",
		"grepgit":   "config:2:\turl = https://[REDACTED]@github.com/octo/repo.git",
		"rename":    "secrets.go, which looks like a secret",
		"refs":      "secrets.go\n  5\n",
	}
	for id, w := range want {
		if !strings.Contains(results[id], w) {
			t.Fatalf("%s result lacks %q:\n%s", id, w, results[id])
		}
	}
	if files := run.Env().Changes.Files(); len(files) != 0 {
		t.Fatalf("staged %v", files)
	}
}
