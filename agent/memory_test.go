package agent

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentls/agentls/agent/llm"
)

// A model's remember call stages a proposal on the project's AGENTS.md
// holding the note, writes nothing, and (once the file holds it, as after
// an accept) the next run's system prompt carries it.
func TestRememberStagesAProposalOnAgentsMD(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	dir := t.TempDir()
	agents := filepath.Join(dir, "AGENTS.md")
	mustWrite(t, agents, "# Rules\n\n- Run go vet.\n")
	m := script(
		calls(call("c1", "remember", `{"note":"Wrap errors\nwith %w."}`)),
		calls(call("c2", "remember", `{"note":"- wrap errors with %W."}`)),
		func(d func(llm.Delta)) llm.Response { return reply(d, "proposed") },
	)
	opts := agentOpts(t, m, &eventLog{}, dir)
	out := Run(context.Background(), opts)
	if out.Err != nil {
		t.Fatal(out.Err)
	}
	st, ok := opts.Env.Changes.Get(agents)
	want := "# Rules\n\n- Run go vet.\n- Wrap errors with %w.\n"
	if !ok || st.Text != want {
		t.Fatalf("staged AGENTS.md = %q, want %q", st.Text, want)
	}
	if b, _ := os.ReadFile(agents); string(b) != "# Rules\n\n- Run go vet.\n" {
		t.Fatalf("AGENTS.md written before accept: %q", b)
	}
	reqs := m.reqs()
	if res := lastToolResult(reqs[1]); !strings.Contains(res, "- Wrap errors with %w.") || !strings.Contains(res, "Proposed a rule for AGENTS.md") {
		t.Fatalf("remember's result shows no diff:\n%s", res)
	}
	if res := lastToolResult(reqs[2]); !strings.Contains(res, "already holds this rule") {
		t.Fatalf("a duplicate was not refused:\n%s", res)
	}
	if strings.Contains(reqs[0].Messages[0].Content, "Wrap errors") {
		t.Fatal("the note reached the prompt before accept")
	}

	mustWrite(t, agents, st.Text) // what accept writes
	m2 := script(func(d func(llm.Delta)) llm.Response { return reply(d, "ok") })
	Run(context.Background(), agentOpts(t, m2, &eventLog{}, dir))
	if sys := m2.reqs()[0].Messages[0].Content; !strings.Contains(sys, "- Wrap errors with %w.") {
		t.Fatalf("the next run's system prompt lacks the note:\n%s", sys)
	}
}

// The user's own AGENTS.md is in every workspace's prompt; the root file
// is there from the first request; a nested AGENTS.md reaches the model
// with the first read of a file below it, once per run.
func TestRulesFromEveryLevel(t *testing.T) {
	cfg := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", cfg)
	mustWrite(t, filepath.Join(cfg, "agentls", "AGENTS.md"), "- Answer in English.\n")
	dir := t.TempDir()
	mustWrite(t, filepath.Join(dir, "AGENTS.md"), "- Root rule.\n")
	mustWrite(t, filepath.Join(dir, "svc", "api", "AGENTS.md"), "- Handlers return JSON errors.\n")
	mustWrite(t, filepath.Join(dir, "svc", "api", "handler.go"), "package api\n")
	mustWrite(t, filepath.Join(dir, "svc", "api", "routes.go"), "package api\n")
	mustWrite(t, filepath.Join(dir, "other", "x.go"), "package other\n")
	m := script(
		calls(call("c1", "read_file", `{"path":"other/x.go"}`)),
		calls(call("c2", "read_file", `{"path":"svc/api/handler.go"}`)),
		calls(call("c3", "read_file", `{"path":"svc/api/routes.go"}`)),
		func(d func(llm.Delta)) llm.Response { return reply(d, "done") },
	)
	Run(context.Background(), agentOpts(t, m, &eventLog{}, dir))
	reqs := m.reqs()
	sys := reqs[0].Messages[0].Content
	for _, w := range []string{"<AGENTS.md>\n- Root rule.", "<user AGENTS.md>\n- Answer in English."} {
		if !strings.Contains(sys, w) {
			t.Fatalf("first system prompt lacks %q:\n%s", w, sys)
		}
	}
	if strings.Contains(sys, "JSON errors") {
		t.Fatal("the nested rules are in the system prompt")
	}
	if res := lastToolResult(reqs[1]); strings.Contains(res, "Rules for") {
		t.Fatalf("a file without nested rules got some:\n%s", res)
	}
	if res := lastToolResult(reqs[2]); !strings.Contains(res, "Rules for svc/api/ (from svc/api/AGENTS.md") || !strings.Contains(res, "- Handlers return JSON errors.") {
		t.Fatalf("reading svc/api/handler.go did not bring svc/api/AGENTS.md:\n%s", res)
	}
	if res := lastToolResult(reqs[3]); strings.Contains(res, "JSON errors") {
		t.Fatalf("the nested rules were shown twice:\n%s", res)
	}
	if reqs[3].Messages[0].Content != sys {
		t.Fatal("the system prompt changed within the run")
	}
}

func lastToolResult(req llm.Request) string {
	for i := len(req.Messages) - 1; i >= 0; i-- {
		if req.Messages[i].Role == "tool" {
			return req.Messages[i].Content
		}
	}
	return ""
}
