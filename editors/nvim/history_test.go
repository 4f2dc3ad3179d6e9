package nvim_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/agentls/agentls/agent/llm/llmtest"
)

const otherGo = "package main\n\nfunc bye() string {\n\treturn \"bye\"\n}\n"

// historyModel reads greet.go and other.go, then in one turn edits both and
// other.go and creates NOTES.md, then answers; asked what happened, it
// answers at once. Every call reports 1,000 prompt tokens (400 cached)
// and 50 completion tokens.
func historyModel(req *llmtest.ChatRequest) llmtest.Reply {
	reply := func() llmtest.Reply {
		switch {
		case strings.Contains(req.LastUser(), "what happened to my files?"):
			return llmtest.Text("You reverted my changes.")
		case !req.HasToolResult("read"):
			return llmtest.ToolCalls(llmtest.Call{ID: "read", Name: "read_file", Args: `{"path":"greet.go"}`},
				llmtest.Call{ID: "read2", Name: "read_file", Args: `{"path":"other.go"}`})
		case !req.HasToolResult("e1"):
			return llmtest.ToolCalls(
				llmtest.Call{ID: "e1", Name: "edit_file", Args: `{"path":"greet.go","old_string":"\"hello\"","new_string":"\"HELLO\""}`},
				llmtest.Call{ID: "e2", Name: "edit_file", Args: `{"path":"other.go","old_string":"\"bye\"","new_string":"\"BYE\""}`},
				llmtest.Call{ID: "w1", Name: "write_file", Args: `{"path":"NOTES.md","content":"shouted\n"}`})
		}
		return llmtest.Text("Shouted in both files.")
	}()
	return reply.CachedUsage(1000, 400, 50)
}

// TestRunRevert is issue 23's "done when" in Neovim: a two-file run (and
// a new file) accepted and then reverted with :AgentRevert restores both
// buffers through workspace/applyEdit, deletes the new file, and `u`
// brings the accepted text back; the run picked its model with
// :AgentModel and the follow-up kept it (the model server saw it, the
// follow-up's agentls.run did not send it again); the run log and the
// statusline show tokens and cost (model.pricing); :AgentReport opens the
// report with the system opener, once.
func TestRunRevert(t *testing.T) {
	t.Parallel()
	srv := llmtest.New(t, historyModel, llmtest.WithModels(`{"object":"list","data":[{"id":"endpoint-model"}]}`))
	env := modelEnv(srv)
	r := runScript(t, "run_revert.lua", options{
		env:   env,
		files: map[string]string{"greet.go": greetGo, "other.go": otherGo},
		setup: func(ws, dir string) {
			// The system opener: a fake xdg-open first on PATH, which notes
			// what it was asked to open.
			bin := filepath.Join(dir, "bin")
			opened := filepath.Join(dir, "opened.txt")
			if err := os.MkdirAll(bin, 0o755); err != nil {
				t.Fatal(err)
			}
			script := "#!/bin/sh\nprintf '%s\\n' \"$1\" >> '" + opened + "'\n"
			if err := os.WriteFile(filepath.Join(bin, "xdg-open"), []byte(script), 0o755); err != nil {
				t.Fatal(err)
			}
			env["PATH"] = bin + string(os.PathListSeparator) + os.Getenv("PATH")
		},
	})

	// The picker listed the configured model, model.choices and the
	// endpoint's models; the pick went to the run, and the follow-up kept
	// it on the server.
	var offered []string
	r.fact(t, "models_offered", &offered)
	if strings.Join(offered, "|") != "test-model (configured)|picked-model|endpoint-model" {
		t.Errorf("models offered = %q", offered)
	}
	if p := r.str(t, "models_prompt"); !strings.Contains(p, "now: test-model") {
		t.Errorf("picker prompt %q does not name the current model", p)
	}
	if got := r.str(t, "first_model"); got != "picked-model" {
		t.Errorf("the run's model = %q", got)
	}
	reqs := srv.Requests()
	if len(reqs) != 4 {
		t.Fatalf("%d model requests, want 3 for the run and 1 for the follow-up", len(reqs))
	}
	for i, req := range reqs {
		if req.Model != "picked-model" {
			t.Errorf("model request %d used model %q, want picked-model", i+1, req.Model)
		}
	}
	runs := byMethod(readWire(t, r.str(t, "wire")), "workspace/executeCommand")
	var runArgs []map[string]any
	for _, m := range runs {
		var p struct {
			Command   string           `json:"command"`
			Arguments []map[string]any `json:"arguments"`
		}
		if err := json.Unmarshal(m.Params, &p); err != nil {
			t.Fatal(err)
		}
		if p.Command == "agentls.run" {
			runArgs = append(runArgs, p.Arguments[0])
		}
	}
	if len(runArgs) != 2 || runArgs[0]["model"] != "picked-model" || runArgs[1]["model"] != nil || runArgs[1]["sessionId"] == nil {
		t.Errorf("agentls.run arguments = %v, want the model on the first only and the session on the follow-up", runArgs)
	}
	if !r.boolean(t, "same_session") || r.str(t, "second_status") != "finished" {
		t.Error("the follow-up did not finish in the run's session")
	}
	if last := reqs[len(reqs)-1]; !last.Contains("The user reverted the changes of run " + r.str(t, "first_id")) {
		t.Error("the follow-up was not told about the revert")
	}

	// Accept, revert, undo.
	wantGreet := strings.TrimSuffix(greetGo, "\n")
	wantOther := strings.TrimSuffix(otherGo, "\n")
	acceptedGreet := strings.Replace(wantGreet, `"hello"`, `"HELLO"`, 1)
	acceptedOther := strings.Replace(wantOther, `"bye"`, `"BYE"`, 1)
	for key, want := range map[string]string{
		"greet_accepted": acceptedGreet, "other_accepted": acceptedOther,
		"greet_reverted": wantGreet, "other_reverted": wantOther,
		"greet_undone": acceptedGreet, "other_undone": acceptedOther,
		"greet_redone": wantGreet,
	} {
		if got := r.str(t, key); got != want {
			t.Errorf("%s:\n%s\nwant:\n%s", key, got, want)
		}
	}
	if b, c := r.boolean(t, "notes_on_disk_after_revert"), r.boolean(t, "notes_buffer_after_revert"); b || c {
		t.Errorf("NOTES.md after the revert: on disk %v, a buffer %v; want neither", b, c)
	}
	var again struct {
		Reverted  int   `json:"reverted"`
		Conflicts []any `json:"conflicts"`
		Note      string
	}
	r.fact(t, "second_revert", &again)
	if again.Reverted != 0 || !strings.Contains(again.Note, "already reverted") {
		t.Errorf("second revert = %+v", again)
	}

	// Tokens and cost: 3 calls of 1,000 in (400 cached) / 50 out, each
	// (600×2 + 400×0.5 + 50×8)/1e6 = $0.0018.
	var log []string
	r.fact(t, "log", &log)
	joined := strings.Join(log, "\n")
	id := r.str(t, "first_id")
	if n := strings.Count(joined, "Shouted in both files."); n != 1 {
		t.Errorf("the streamed answer shows %d times in the run log, want once:\n%s", n, joined)
	}
	for _, want := range []string{
		"[" + id + "] (model picked-model) shout and take notes",
		"  Σ turn 1: 1,000 tokens in (400 cached) / 50 out · $0.0018",
		"  Σ turn 3: 1,000 tokens in (400 cached) / 50 out · $0.0018",
		"  ↳ 3,000 tokens in (1,200 cached) / 150 out · $0.0054 · :AgentReport " + id + " · :AgentRevert " + id,
		"[" + id + "] reverted: 3 files",
		"  Σ session ",
		": 4,200 tokens · $0.0072 over 2 runs",
		"] report: ",
	} {
		if !strings.Contains(joined, want) {
			t.Errorf("run log lacks %q:\n%s", want, joined)
		}
	}
	var statuses []string
	r.fact(t, "statuses_running", &statuses)
	if !slices.Contains(statuses, "agent: 1 running · 1.1k tok · $0.0018") || !slices.Contains(statuses, "agent: 1 running · 2.1k tok · $0.0036") {
		t.Errorf("statusline while running = %q, want the run's tokens and cost after each call", statuses)
	}
	if got := r.str(t, "status_after"); got != "agent: last run 3.1k tok · $0.0054" {
		t.Errorf("statusline after the run = %q", got)
	}

	if got := r.str(t, "log_key_revert"); !strings.Contains(got, "already reverted") {
		t.Errorf("R in the run log: %q, want the run's second revert (already reverted)", got)
	}
	// :AgentRuns listed both runs (newest first, with tokens and cost) and
	// the session with its totals, then the run's actions.
	var listed [][]string
	r.fact(t, "runs_listed", &listed)
	second := r.str(t, "second_id")
	// Each run row has its id and start time (HH:MM), so runs of the same
	// task are told apart.
	runRow := func(id, rest string) *regexp.Regexp {
		return regexp.MustCompile(`^\[` + regexp.QuoteMeta(id) + `\] · \d\d:\d\d · ` + regexp.QuoteMeta(rest) + `$`)
	}
	if len(listed) != 2 || len(listed[0]) != 3 ||
		!runRow(second, "finished · 1.1k tok · $0.0018 · picked-model · what happened to my files?").MatchString(listed[0][0]) ||
		!runRow(id, "finished · 3.1k tok · $0.0054 · picked-model · shout and take notes").MatchString(listed[0][1]) ||
		!regexp.MustCompile(`^session \S+ · \d{4}-\d\d-\d\d \d\d:\d\d · `).MatchString(listed[0][2]) || !strings.Contains(listed[0][2], "4,200 tokens · $0.0072 over 2 runs · picked-model") ||
		strings.Join(listed[1], "|") != "Revert run|Open report|Show answer" {
		t.Errorf(":AgentRuns offered %q", listed)
	}

	// The reports: each opened once, with the system opener; the first
	// shows the run and its revert.
	lines := strings.Split(strings.TrimSpace(r.str(t, "opened")), "\n")
	if len(lines) != 2 || !strings.HasSuffix(lines[0], id+".html") || !strings.HasSuffix(lines[1], second+".html") {
		t.Fatalf("the opener was asked to open %q, want the run's report, then the follow-up's", lines)
	}
	// :AgentReport alone is the latest run's, although it changed nothing.
	if got := r.str(t, "bare_report"); got != second {
		t.Errorf(":AgentReport without a run id wrote the report of %s, want the latest run %s", got, second)
	}
	page, err := os.ReadFile(lines[0])
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"shout and take notes", "reverted"} {
		if !strings.Contains(string(page), want) {
			t.Errorf("the report lacks %q", want)
		}
	}
}

// TestRunRevertConflict: the user changed the run's line after accepting;
// :AgentRevert leaves it alone, and the plugin says which file and why in
// the run log, the quickfix list and a warning.
func TestRunRevertConflict(t *testing.T) {
	t.Parallel()
	srv := llmtest.New(t, readThenEdit("greet.go", "Made it loud.", [2]string{`"hello"`, `"HELLO"`}))
	r := runScript(t, "run_revert_conflict.lua", options{env: modelEnv(srv), files: map[string]string{"greet.go": greetGo}})
	var res struct {
		Reverted  int `json:"reverted"`
		Conflicts []struct {
			URI    string `json:"uri"`
			Reason string `json:"reason"`
		} `json:"conflicts"`
	}
	r.fact(t, "result", &res)
	if res.Reverted != 0 || len(res.Conflicts) != 1 || !strings.HasSuffix(res.Conflicts[0].URI, "/greet.go") {
		t.Fatalf("revert result = %+v, want greet.go left alone", res)
	}
	if got := r.str(t, "buffer"); !strings.Contains(got, `"HELLO, mine"`) {
		t.Errorf("the revert touched the user's line:\n%s", got)
	}
	var log []string
	r.fact(t, "log", &log)
	joined := strings.Join(log, "\n")
	if !strings.Contains(joined, "] reverted: 0 files") || !strings.Contains(joined, "  ✗ greet.go: left alone: "+res.Conflicts[0].Reason) {
		t.Errorf("run log lacks the conflict:\n%s", joined)
	}
	var qf []struct{ Bufname, Text string }
	r.fact(t, "qf", &qf)
	if len(qf) != 1 || !strings.HasSuffix(qf[0].Bufname, "greet.go") || qf[0].Text != "not reverted: "+res.Conflicts[0].Reason {
		t.Errorf("quickfix list = %+v", qf)
	}
	var warned bool
	for _, n := range r.Notifications {
		if n.Level == 3 && strings.Contains(n.Msg, "1 left alone: greet.go: ") {
			warned = true
		}
	}
	if !warned {
		t.Errorf("no warning naming greet.go: %+v", r.Notifications)
	}
}
