package acpserver_test

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	acp "github.com/coder/acp-go-sdk"

	"github.com/agentls/agentls/acpserver/acptest"
	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/agent/llm/llmtest"
	"github.com/agentls/agentls/internal/scratch"
)

// Checks over ACP: each result is a tool call of kind execute, failed
// with the output, then completed once the model fixed it.
func TestChecksOverACP(t *testing.T) {
	h := acptest.Start(t, func(r *llmtest.ChatRequest) llmtest.Reply {
		switch {
		case r.Turns() == 0:
			return acptest.Call("w1", "write_file", `{"path":"state.txt","content":"broken\n"}`)
		case r.Contains(`check "state" failed`) && !r.HasToolResult("w2"):
			return acptest.Call("w2", "edit_file", `{"path":"state.txt","old_string":"broken","new_string":"fixed"}`)
		}
		return llmtest.Text("wrote state")
	}, acptest.Options{})
	userConfig(t, h.Env, `{"checks": [{"name": "state", "command": "grep -q fixed state.txt || { echo not fixed yet; exit 1; }"}]}`)
	if r := h.MustPrompt(h.NewSession(), "write state"); r != acp.StopReasonEndTurn {
		t.Fatalf("stop reason %q", r)
	}
	us, _ := h.Client.Snapshot()
	var checks []*acp.SessionUpdateToolCall
	for _, c := range acptest.ToolCalls(us) {
		if strings.HasPrefix(c.Title, "Check ") {
			checks = append(checks, c)
		}
	}
	if len(checks) != 2 || checks[0].Title != "Check state" || checks[0].Kind != acp.ToolKindExecute {
		t.Fatalf("check tool calls %+v", checks)
	}
	var results []string
	for _, c := range checks {
		ups := acptest.ToolUpdates(us, c.ToolCallId)
		if len(ups) != 1 || ups[0].Status == nil || len(ups[0].Content) != 1 || ups[0].Content[0].Content == nil || ups[0].Content[0].Content.Content.Text == nil {
			t.Fatalf("updates of %s: %+v", c.ToolCallId, ups)
		}
		results = append(results, string(*ups[0].Status)+": "+ups[0].Content[0].Content.Content.Text.Text)
	}
	if !strings.HasPrefix(results[0], "failed: check state failed (exit code 1)") || !strings.Contains(results[0], "not fixed yet") ||
		!strings.HasPrefix(results[1], "completed: check state passed") {
		t.Fatalf("results %q", results)
	}
	scratch.WaitRemovals() // views are deleted in the background
	if entries, _ := os.ReadDir(filepath.Join(h.Env["HOME"], "views")); len(entries) != 0 {
		t.Fatalf("proposal views left: %v", entries)
	}
}

// A check's tool call starts when the check starts, in progress, and is
// completed on the same call: a suite that runs for minutes shows as
// running, not as nothing. The check passes only if the client saw it
// start while it ran.
func TestCheckShownWhileRunning(t *testing.T) {
	h := acptest.Start(t, llmtest.Sequence(
		acptest.Call("w1", "write_file", `{"path":"state.txt","content":"x\n"}`),
		llmtest.Text("wrote state"),
	), acptest.Options{})
	marker := filepath.Join(t.TempDir(), "seen")
	userConfig(t, h.Env, `{"checks": [{"name": "slow", "command": "for i in $(seq 200); do [ -f '`+marker+`' ] && exit 0; sleep 0.05; done; echo never shown; exit 1"}]}`)
	id := h.NewSession()
	done := make(chan acp.StopReason, 1)
	go func() {
		r, _ := h.Prompt(id, "write state")
		done <- r
	}()
	h.Client.Await(t, "the check's tool call", func(c acptest.Recorded) bool {
		for _, u := range c.Updates {
			if tc := u.Update.ToolCall; tc != nil && tc.Title == "Check slow" {
				return true
			}
		}
		return false
	})
	if err := os.WriteFile(marker, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if r := <-done; r != acp.StopReasonEndTurn {
		t.Fatalf("stop reason %q", r)
	}
	us, _ := h.Client.Snapshot()
	var checks []*acp.SessionUpdateToolCall
	for _, c := range acptest.ToolCalls(us) {
		if strings.HasPrefix(c.Title, "Check ") {
			checks = append(checks, c)
		}
	}
	if len(checks) != 1 || checks[0].Status != acp.ToolCallStatusInProgress {
		t.Fatalf("check tool calls %+v", checks)
	}
	ups := acptest.ToolUpdates(us, checks[0].ToolCallId)
	if len(ups) != 1 || ups[0].Status == nil || *ups[0].Status != acp.ToolCallStatusCompleted ||
		!strings.HasPrefix(ups[0].Content[0].Content.Content.Text.Text, "check slow passed in ") {
		t.Fatalf("updates of the check: %+v", ups)
	}
}

// mulScript edits calc.go to a wrong product first and, once the check
// "test" failed on it, fixes it: the scene of issue 31 (a `go test` check
// and `return a*b + 1`), with a shell check standing in for go test.
func mulScript(r *llmtest.ChatRequest) llmtest.Reply {
	switch {
	case !r.HasToolResult("r1"):
		return acptest.Call("r1", "read_file", `{"path":"calc.go"}`)
	case !r.HasToolResult("e1"):
		return acptest.Call("e1", "edit_file", `{"path":"calc.go","old_string":"return a + b","new_string":"return a*b + 1"}`)
	case r.Contains(`check "test" failed`) && !r.HasToolResult("e2"):
		return acptest.Call("e2", "edit_file", `{"path":"calc.go","old_string":"return a*b + 1","new_string":"return a*b"}`)
	}
	return llmtest.Text("Mul multiplies now.")
}

const (
	calcBefore = "package calc\n\nfunc Mul(a, b int) int {\n\treturn a + b\n}\n"
	calcAfter  = "package calc\n\nfunc Mul(a, b int) int {\n\treturn a*b\n}\n"
	// mulCheck passes only on the right product, in the proposal view.
	mulCheck = `{"checks": [{"name": "test", "command": "grep -q 'return a\\*b$' calc.go || { echo 'Mul(2, 3) = 7, want 6'; exit 1; }"}]}`
)

// With checks configured, a turn's changes are asked about only once the
// checks passed: the first, failing edit is never put to the user nor
// written; the fixed file is asked about once, with its final diff and the
// check's result, and written only after the allow.
func TestCheckedChangeAskedOnceAtTheEnd(t *testing.T) {
	h := acptest.Start(t, mulScript, acptest.Options{})
	userConfig(t, h.Env, mulCheck)
	path := h.Write("calc.go", calcBefore)
	var onDisk []string
	h.Client.OnPermission = func(p acp.RequestPermissionRequest) acp.RequestPermissionResponse {
		onDisk = append(onDisk, h.Read("calc.go"))
		return acptest.Allow(acptest.OptionID(p, acp.PermissionOptionKindAllowOnce))
	}
	if r := h.MustPrompt(h.NewSession(), "make Mul multiply"); r != acp.StopReasonEndTurn {
		t.Fatalf("stop reason %q", r)
	}
	us, perms := h.Client.Snapshot()
	if len(perms) != 1 {
		t.Fatalf("%d permission requests, want one for the fixed file", len(perms))
	}
	if onDisk[0] != calcBefore {
		t.Fatalf("calc.go was written before the allow: %q", onDisk[0])
	}
	tc := perms[0].ToolCall
	if tc.Title == nil || *tc.Title != "Edit calc.go" {
		t.Fatalf("title %v", tc.Title)
	}
	var diff *acp.ToolCallContentDiff
	for _, c := range tc.Content {
		if c.Diff != nil {
			diff = c.Diff
		}
	}
	if diff == nil || diff.Path != path || diff.NewText != calcAfter || diff.OldText == nil || *diff.OldText != calcBefore {
		t.Fatalf("the permission's diff is not the final change: %+v", diff)
	}
	if text := acptest.ContentText(tc.Content); !strings.Contains(text, "✓ check test passed") {
		t.Fatalf("the permission does not show the check's result: %q", text)
	}
	if got := h.Read("calc.go"); got != calcAfter {
		t.Fatalf("calc.go after the allow: %q", got)
	}
	// The failing check was shown and went back to the model; the edit's
	// tool calls say the change waits for the end of the turn.
	if texts := acptest.UpdateTexts(us); !strings.Contains(texts, "check test failed (exit code 1)") ||
		!strings.Contains(texts, "calc.go: not written yet; asked about at the end of the turn") {
		t.Fatalf("updates:\n%s", texts)
	}
	if !strings.Contains(acptest.AgentText(us), "Mul multiplies now.") {
		t.Fatalf("agent text %q", acptest.AgentText(us))
	}
}

// A change whose check still fails when the run ends is neither asked
// about nor written: the turn's last message says so, the change stays
// pending in the saved session, and the next prompt does not ask about
// it either.
func TestFailingCheckNeverAsked(t *testing.T) {
	script := func(r *llmtest.ChatRequest) llmtest.Reply {
		if strings.Contains(r.LastUser(), "anything else") {
			return llmtest.Text("nothing else")
		}
		if !r.HasToolResult("r1") {
			return acptest.Call("r1", "read_file", `{"path":"calc.go"}`)
		}
		if !r.HasToolResult("e1") {
			return acptest.Call("e1", "edit_file", `{"path":"calc.go","old_string":"return a + b","new_string":"return a*b + 1"}`)
		}
		return llmtest.Text("done, I think")
	}
	h := acptest.Start(t, script, acptest.Options{FS: true})
	userConfig(t, h.Env, `{"maxCheckRounds": 1, "checks": [{"name": "test", "command": "echo 'Mul(2, 3) = 7, want 6'; exit 1"}]}`)
	path := h.Write("calc.go", calcBefore)
	id := h.NewSession()
	if r := h.MustPrompt(id, "make Mul multiply"); r != acp.StopReasonEndTurn {
		t.Fatalf("stop reason %q", r)
	}
	rec := h.Client.Recorded()
	if len(rec.Perms) != 0 || len(rec.Writes) != 0 || h.Read("calc.go") != calcBefore {
		t.Fatalf("a failing change was asked about or written: %d permissions, writes %+v, calc.go %q", len(rec.Perms), rec.Writes, h.Read("calc.go"))
	}
	if text := acptest.AgentText(rec.Updates); !strings.Contains(text, "checks still fail (test), so nothing was asked about or written: 1 changed file stay pending in the session (calc.go)") {
		t.Fatalf("the turn does not say why nothing was asked: %q", text)
	}
	st, err := agent.OpenSessionStore(filepath.Join(h.State, "agentls"), h.Dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	saved, err := st.LoadOne(string(id))
	if err != nil {
		t.Fatal(err)
	}
	if len(saved.Proposals) != 1 || saved.Proposals[0].Path != path || !strings.Contains(saved.Proposals[0].Proposed, "return a*b + 1") {
		t.Fatalf("the held change is not pending in the session: %+v", saved.Proposals)
	}
	if r := h.MustPrompt(id, "anything else?"); r != acp.StopReasonEndTurn {
		t.Fatalf("second prompt: %q", r)
	}
	if rec := h.Client.Recorded(); len(rec.Perms) != 0 || h.Read("calc.go") != calcBefore {
		t.Fatalf("the next prompt asked about the failing change: %d permissions", len(rec.Perms))
	}
}

// A permission at the end of a turn nobody answers still ends with the
// run's wall clock, and cancelling while it is asked ends the prompt as
// cancelled; neither writes.
func TestHeldChangeUnansweredOrCancelled(t *testing.T) {
	for _, cancel := range []bool{false, true} {
		name := "wall clock"
		if cancel {
			name = "cancel"
		}
		t.Run(name, func(t *testing.T) {
			h := acptest.Start(t, mulScript, acptest.Options{})
			cfg := strings.TrimSuffix(mulCheck, "}") + `, "maxWallClockSeconds": 4}`
			if cancel {
				cfg = mulCheck
			}
			userConfig(t, h.Env, cfg)
			h.Write("calc.go", calcBefore)
			id := h.NewSession()
			asked, never := make(chan struct{}, 1), make(chan struct{})
			h.Client.OnPermission = func(acp.RequestPermissionRequest) acp.RequestPermissionResponse {
				asked <- struct{}{}
				<-never
				return acptest.Allow("allow")
			}
			t.Cleanup(func() { close(never) }) // before the harness closes
			done := make(chan acp.StopReason, 1)
			go func() {
				r, _ := h.Prompt(id, "make Mul multiply")
				done <- r
			}()
			select {
			case <-asked:
			case r := <-done:
				t.Fatalf("the prompt ended (%q) before the change was asked about", r)
			}
			if cancel {
				if err := h.Conn.Cancel(h.Ctx(), acp.CancelNotification{SessionId: id}); err != nil {
					t.Fatal(err)
				}
			}
			want := acp.StopReasonEndTurn
			if cancel {
				want = acp.StopReasonCancelled
			}
			if r := <-done; r != want {
				t.Fatalf("stop reason %q, want %q", r, want)
			}
			if got := h.Read("calc.go"); got != calcBefore {
				t.Fatalf("written without an answer: %q", got)
			}
			if !cancel {
				us, _ := h.Client.Snapshot()
				if text := acptest.AgentText(us); !strings.Contains(text, "wall-clock limit reached") {
					t.Fatalf("the prompt does not say the run hit its wall clock: %q", text)
				}
				if !strings.Contains(acptest.UpdateTexts(us), "no answer within the run's time limit (maxWallClockSeconds)") {
					t.Fatalf("the review's tool call does not say why:\n%s", acptest.UpdateTexts(us))
				}
			}
		})
	}
}

// A check whose command is not installed: its tool call says "could not
// run" with the shell's line, and the model is not sent back (two model
// calls, as without checks).
func TestCheckThatCannotRunOverACP(t *testing.T) {
	h := acptest.Start(t, llmtest.Sequence(
		acptest.Call("w1", "write_file", `{"path":"state.txt","content":"x\n"}`),
		llmtest.Text("wrote state"),
	), acptest.Options{})
	userConfig(t, h.Env, `{"checks": [{"name": "test", "command": "definitely-not-installed-xyz --run"}]}`)
	if r := h.MustPrompt(h.NewSession(), "write state"); r != acp.StopReasonEndTurn {
		t.Fatalf("stop reason %q", r)
	}
	us, _ := h.Client.Snapshot()
	var texts []string
	for _, c := range acptest.ToolCalls(us) {
		if c.Title != "Check test" {
			continue
		}
		for _, u := range acptest.ToolUpdates(us, c.ToolCallId) {
			for _, b := range u.Content {
				if b.Content != nil && b.Content.Content.Text != nil {
					texts = append(texts, b.Content.Content.Text.Text)
				}
			}
		}
	}
	if len(texts) != 1 || !strings.HasPrefix(texts[0], "check test could not run: sh: 1: definitely-not-installed-xyz: not found\n") || !strings.Contains(texts[0], "PATH=") {
		t.Fatalf("check tool call texts %q", texts)
	}
	// Requests without messages are the endpoint probes, not turns.
	turns := 0
	for _, r := range h.Model.Requests() {
		if r.Contains(`check "test"`) || r.Contains("could not run") {
			t.Fatalf("the check went back to the model: %q", r.LastUser())
		}
		if len(r.Messages) > 0 {
			turns++
		}
	}
	if turns != 2 {
		t.Fatalf("%d model turns, want 2 as without checks", turns)
	}
	// The change is asked about at the end with what the check said, once
	// ("could not run" is not repeated).
	_, perms := h.Client.Snapshot()
	var asked string
	for _, p := range perms {
		asked += acptest.ContentText(p.ToolCall.Content)
	}
	if !strings.Contains(asked, "⚠ check test could not run: sh: 1: definitely-not-installed-xyz: not found") || strings.Contains(asked, "could not run: could not run") {
		t.Fatalf("the permission's check results:\n%s", asked)
	}
}

// A session's follow-up and a new file an earlier turn proposed but held
// (its checks failed): the follow-up reads the pending text, and its own
// version replaces the earlier proposal instead of standing beside it, as
// the follow-up prompt promises the model (agent/desk newfiles.go; the
// LSP face kept this rule, ACP did not). The next turn is told that the
// earlier proposal conflicts (superseded) and the follow-up's is pending.
func TestFollowUpSupersedesHeldNewFile(t *testing.T) {
	var readBack, told string
	var mu sync.Mutex
	script := func(r *llmtest.ChatRequest) llmtest.Reply {
		switch {
		case strings.Contains(r.LastUser(), "anything else"):
			mu.Lock()
			told = r.LastUser()
			mu.Unlock()
			return llmtest.Text("nothing else")
		case strings.Contains(r.LastUser(), "rewrite the notes"):
			if !r.HasToolResult("r2") {
				return acptest.Call("r2", "read_file", `{"path":"notes.txt"}`)
			}
			if !r.HasToolResult("w2") {
				got, _ := r.ToolResult("r2")
				mu.Lock()
				readBack = got
				mu.Unlock()
				return acptest.Call("w2", "write_file", `{"path":"notes.txt","content":"two\n"}`)
			}
			return llmtest.Text("rewrote them")
		case !r.HasToolResult("w1"):
			return acptest.Call("w1", "write_file", `{"path":"notes.txt","content":"one\n"}`)
		}
		return llmtest.Text("wrote them")
	}
	h := acptest.Start(t, script, acptest.Options{})
	userConfig(t, h.Env, `{"maxCheckRounds": 0, "checks": [{"name": "never", "command": "echo still failing; exit 1"}]}`)
	id := h.NewSession()
	for _, p := range []string{"write some notes", "rewrite the notes", "anything else?"} {
		if r := h.MustPrompt(id, p); r != acp.StopReasonEndTurn {
			t.Fatalf("%s: stop reason %q", p, r)
		}
	}
	mu.Lock()
	got, followup := readBack, told
	mu.Unlock()
	if !strings.Contains(got, "one") {
		t.Fatalf("the follow-up did not read the pending new file: %q", got)
	}
	var notes []string
	for _, line := range strings.Split(followup, "\n") {
		if strings.Contains(line, "notes.txt") {
			notes = append(notes, line)
		}
	}
	if len(notes) != 2 || !strings.Contains(notes[0], "0 hunks pending, 1 hunk conflicted") || !strings.Contains(notes[1], "1 hunk pending") ||
		strings.Contains(notes[1], "conflicted") {
		t.Fatalf("the third turn is told about notes.txt:\n%s\nwant the first proposal superseded and the follow-up's pending", strings.Join(notes, "\n"))
	}
	if _, err := os.Stat(filepath.Join(h.Dir, "notes.txt")); !os.IsNotExist(err) {
		t.Fatalf("notes.txt was written: %v", err)
	}

	// The session loaded by another connection (a restart, which forgets
	// which changes were held, so the next prompt asks about them and the
	// test client allows): the superseded proposal stays superseded, so
	// the follow-up's version is the one asked about and written.
	h2 := acptest.Start(t, script, acptest.Options{Dir: h.Dir, State: h.State})
	userConfig(t, h2.Env, `{"maxCheckRounds": 0, "checks": [{"name": "never", "command": "echo still failing; exit 1"}]}`)
	if _, err := h2.Conn.LoadSession(h2.Ctx(), acp.LoadSessionRequest{SessionId: id, Cwd: h2.Dir, McpServers: []acp.McpServer{}}); err != nil {
		t.Fatalf("session/load: %v", err)
	}
	if r := h2.MustPrompt(id, "anything else after the restart?"); r != acp.StopReasonEndTurn {
		t.Fatalf("after the restart: stop reason %q", r)
	}
	if got := h2.Read("notes.txt"); got != "two\n" {
		t.Fatalf("after the restart notes.txt is %q, want the follow-up's version", got)
	}
}
