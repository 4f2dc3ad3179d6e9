package nvim_test

import (
	"encoding/json"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/agentls/agentls/agent/llm/llmtest"
	"github.com/agentls/agentls/lspserver/lsptest"
)

// These tests drive whole agent runs from Neovim: the plugin's commands,
// the real agentls binary, and a scripted model server (llmtest) standing
// in for the model. Nothing else is faked.

const greetGo = "package main\n\nfunc greet() string {\n\treturn \"hello\"\n}\n"

// twoFuncs has two edit sites far enough apart to be separate hunks.
var twoFuncs = "package main\n\nfunc greet() string {\n\treturn \"hello\"\n}\n" +
	strings.Repeat("\n// padding\n", 6) +
	"\nfunc bye() string {\n\treturn \"bye\"\n}\n"

// readThenEdit is a model that reads path, makes each edit (old → new) with
// edit_file in turn, and then answers text.
func readThenEdit(path, text string, edits ...[2]string) llmtest.Script {
	return func(req *llmtest.ChatRequest) llmtest.Reply {
		if !req.HasToolResult("read") {
			args, _ := json.Marshal(map[string]string{"path": path})
			return llmtest.ToolCalls(llmtest.Call{ID: "read", Name: "read_file", Args: string(args)})
		}
		for i, e := range edits {
			id := "edit" + string(rune('1'+i))
			if !req.HasToolResult(id) {
				args, _ := json.Marshal(map[string]string{"path": path, "old_string": e[0], "new_string": e[1]})
				return llmtest.ToolCalls(llmtest.Call{ID: id, Name: "edit_file", Args: string(args)})
			}
		}
		return llmtest.Text(text)
	}
}

func modelEnv(srv *llmtest.Server) map[string]string {
	return map[string]string{"AGENTLS_TEST_MODEL": srv.URL()}
}

func lastUserPrompts(srv *llmtest.Server) string {
	var b strings.Builder
	for _, r := range srv.Requests() {
		b.WriteString(r.LastUser())
		b.WriteByte('\n')
	}
	return b.String()
}

// TestRunApply: :AgentRun! runs in apply mode; the edit lands in the buffer
// (unsaved) through Neovim's workspace/applyEdit handler.
func TestRunApply(t *testing.T) {
	t.Parallel()
	srv := llmtest.New(t, readThenEdit("greet.go", "Changed the greeting.", [2]string{`"hello"`, `"hello, world"`}))
	r := runScript(t, "run_apply.lua", options{env: modelEnv(srv), files: map[string]string{"greet.go": greetGo}})
	if got := r.str(t, "status"); got != "finished" {
		t.Errorf("run status %q, want finished", got)
	}
	want := strings.Replace(strings.TrimSuffix(greetGo, "\n"), `"hello"`, `"hello, world"`, 1)
	if got := r.str(t, "buffer"); got != want {
		t.Errorf("buffer:\n%s\nwant:\n%s", got, want)
	}
	if !r.boolean(t, "modified") {
		t.Error("the buffer is not marked modified after the agent's edit")
	}
	if got := r.str(t, "disk"); got != greetGo {
		t.Errorf("the file on disk changed:\n%s", got)
	}
	var marks int
	r.fact(t, "marks", &marks)
	if marks != 0 {
		t.Errorf("%d preview extmarks in apply mode, want 0", marks)
	}
	var log []string
	r.fact(t, "log", &log)
	joined := strings.Join(log, "\n")
	for _, want := range []string{"change the greeting", "→ read_file", "→ edit_file", "finished", "Changed the greeting."} {
		if !strings.Contains(joined, want) {
			t.Errorf("run log lacks %q:\n%s", want, joined)
		}
	}
	// The statusline component keeps the last run's tokens (no cost: no
	// model.pricing in this test).
	if got := r.str(t, "status_line"); !regexp.MustCompile(`^agent: last run \d+(\.\d)?k? tok$`).MatchString(got) {
		t.Errorf("status() after the run = %q, want the run's tokens", got)
	}
	if !strings.Contains(lastUserPrompts(srv), "change the greeting") {
		t.Errorf("the model never saw the prompt; user messages:\n%s", lastUserPrompts(srv))
	}
}

// TestRunPreviewAccept: a ranged :AgentRun in preview mode shows the
// proposal inline without touching the buffer; :AgentAccept on the hunk
// applies it and clears the preview.
func TestRunPreviewAccept(t *testing.T) {
	t.Parallel()
	srv := llmtest.New(t, readThenEdit("greet.go", "Made it loud.", [2]string{`"hello"`, `"HELLO"`}))
	r := runScript(t, "run_preview.lua", options{env: modelEnv(srv), files: map[string]string{"greet.go": greetGo}})

	var marks []mark
	r.fact(t, "marks", &marks)
	var deleted, added bool
	for _, m := range marks {
		if m.HL == "AgentlsDelete" && m.Row == 3 {
			deleted = true
		}
		for _, v := range m.Virt {
			if strings.Contains(v.Text, `return "HELLO"`) && v.HL == "AgentlsAdd" {
				added = true
			}
		}
	}
	if !deleted || !added {
		t.Errorf("preview extmarks %+v: want line 4 highlighted as deleted and the new line as a virtual line", marks)
	}
	if !r.boolean(t, "unchanged_while_pending") {
		t.Error("the buffer changed before the proposal was accepted")
	}
	if got := r.str(t, "status"); got != "finished" {
		t.Errorf("run status %q, want finished", got)
	}
	want := strings.Replace(strings.TrimSuffix(greetGo, "\n"), `"hello"`, `"HELLO"`, 1)
	if got := r.str(t, "buffer"); got != want {
		t.Errorf("buffer after accept:\n%s\nwant:\n%s", got, want)
	}
	if got := r.str(t, "disk"); got != greetGo {
		t.Errorf("the file on disk changed:\n%s", got)
	}
	var pending int
	r.fact(t, "pending_after", &pending)
	if pending != 0 {
		t.Errorf("%d proposals still pending after accept", pending)
	}

	// The run request carried the prompt, the buffer's URI and the lines.
	runs := byMethod(readWire(t, r.str(t, "wire")), "workspace/executeCommand")
	if len(runs) < 2 {
		t.Fatalf("%d executeCommand requests, want agentls.run and agentls.accept", len(runs))
	}
	uri := "file://" + filepath.Join(r.dir, "ws", "greet.go")
	wantRun := `{"command":"agentls.run","arguments":[{"prompt":"make it loud","uri":"` + uri + `",
	  "range":{"start":{"line":2,"character":0},"end":{"line":4,"character":1}}}]}`
	if !jsonEqual(t, runs[0].Params, []byte(wantRun)) {
		t.Errorf("agentls.run params = %s\nwant %s", runs[0].Params, wantRun)
	}
	var accept struct {
		Command   string `json:"command"`
		Arguments []struct {
			RunID  string `json:"runId"`
			URI    string `json:"uri"`
			HunkID string `json:"hunkId"`
		} `json:"arguments"`
	}
	if err := json.Unmarshal(runs[1].Params, &accept); err != nil {
		t.Fatal(err)
	}
	if accept.Command != "agentls.accept" || len(accept.Arguments) != 1 || accept.Arguments[0].HunkID == "" ||
		accept.Arguments[0].RunID == "" {
		t.Errorf("accept params = %s, want agentls.accept with runId and hunkId", runs[1].Params)
	}
}

// TestRunReview: two hunks; the second rejected (buffer untouched, its
// preview gone, the first still shown), the first accepted.
func TestRunReview(t *testing.T) {
	t.Parallel()
	srv := llmtest.New(t, readThenEdit("greet.go", "Both louder.",
		[2]string{`"hello"`, `"HELLO"`}, [2]string{`"bye"`, `"BYE"`}))
	r := runScript(t, "run_review.lua", options{env: modelEnv(srv), files: map[string]string{"greet.go": twoFuncs}})
	var rows, visited []int
	r.fact(t, "hunk_rows", &rows)
	r.fact(t, "visited", &visited)
	if len(rows) != 2 || rows[0] != 3 || rows[1] != strings.Count(twoFuncs[:strings.Index(twoFuncs, `"bye"`)], "\n") {
		t.Errorf("hunk rows = %v", rows)
	}
	if len(visited) != 2 || visited[0] != rows[0] || visited[1] != rows[1] {
		t.Errorf(":AgentNextHunk visited rows %v, want %v", visited, rows)
	}
	if got := r.str(t, "after_reject_buffer"); got != strings.TrimSuffix(twoFuncs, "\n") {
		t.Errorf("reject changed the buffer:\n%s", got)
	}
	var left int
	r.fact(t, "left_hunk_row", &left)
	if left != rows[0] {
		t.Errorf("after rejecting the second hunk, the one left is at row %d, want %d", left, rows[0])
	}
	want := strings.Replace(strings.TrimSuffix(twoFuncs, "\n"), `"hello"`, `"HELLO"`, 1)
	if got := r.str(t, "buffer"); got != want {
		t.Errorf("buffer after review:\n%s\nwant:\n%s", got, want)
	}
	var pending int
	r.fact(t, "pending_after", &pending)
	if pending != 0 {
		t.Errorf("%d proposals pending after review", pending)
	}
}

// TestRunCodeActionResolve: the plugin advertises codeAction resolve for
// "command", so the server lists its code actions without commands, and
// Neovim's own vim.lsp.buf.code_action resolves the picked "Agent: Accept
// change" before running it: both hunks of a preview accepted that way.
func TestRunCodeActionResolve(t *testing.T) {
	t.Parallel()
	srv := llmtest.New(t, readThenEdit("greet.go", "Both louder.",
		[2]string{`"hello"`, `"HELLO"`}, [2]string{`"bye"`, `"BYE"`}))
	r := runScript(t, "run_codeaction.lua", options{env: modelEnv(srv), files: map[string]string{"greet.go": twoFuncs}})
	var props []string
	r.fact(t, "resolve_properties", &props)
	if !slices.Contains(props, "command") {
		t.Errorf("resolveSupport.properties = %q, want \"command\" among them", props)
	}
	var provider bool
	r.fact(t, "resolve_provider", &provider)
	if !provider {
		t.Errorf("the server did not offer codeAction/resolve to the plugin")
	}
	var listed []struct {
		Title      string `json:"title"`
		HasCommand bool   `json:"has_command"`
	}
	r.fact(t, "listed", &listed)
	if len(listed) != 2 || listed[0].HasCommand || listed[1].HasCommand {
		t.Errorf("listed accept actions = %+v, want two without a command (resolved when picked)", listed)
	}
	want := strings.NewReplacer(`"hello"`, `"HELLO"`, `"bye"`, `"BYE"`).Replace(strings.TrimSuffix(twoFuncs, "\n"))
	if got := r.str(t, "buffer"); got != want {
		t.Errorf("buffer after accepting both through code actions:\n%s\nwant:\n%s", got, want)
	}
}

// TestRunCancel: :AgentCancel ends a run whose model stream hangs.
func TestRunCancel(t *testing.T) {
	t.Parallel()
	hang := llmtest.NewHang()
	srv := llmtest.New(t, llmtest.Always(llmtest.Text("thinking about it for a long while").ChunkSize(4).HangAfter(2, hang)))
	r := runScript(t, "run_cancel.lua", options{env: modelEnv(srv), files: map[string]string{"greet.go": greetGo}})
	if got := r.str(t, "status_while_running"); got != "agent: 1 running" {
		t.Errorf("status() while running = %q", got)
	}
	if got := r.str(t, "status"); got != "cancelled" {
		t.Errorf("run status after :AgentCancel = %q, want cancelled", got)
	}
	var log []string
	r.fact(t, "log", &log)
	if !strings.Contains(strings.Join(log, "\n"), "cancelled") {
		t.Errorf("run log does not say cancelled:\n%s", strings.Join(log, "\n"))
	}
	// The server closes the model connection as the run ends, but the
	// model server notices a moment later: wait for it (bounded by the
	// test's context), rather than checking once.
	select {
	case <-hang.Disconnected():
	case <-lsptest.Context(t).Done():
		t.Error("the model stream was not disconnected by the cancel")
	}
}

// TestRunWithoutModel: no model configured anywhere → the run fails with a
// message naming what to set; the server keeps serving.
func TestRunWithoutModel(t *testing.T) {
	t.Parallel()
	r := runScript(t, "run_nomodel.lua", options{files: map[string]string{"greet.go": greetGo}})
	msg := r.str(t, "message")
	if !strings.Contains(strings.ToLower(msg), "model") {
		t.Errorf("failure message %q does not mention the model settings", msg)
	}
	if got := r.str(t, "document"); !strings.HasPrefix(got, "package still\n") {
		t.Errorf("server text after the failed run = %q", got)
	}
}

// TestRunShowsPlan: a run that keeps a plan and delegates to a sub-agent
// shows the checklist and the sub-agent's steps in :AgentLog, and the plan
// item in the statusline component while it runs.
func TestRunShowsPlan(t *testing.T) {
	t.Parallel()
	srv := llmtest.New(t, func(req *llmtest.ChatRequest) llmtest.Reply {
		if strings.HasPrefix(req.System(), "You are a sub-agent") {
			if !req.HasToolResult("g1") {
				return llmtest.ToolCalls(llmtest.Call{ID: "g1", Name: "grep", Args: `{"pattern":"hello"}`})
			}
			return llmtest.Text("greet.go line 4")
		}
		switch {
		case !req.HasToolResult("p1"):
			return llmtest.ToolCalls(llmtest.Call{ID: "p1", Name: "todo_write", Args: `{"todos":[{"content":"find the greeting","status":"in_progress"},{"content":"report it","status":"pending"}]}`})
		case !req.HasToolResult("t1"):
			return llmtest.ToolCalls(llmtest.Call{ID: "t1", Name: "task", Args: `{"description":"search greeting","prompt":"Where is hello?"}`})
		case !req.HasToolResult("p2"):
			return llmtest.ToolCalls(llmtest.Call{ID: "p2", Name: "todo_write", Args: `{"todos":[{"content":"find the greeting","status":"completed"},{"content":"report it","status":"in_progress"}]}`})
		}
		return llmtest.Text("It is in greet.go.")
	})
	r := runScript(t, "run_plan.lua", options{env: modelEnv(srv), files: map[string]string{"greet.go": greetGo}})
	if got := r.str(t, "status"); got != "finished" {
		t.Fatalf("run status %q", got)
	}
	var statuses []string
	r.fact(t, "statuses", &statuses)
	// The plan item, then the tokens used so far.
	want := []string{"agent: 1 running · 1/2 · find the greeting", "agent: 1 running · 2/2 · report it"}
	tokens := regexp.MustCompile(` · \d+(\.\d)?k? tok$`)
	if len(statuses) != len(want) {
		t.Errorf("statusline during the run = %q, want %q with the tokens", statuses, want)
	}
	for i := range min(len(statuses), len(want)) {
		if !strings.HasPrefix(statuses[i], want[i]+" · ") || !tokens.MatchString(statuses[i]) {
			t.Errorf("statusline %q, want %q then the tokens", statuses[i], want[i])
		}
	}
	var runs int
	r.fact(t, "runs", &runs)
	if runs != 1 {
		t.Errorf("%d runs listed; the sub-agent must not count as a run", runs)
	}
	var log []string
	r.fact(t, "log", &log)
	joined := strings.Join(log, "\n")
	for _, w := range []string{"☰ plan 1/2 · find the greeting", "    [~] find the greeting", "    [ ] report it",
		"☰ plan 2/2 · report it", "    [x] find the greeting", "⤷", "sub-agent: search greeting", "→ grep", "finished", "It is in greet.go."} {
		if !strings.Contains(joined, w) {
			t.Errorf("run log lacks %q:\n%s", w, joined)
		}
	}
}

// TestRunReplay: what a plugin author's deterministic test looks like. A
// run recorded through Neovim with model.record replays with only
// model.replay in the settings (no model server, no key): same status,
// same proposal, same run log.
func TestRunReplay(t *testing.T) {
	t.Parallel()
	cassette := filepath.Join(t.TempDir(), "loud.cassette.json")
	srv := llmtest.New(t, readThenEdit("greet.go", "Made it loud.", [2]string{`"hello"`, `"HELLO"`}))
	files := map[string]string{"greet.go": greetGo}
	rec := runScript(t, "run_replay.lua", options{files: files,
		env: map[string]string{"AGENTLS_TEST_MODEL": srv.URL(), "AGENTLS_TEST_CASSETTE": cassette}})
	want := strings.Replace(greetGo, `"hello"`, `"HELLO"`, 1)
	if got := rec.str(t, "status"); got != "finished" {
		t.Fatalf("recording run status %q (error %q)", got, rec.str(t, "error"))
	}
	if got := rec.str(t, "proposed"); got != want {
		t.Fatalf("recording run proposed:\n%s", got)
	}
	calls := len(srv.Requests())

	rep := runScript(t, "run_replay.lua", options{files: files, env: map[string]string{"AGENTLS_TEST_CASSETTE": cassette}})
	if got := rep.str(t, "status"); got != "finished" {
		t.Fatalf("replayed run status %q (error %q)", got, rep.str(t, "error"))
	}
	if got := rep.str(t, "proposed"); got != want {
		t.Fatalf("replayed run proposed:\n%s\nwant:\n%s", got, want)
	}
	if n := len(srv.Requests()); n != calls {
		t.Fatalf("the replay called the model server (%d requests, %d when recording)", n, calls)
	}
	var recLog, repLog []string
	rec.fact(t, "log", &recLog)
	rep.fact(t, "log", &repLog)
	// The tool activity is the same (run ids and the plugin's own header
	// lines may differ).
	activity := func(log []string) []string {
		var out []string
		for _, l := range log {
			if strings.ContainsAny(l, "→✓✗✎") {
				out = append(out, l)
			}
		}
		return out
	}
	if a, b := activity(repLog), activity(recLog); len(a) != len(b) || len(a) < 4 {
		t.Errorf("tool activity replayed:\n%s\nrecorded:\n%s", strings.Join(a, "\n"), strings.Join(b, "\n"))
	}
	if !strings.Contains(strings.Join(repLog, "\n"), "Made it loud.") {
		t.Errorf("replayed run log lacks the answer:\n%s", strings.Join(repLog, "\n"))
	}
}

// TestRunFollowup: :AgentReject {reason} and :AgentFollowup {prompt}
// continue the buffer's session; the follow-up's model request carries the
// first run's reads and the reason.
func TestRunFollowup(t *testing.T) {
	t.Parallel()
	first := readThenEdit("greet.go", "Both louder.", [2]string{`"hello"`, `"HELLO"`}, [2]string{`"bye"`, `"BYE"`})
	srv := llmtest.New(t, func(req *llmtest.ChatRequest) llmtest.Reply {
		if strings.Contains(req.LastUser(), "try again") {
			return llmtest.Text("Kept bye as it was.")
		}
		return first(req)
	})
	r := runScript(t, "run_followup.lua", options{env: modelEnv(srv), files: map[string]string{"greet.go": twoFuncs}})
	var ids []string
	r.fact(t, "sessions", &ids)
	if len(ids) != 2 || ids[0] == "" || ids[0] != ids[1] {
		t.Fatalf("session ids of the run and its follow-up = %q", ids)
	}
	if got := r.str(t, "status"); got != "finished" {
		t.Fatalf("follow-up status %q", got)
	}
	reqs := srv.Requests()
	last := reqs[len(reqs)-1]
	if !last.HasToolResult("read") || !strings.Contains(last.LastUser(), "keep bye lowercase, it is matched by a test") {
		t.Fatalf("the follow-up request lacks the first run's read or the reason:\n%s", last.LastUser())
	}
}

// TestRunRestoreAfterRestart: pending proposals survive stopping the server;
// the plugin shows them again on attach and accepting applies them.
func TestRunRestoreAfterRestart(t *testing.T) {
	t.Parallel()
	srv := llmtest.New(t, readThenEdit("greet.go", "Both louder.", [2]string{`"hello"`, `"HELLO"`}, [2]string{`"bye"`, `"BYE"`}))
	r := runScript(t, "run_restore.lua", options{env: modelEnv(srv), files: map[string]string{"greet.go": twoFuncs}})
	var fresh bool
	r.fact(t, "new_client", &fresh)
	var n int
	r.fact(t, "restored_hunks", &n)
	if !fresh || n != 2 {
		t.Fatalf("after restart: new client %v, %d hunks", fresh, n)
	}
	want := strings.NewReplacer(`"hello"`, `"HELLO"`, `"bye"`, `"BYE"`).Replace(strings.TrimSuffix(twoFuncs, "\n"))
	if got := r.str(t, "buffer"); got != want {
		t.Fatalf("buffer after accepting the restored proposal:\n%s\nwant:\n%s", got, want)
	}
	var ids []string
	r.fact(t, "sessions", &ids)
	if len(ids) != 2 || ids[0] == "" || ids[0] != ids[1] {
		t.Fatalf(":AgentFollowup after the restart ran in session %q, want the restored %q", ids, ids)
	}
	reqs := srv.Requests()
	if last := reqs[len(reqs)-1]; !strings.Contains(last.LastUser(), "The user accepted") {
		t.Fatalf("the follow-up after the restart was not told about the accept:\n%s", last.LastUser())
	}
}

// TestRunProgressDefault: with no progress plugin, a run's progress shows
// in the message area by default, in words, each line fitting the message
// area (no hit-ENTER prompt); with a fidget-style plugin loaded, the plugin
// leaves progress to it.
func TestRunProgressDefault(t *testing.T) {
	t.Parallel()
	srv := llmtest.New(t, readThenEdit("greet.go", "Made it loud.", [2]string{`"hello"`, `"HELLO"`}))
	r := runScript(t, "run_progress.lua", options{env: modelEnv(srv), files: map[string]string{"greet.go": greetGo}})
	var echoed, withFidget []string
	r.fact(t, "echoed", &echoed)
	r.fact(t, "echoed_with_fidget", &withFidget)
	var space, calls, callsFidget int
	r.fact(t, "echospace", &space)
	r.fact(t, "global_calls", &calls)
	r.fact(t, "global_calls_with_fidget", &callsFidget)
	joined := strings.Join(echoed, "\n")
	if !strings.Contains(joined, "agentls: reading greet.go") {
		t.Errorf("progress not shown by default; echoed:\n%s", joined)
	}
	for _, e := range echoed {
		if strings.Contains(e, "\n") || len([]rune(e)) > space {
			t.Errorf("echo %q does not fit the message area (%d columns): hit-ENTER prompt", e, space)
		}
		if strings.Contains(e, "{") {
			t.Errorf("progress shows raw arguments: %q", e)
		}
	}
	if calls == 0 || callsFidget == 0 {
		t.Errorf("the global $/progress handler got %d and %d notifications, want some in both runs", calls, callsFidget)
	}
	if len(withFidget) != 0 {
		t.Errorf("with a progress plugin loaded, the plugin still echoed progress: %q", withFidget)
	}
}

// TestRunConflictExplained: accepting a hunk the user has edited opens a
// float with the hunk, why it conflicts and the options, and lists it in
// the quickfix list; its inline hint stays short.
func TestRunConflictExplained(t *testing.T) {
	t.Parallel()
	srv := llmtest.New(t, readThenEdit("greet.go", "Made it loud.", [2]string{`"hello"`, `"HELLO"`}))
	r := runScript(t, "run_conflict.lua", options{env: modelEnv(srv), files: map[string]string{"greet.go": greetGo}})
	var hints []string
	r.fact(t, "hints", &hints)
	if len(hints) != 1 || !strings.Contains(hints[0], "conflicted") || !strings.Contains(hints[0], ":AgentExplain") ||
		strings.Contains(hints[0], `\t`) || len([]rune(hints[0])) > 80 {
		t.Errorf("conflicted hint = %q, want one short hint naming :AgentExplain", hints)
	}
	for _, key := range []string{"float_after_accept", "float_explain"} {
		f := r.str(t, key)
		for _, want := range []string{"conflicted", "- \treturn \"hello\"", "+ \treturn \"HELLO\"", "Options:", ":AgentReject"} {
			want = strings.ReplaceAll(want, "\t", "    ")
			if !strings.Contains(f, want) {
				t.Errorf("%s lacks %q:\n%s", key, want, f)
			}
		}
		if strings.Contains(f, `\t`) {
			t.Errorf("%s shows a literal \\t:\n%s", key, f)
		}
	}
	var qf []struct {
		Lnum    int    `json:"lnum"`
		Text    string `json:"text"`
		Bufname string `json:"bufname"`
	}
	r.fact(t, "qf", &qf)
	if len(qf) != 1 || qf[0].Lnum != 4 || !strings.Contains(qf[0].Text, "conflicted") || !strings.HasSuffix(qf[0].Bufname, "greet.go") {
		t.Errorf("quickfix list = %+v, want the conflicted hunk at greet.go:4", qf)
	}
	if got := r.str(t, "buffer"); strings.Contains(got, "HELLO") {
		t.Errorf("a conflicted hunk was applied:\n%s", got)
	}
}

// TestPlanApprovedAfterServerRestart: a plan made before the server
// restarted (an editor reload, :LspRestart, a crash) is approved with
// :AgentApprove through the new server, in the plan's session.
func TestPlanApprovedAfterServerRestart(t *testing.T) {
	t.Parallel()
	srv := llmtest.New(t, func(req *llmtest.ChatRequest) llmtest.Reply {
		if !strings.Contains(req.LastUser(), "The user approved your plan") {
			return llmtest.Text("PLAN: 1. return HELLO in greet.go")
		}
		switch {
		case !req.HasToolResult("r1"):
			return llmtest.ToolCalls(llmtest.Call{ID: "r1", Name: "read_file", Args: `{"path":"greet.go"}`})
		case !req.HasToolResult("e1"):
			return llmtest.ToolCalls(llmtest.Call{ID: "e1", Name: "edit_file", Args: `{"path":"greet.go","old_string":"\"hello\"","new_string":"\"HELLO\""}`})
		}
		return llmtest.Text("Done.")
	})
	r := runScript(t, "run_approve_restart.lua", options{env: modelEnv(srv), files: map[string]string{"greet.go": greetGo}})
	if got := r.str(t, "plan_status"); got != "finished" {
		t.Fatalf("plan run %q", got)
	}
	if got := r.str(t, "second_status"); got != "finished" {
		t.Errorf("carry-out run %q", got)
	}
	if !r.boolean(t, "same_session") {
		t.Error("the carry-out run is not in the plan's session")
	}
	reqs := srv.Requests()
	if last := reqs[len(reqs)-1]; !last.Contains("PLAN: 1. return HELLO in greet.go") {
		t.Error("the carry-out run was not given the plan")
	}
}

// TestRunApplyNewFile: in apply mode a run creates a file and edits it
// again; the buffer Neovim opens for it holds exactly the agent's text and
// :write saves it byte for byte (Neovim's empty buffer is one line with an
// implicit final newline, which an insertion at 0:0 left as a blank line
// more; the server then never saw its text and sent no further edit).
func TestRunApplyNewFile(t *testing.T) {
	t.Parallel()
	srv := llmtest.New(t, func(req *llmtest.ChatRequest) llmtest.Reply {
		switch {
		case !req.HasToolResult("w1"):
			return llmtest.ToolCalls(llmtest.Call{ID: "w1", Name: "write_file", Args: `{"path":"notes.md","content":"# Notes 🎉\n\n- first\n"}`})
		case !req.HasToolResult("e1"):
			return llmtest.ToolCalls(llmtest.Call{ID: "e1", Name: "edit_file", Args: `{"path":"notes.md","old_string":"- first\n","new_string":"- first\n- second 你好\n"}`})
		}
		return llmtest.Text("Wrote the notes.")
	})
	r := runScript(t, "run_apply_newfile.lua", options{env: modelEnv(srv), files: map[string]string{"greet.go": greetGo}})
	if got := r.str(t, "status"); got != "finished" {
		t.Fatalf("run status %q", got)
	}
	if !r.boolean(t, "has_buffer") {
		t.Fatal("no buffer for the new file")
	}
	const want = "# Notes 🎉\n\n- first\n- second 你好\n"
	if got := r.str(t, "buffer_text"); got != want {
		t.Errorf("the new file's buffer = %q, want %q", got, want)
	}
	if got := r.str(t, "disk"); got != want {
		t.Errorf("saved = %q, want %q", got, want)
	}
}

// TestPlanThenApprove: :AgentPlan sends agentls.run with mode "plan" and
// the plan shows in the log; :AgentApprove sends agentls.approvePlan and
// the carry-out run (same session) leaves a preview in the buffer.
func TestPlanThenApprove(t *testing.T) {
	t.Parallel()
	srv := llmtest.New(t, func(req *llmtest.ChatRequest) llmtest.Reply {
		if !strings.Contains(req.LastUser(), "The user approved your plan") {
			if req.HasTool("edit_file") {
				return llmtest.Text("WRONG TOOLS")
			}
			return llmtest.Text("PLAN: 1. return HELLO in greet.go")
		}
		switch {
		case !req.HasToolResult("r1"):
			return llmtest.ToolCalls(llmtest.Call{ID: "r1", Name: "read_file", Args: `{"path":"greet.go"}`})
		case !req.HasToolResult("e1"):
			return llmtest.ToolCalls(llmtest.Call{ID: "e1", Name: "edit_file", Args: `{"path":"greet.go","old_string":"\"hello\"","new_string":"\"HELLO\""}`})
		}
		return llmtest.Text("Done.")
	})
	r := runScript(t, "run_approve.lua", options{env: modelEnv(srv), files: map[string]string{"greet.go": greetGo}})
	if got := r.str(t, "plan_status"); got != "finished" {
		t.Fatalf("plan run %q", got)
	}
	if got := r.str(t, "plan_mode"); got != "plan" {
		t.Errorf("plan run mode %q", got)
	}
	if got := r.str(t, "second_status"); got != "finished" {
		t.Errorf("carry-out run %q", got)
	}
	if !r.boolean(t, "same_session") {
		t.Error("the carry-out run is not in the plan's session")
	}
	var log []string
	r.fact(t, "log", &log)
	joined := strings.Join(log, "\n")
	for _, w := range []string{"PLAN: 1. return HELLO in greet.go", "plan ready: :AgentApprove", "carrying out plan", "→ edit_file", "✎ proposal for"} {
		if !strings.Contains(joined, w) {
			t.Errorf("run log lacks %q:\n%s", w, joined)
		}
	}
	cmds := byMethod(readWire(t, r.str(t, "wire")), "workspace/executeCommand")
	if len(cmds) < 2 || !strings.Contains(string(cmds[0].Params), `"mode":"plan"`) || !strings.Contains(string(cmds[1].Params), `"command":"agentls.approvePlan"`) {
		t.Errorf("executeCommand requests: %d, first %s", len(cmds), cmds[0].Params)
	}
}
