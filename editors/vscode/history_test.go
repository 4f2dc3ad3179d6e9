package vscode_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentls/agentls/agent/llm/llmtest"
)

const otherGo = "package main\n\nfunc bye() string {\n\treturn \"bye\"\n}\n"

// historyResult is what e2e/e2e.js records in its "history" scenario.
type historyResult struct {
	OK       bool     `json:"ok"`
	Error    string   `json:"error"`
	Steps    []string `json:"steps"`
	FailShot string   `json:"failShot"`

	ModelTitle        string   `json:"modelTitle"`
	ModelItems        []string `json:"modelItems"`
	EndToasts         []toast  `json:"endToasts"`
	StatusBar         []string `json:"statusBar"`
	AcceptToasts      []toast  `json:"acceptToasts"`
	AcceptedText      string   `json:"acceptedText"`
	RevertToasts      []toast  `json:"revertToasts"`
	RevertedText      string   `json:"revertedText"`
	UndoDialog        string   `json:"undoDialog"`
	UndoneText        string   `json:"undoneText"`
	OtherUndoneText   string   `json:"otherUndoneText"`
	OtherBeforeUndo   string   `json:"otherBeforeOwnUndo"`
	FollowupStatusBar []string `json:"followupStatusBar"`
	RunItems          []string `json:"runItems"`
	RunActions        []string `json:"runActions"`
	ReportText        string   `json:"reportText"`
	ReportTabs        []string `json:"reportTabs"`
}

type toast struct {
	Message string   `json:"message"`
	Buttons []string `json:"buttons"`
}

// twoFileModel reads greet.go and other.go, edits both, answers; asked
// what happened, it answers at once. Every call reports 1,000 prompt
// tokens (400 cached) and 50 completion tokens.
func twoFileModel(req *llmtest.ChatRequest) llmtest.Reply {
	reply := func() llmtest.Reply {
		switch {
		case strings.Contains(req.LastUser(), "what happened to my files?"):
			return llmtest.Text("You reverted my changes.")
		case !req.HasToolResult("r1"):
			return llmtest.ToolCalls(llmtest.Call{ID: "r1", Name: "read_file", Args: `{"path":"greet.go"}`},
				llmtest.Call{ID: "r2", Name: "read_file", Args: `{"path":"other.go"}`})
		case !req.HasToolResult("e1"):
			return llmtest.ToolCalls(
				llmtest.Call{ID: "e1", Name: "edit_file", Args: `{"path":"greet.go","old_string":"\"hello\"","new_string":"\"HELLO\""}`},
				llmtest.Call{ID: "e2", Name: "edit_file", Args: `{"path":"other.go","old_string":"\"bye\"","new_string":"\"BYE\""}`})
		}
		return llmtest.Text("Shouted in both files.")
	}()
	return reply.CachedUsage(1000, 400, 50)
}

// TestVSCodeRevertUsageModel is issue 23's "done when" in VS Code
// (code-server, headless Chromium): the model picked in the extension's
// picker (from agentls/models) runs the run and its follow-up (the
// follow-up does not send it: the session keeps it); a two-file run
// accepted from its notification and reverted from the next one restores
// both files, and VS Code's undo brings the accepted text back in both;
// the status bar shows the run's and the session's tokens and cost
// (model.pricing); the run history opens the run's report in a webview.
func TestVSCodeRevertUsageModel(t *testing.T) {
	tl := findTools(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	tmp := t.TempDir()
	model := llmtest.New(t, twoFileModel, llmtest.WithModels(`{"object":"list","data":[{"id":"endpoint-model"}]}`))
	ws := filepath.Join(tmp, "ws")
	if err := os.MkdirAll(filepath.Join(ws, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	for name, content := range map[string]string{"greet.go": greetGo, "other.go": otherGo} {
		if err := os.WriteFile(filepath.Join(ws, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cs := startCodeServer(t, ctx, tl, tmp, ws, map[string]any{
		"agentls.model.baseURL": model.URL(),
		"agentls.model.name":    "test-model",
		"agentls.model.pricing": map[string]float64{"inputPerMTok": 2, "outputPerMTok": 8, "cachedInputPerMTok": 0.5},
		"agentls.model.choices": []string{"picked-model"},
		"agentls.mode":          "preview",
	})
	out := filepath.Join(tmp, "result.json")
	driver := exec.CommandContext(ctx, tl.node, filepath.Join("e2e", "e2e.js"))
	driver.Env = append(os.Environ(), "NODE_PATH="+tl.nodePath, "E2E_URL="+cs.url, "E2E_FOLDER="+ws,
		"E2E_OUT="+out, "E2E_SHOTS="+cs.shots, "CHROMIUM="+tl.chromium, "E2E_SCENARIO=history")
	driverOut, driverErr := driver.CombinedOutput()
	logs := func() string {
		serverText, _ := os.ReadFile(cs.serverLog)
		return fmt.Sprintf("driver: %v\n%s\ncode-server:\n%s\nserver log:\n%s", driverErr, driverOut, cs.out.String(), serverText)
	}
	// A check that fails with t.Errorf shows the logs too: a flake
	// under load is diagnosed from the run that had it.
	defer func() {
		if t.Failed() {
			t.Logf("%s", logs())
		}
	}()
	raw, err := os.ReadFile(out)
	if err != nil {
		t.Fatalf("no result from e2e.js: %v\n%s", err, logs())
	}
	var r historyResult
	if err := json.Unmarshal(raw, &r); err != nil {
		t.Fatalf("bad result %s: %v", raw, err)
	}
	if !r.OK {
		t.Fatalf("e2e.js failed after steps %v (screenshot %s): %s\n%s", r.Steps, r.FailShot, r.Error, logs())
	}
	t.Logf("result: %s", raw)

	// The picker listed the configured model, model.choices and the
	// endpoint's; the pick ran the run and the follow-up.
	if !strings.Contains(r.ModelTitle, "now: test-model") || !containsPrefix(r.ModelItems, "test-model") ||
		!containsPrefix(r.ModelItems, "picked-model") || !containsPrefix(r.ModelItems, "endpoint-model") {
		t.Errorf("model picker: title %q, items %q", r.ModelTitle, r.ModelItems)
	}
	reqs := model.Requests()
	if len(reqs) != 4 {
		t.Fatalf("%d model requests, want 3 for the run and 1 for the follow-up", len(reqs))
	}
	for i, req := range reqs {
		if req.Model != "picked-model" {
			t.Errorf("model request %d used %q, want picked-model", i+1, req.Model)
		}
	}
	if last := reqs[3]; !last.Contains("The user reverted the changes of run") {
		t.Error("the follow-up was not told about the revert")
	}

	// The end-of-run notification offers the review and the report.
	var end bool
	for _, ts := range r.EndToasts {
		if strings.Contains(ts.Message, "changes proposed in greet.go, other.go") && strings.Join(ts.Buttons, "|") == "Review|Accept All|Follow Up|Report" {
			end = true
		}
	}
	if !end {
		t.Errorf("end-of-run notifications = %+v", r.EndToasts)
	}
	// Tokens and cost: 3 calls of 1,000 in (400 cached) / 50 out at
	// (600×2 + 400×0.5 + 50×8)/1e6 = $0.0018 each.
	if !containsSub(r.StatusBar, "3.1k tok · $0.0054") || !containsSub(r.StatusBar, "picked-model") {
		t.Errorf("status bar after the run = %q, want its tokens and cost and the picked model", r.StatusBar)
	}
	if !containsSub(r.FollowupStatusBar, "1.1k tok · $0.0018 · session 4.2k tok · $0.0072") {
		t.Errorf("status bar after the follow-up = %q, want the run's and the session's tokens and cost", r.FollowupStatusBar)
	}

	// Accept, revert, undo.
	var accepted, reverted bool
	for _, ts := range r.AcceptToasts {
		if strings.Contains(ts.Message, "accepted the changes of run") && strings.Contains(ts.Message, "(greet.go, other.go)") &&
			strings.Join(ts.Buttons, "|") == "Revert Run|Open Report" {
			accepted = true
		}
	}
	for _, ts := range r.RevertToasts {
		if strings.Contains(ts.Message, "reverted run") && strings.Contains(ts.Message, ": 2 files") {
			reverted = true
		}
	}
	if !accepted || !reverted {
		t.Errorf("notifications after accept %+v, after revert %+v", r.AcceptToasts, r.RevertToasts)
	}
	if !strings.Contains(r.AcceptedText, `return "HELLO"`) {
		t.Errorf("greet.go after accept:\n%s", r.AcceptedText)
	}
	if !strings.Contains(r.RevertedText, `return "hello"`) || strings.Contains(r.RevertedText, "HELLO") {
		t.Errorf("greet.go after revert:\n%s", r.RevertedText)
	}
	if !strings.Contains(r.UndoneText, `return "HELLO"`) || !strings.Contains(r.OtherUndoneText, `return "BYE"`) {
		t.Errorf("after undo: greet.go\n%s\nother.go\n%s", r.UndoneText, r.OtherUndoneText)
	}
	// One undo in greet.go took the whole revert back: it was one edit.
	if !strings.Contains(r.OtherBeforeUndo, `return "BYE"`) {
		t.Errorf("other.go after the undo in greet.go (the revert is one workspace edit):\n%s", r.OtherBeforeUndo)
	}
	for name, content := range map[string]string{"greet.go": greetGo, "other.go": otherGo} {
		if disk, _ := os.ReadFile(filepath.Join(ws, name)); string(disk) != content {
			t.Errorf("%s changed on disk (the server must not write in editor mode):\n%s", name, disk)
		}
	}

	// The run history and the report.
	if len(r.RunItems) < 3 || !strings.Contains(r.RunItems[0], "what happened to my files?") || !strings.Contains(r.RunItems[0], "1.1k tok · $0.0018 · picked-model") ||
		!strings.Contains(r.RunItems[1], "shout in both files") || !strings.Contains(r.RunItems[1], "3.1k tok · $0.0054 · picked-model") ||
		!containsSub(r.RunItems, "4,200 tokens · $0.0072 over 2 runs · picked-model") {
		t.Errorf("run history = %q", r.RunItems)
	}
	if strings.Join(r.RunActions, "|") != "Revert Run|Open Report|Show Log" {
		t.Errorf("run actions = %q", r.RunActions)
	}
	for _, want := range []string{"shout in both files", "greet.go", "other.go", "reverted"} {
		if !strings.Contains(r.ReportText, want) {
			t.Errorf("the report webview lacks %q:\n%s", want, r.ReportText)
		}
	}
}
