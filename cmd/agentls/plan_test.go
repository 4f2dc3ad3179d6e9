package main

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/agentls/agentls/agent/llm/llmtest"
)

// agentls run --plan offers only read-only tools and todo_write, changes
// nothing, and prints the command that carries the plan out; running it
// continues the session, and the edit arrives as a diff.
func TestRunPlanThenCarryOut(t *testing.T) {
	srv := llmtest.New(t, func(req *llmtest.ChatRequest) llmtest.Reply {
		if !strings.Contains(req.LastUser(), "Carry out your plan.") {
			if req.HasTool("edit_file") || req.HasTool("write_file") || !req.HasTool("todo_write") {
				return llmtest.Text("WRONG TOOLS " + strings.Join(req.ToolNames(), ","))
			}
			if !req.HasToolResult("r1") {
				return llmtest.ToolCalls(llmtest.Call{ID: "r1", Name: "read_file", Args: `{"path":"a.txt"}`})
			}
			return llmtest.Text("PLAN: replace old with new in a.txt")
		}
		if !req.Contains("PLAN: replace old with new") {
			return llmtest.Text("NO PLAN IN CONTEXT")
		}
		switch {
		case !req.HasToolResult("r2"):
			return llmtest.ToolCalls(llmtest.Call{ID: "r2", Name: "read_file", Args: `{"path":"a.txt"}`})
		case !req.HasToolResult("e1"):
			return llmtest.ToolCalls(llmtest.Call{ID: "e1", Name: "edit_file", Args: `{"path":"a.txt","old_string":"old","new_string":"new"}`})
		}
		return llmtest.Text("Done.")
	})
	cliEnv(t, srv)
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "a.txt"), "old name\n", 0o644)

	if code, _, stderr := runCLI(t, "--plan", "--apply", "x"); code != 2 || !strings.Contains(stderr, "--plan changes nothing") {
		t.Fatalf("--plan --apply: %d\n%s", code, stderr)
	}
	code, stdout, stderr := runCLI(t, "--dir", dir, "--plan", "Rename old to new")
	if code != 0 || !strings.Contains(stdout, "PLAN: replace old with new in a.txt") || strings.Contains(stdout, "---") {
		t.Fatalf("plan run: %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	m := regexp.MustCompile(`agentls run --dir (\S+) --session ([0-9a-f]+) "Carry out your plan."`).FindStringSubmatch(stderr)
	if m == nil {
		t.Fatalf("no carry-out command on stderr:\n%s", stderr)
	}
	code, stdout, stderr = runCLI(t, "--dir", dir, "--session", m[2], "Carry out your plan.")
	if code != 0 || !strings.Contains(stdout, "-old name\n+new name") {
		t.Fatalf("carry-out run: %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
}
