package agent

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentls/agentls/agent/config"
	"github.com/agentls/agentls/agent/llm"
	"github.com/agentls/agentls/internal/testwait"
	"github.com/agentls/agentls/internal/workspace"
	"github.com/agentls/agentls/tools"
	"github.com/agentls/agentls/tools/lang"
	openai "github.com/sashabaranov/go-openai"
)

// agentOpts is newOpts with the loop's own tools on and a real workspace
// view over dir with the built-in tools, like the front-ends build a run.
func agentOpts(t *testing.T, m Model, log *eventLog, dir string) Options {
	t.Helper()
	view := workspace.New(workspace.Options{Folders: []string{dir}})
	policy := tools.Policy{}
	return Options{
		Model:    m,
		Registry: tools.NewRegistry(tools.Builtins(policy)...),
		Env:      tools.NewEnv("run1", view, nil, policy),
		Prompt:   "do the task",
		OnEvent:  log.on,
		Tokens:   NewCounter(),
	}
}

func mustWrite(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// isSub tells a sub-agent's request from the parent's by its system prompt.
func isSub(req llm.Request) bool {
	return len(req.Messages) > 0 && strings.HasPrefix(req.Messages[0].Content, "You are a sub-agent")
}

func lastToolResults(req llm.Request) []string {
	var out []string
	for _, m := range req.Messages {
		if m.Role == openai.ChatMessageRoleTool {
			out = append(out, m.Content)
		}
	}
	return out
}

func TestTodoWriteEmitsPlanEvents(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	log := &eventLog{}
	m := script(
		calls(call("c1", "todo_write", `{"todos":[{"content":"read main.go","status":"completed"},{"content":"update the tests","status":"in_progress"},{"content":"run vet","status":"pending"}]}`)),
		calls(call("c2", "todo_write", `{"todos":[{"content":"a","status":"in_progress"},{"content":"b","status":"in_progress"}]}`)),
		calls(call("c3", "todo_write", `{"todos":[{"content":"a","status":"later"}]}`)),
	)
	out := Run(context.Background(), agentOpts(t, m, log, t.TempDir()))
	if out.Status != StatusFinished {
		t.Fatalf("outcome = %+v", out)
	}
	log.check(t, "run1")
	var todos [][]Todo
	var results []Event
	for _, e := range log.all() {
		switch e.Kind {
		case EventTodo:
			todos = append(todos, e.Todos)
		case EventToolResult:
			results = append(results, e)
		}
	}
	if len(todos) != 1 || len(todos[0]) != 3 || todos[0][1] != (Todo{"update the tests", TodoInProgress}) {
		t.Fatalf("todo events = %+v (invalid plans must not be emitted)", todos)
	}
	if got := PlanProgress(todos[0]); got != "2/3 · update the tests" {
		t.Fatalf("progress = %q", got)
	}
	if len(results) != 3 || results[0].IsError || results[0].Summary != "2/3 · update the tests" {
		t.Fatalf("first result = %+v", results)
	}
	reqs := m.reqs()
	if r := lastToolResults(reqs[2]); !results[1].IsError || !strings.Contains(r[1], "2 items are in_progress; at most one") {
		t.Fatalf("two in_progress accepted: %q", r)
	}
	if r := lastToolResults(reqs[3]); !results[2].IsError || !strings.Contains(r[2], `status "later" must be pending, in_progress or completed`) {
		t.Fatalf("bad status accepted: %q", r)
	}
	names := toolNamesOf(reqs[0].Tools)
	if !slices.Contains(names, "todo_write") || !slices.Contains(names, "task") || slices.Contains(names, "skill") {
		t.Fatalf("tools offered = %v (skill only when there are skills)", names)
	}
}

func TestPlanIsRestatedAfterSummary(t *testing.T) {
	m := &fakeModel{step: func(_ context.Context, _ int, req llm.Request, d func(llm.Delta)) (llm.Response, error) {
		return reply(d, "SUMMARY OF WORK"), nil
	}}
	r, err := newRunner(newOpts(m, &eventLog{}))
	if err != nil {
		t.Fatal(err)
	}
	r.limits.KeepRecentRounds = 1
	r.todos.set([]Todo{{"rename the flag", TodoCompleted}, {"update the docs", TodoInProgress}})
	c := r.conv
	c.add(llm.Message{Role: "system", Content: "s"}, kindSystem, "")
	c.add(llm.Message{Role: "user", Content: "task"}, kindTask, "")
	for i := range 4 {
		c.add(llm.Message{Role: "assistant", Content: words("a", 50), ToolCalls: callsN(i, 1)}, kindNormal, "")
		c.add(llm.Message{Role: "tool", Content: words("r", 50), ToolCallID: fmt.Sprintf("c%d-0", i)}, kindNormal, "read")
	}
	if err := r.summarise(context.Background(), 100); err != nil {
		t.Fatal(err)
	}
	sum := r.conv.msgs[2].Content
	if !strings.HasPrefix(sum, summaryHeader) || !strings.Contains(sum, "SUMMARY OF WORK") ||
		!strings.Contains(sum, "## Current plan") || !strings.Contains(sum, "[x] rename the flag\n[~] update the docs") {
		t.Fatalf("summary message:\n%s", sum)
	}
}

// TestTaskSubAgentsRunInParallel: two task calls in one turn run at the
// same time (each sub-agent's first request waits for the other's), with
// read-only tools only, and their answers come back as the results.
func TestTaskSubAgentsRunInParallel(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	dir := t.TempDir()
	mustWrite(t, filepath.Join(dir, "a.go"), "package a\n\nfunc Alpha() {}\n")
	var arrived sync.WaitGroup
	arrived.Add(2)
	both := make(chan struct{})
	go func() { arrived.Wait(); close(both) }()
	var mu sync.Mutex
	subTools := map[string][]string{}
	firstSeen := map[string]bool{}
	m := &fakeModel{step: func(ctx context.Context, n int, req llm.Request, d func(llm.Delta)) (llm.Response, error) {
		if !isSub(req) {
			if len(lastToolResults(req)) == 0 {
				return reply(d, "",
					call("t1", "task", `{"description":"find alpha","prompt":"FIND-ALPHA"}`),
					call("t2", "task", `{"description":"find beta","prompt":"FIND-BETA"}`)), nil
			}
			return reply(d, "all done"), nil
		}
		task := req.Messages[1].Content
		mu.Lock()
		subTools[task] = toolNamesOf(req.Tools)
		first := !firstSeen[task]
		firstSeen[task] = true
		mu.Unlock()
		if first {
			arrived.Done()
			select {
			case <-both:
			case <-time.After(testwait.Limit):
				return llm.Response{}, fmt.Errorf("the other sub-agent never started: task calls ran one after the other")
			case <-ctx.Done():
				return llm.Response{}, ctx.Err()
			}
		}
		if task == "FIND-ALPHA" && len(lastToolResults(req)) == 0 {
			return reply(d, "", call("g1", "grep", `{"pattern":"func Alpha"}`)), nil
		}
		if task == "FIND-ALPHA" {
			return reply(d, "Alpha is at "+strings.TrimSpace(lastToolResults(req)[0])), nil
		}
		return reply(d, "no Beta anywhere"), nil
	}}
	log := &eventLog{}
	out := Run(context.Background(), agentOpts(t, m, log, dir))
	if out.Status != StatusFinished {
		t.Fatalf("outcome = %+v", out)
	}
	for task, names := range subTools {
		if !slices.Equal(names, []string{"glob", "grep", "list_dir", "read_file", "script"}) {
			t.Errorf("sub-agent %s was offered %v", task, names)
		}
	}
	if len(subTools) != 2 {
		t.Fatalf("sub-agents seen: %v", subTools)
	}
	var parentLast llm.Request
	for _, rq := range m.reqs() {
		if !isSub(rq) {
			parentLast = rq
		}
	}
	res := lastToolResults(parentLast)
	if len(res) != 2 || !strings.Contains(res[0], "Alpha is at a.go:3:func Alpha() {}") || res[1] != "no Beta anywhere" {
		t.Fatalf("task results = %q", res)
	}
	// Sub-agent events carry the parent's id and their own run ids.
	subRuns := map[string][]EventKind{}
	var parentEvents []Event
	for _, e := range log.all() {
		if e.ParentRunID == "" {
			parentEvents = append(parentEvents, e)
			continue
		}
		if e.ParentRunID != "run1" || e.RunID == "run1" {
			t.Fatalf("sub event %+v", e)
		}
		subRuns[e.RunID] = append(subRuns[e.RunID], e.Kind)
	}
	if len(subRuns) != 2 {
		t.Fatalf("sub runs = %v", subRuns)
	}
	for id, kinds := range subRuns {
		if kinds[0] != EventStarted || kinds[len(kinds)-1] != EventFinished {
			t.Fatalf("sub run %s events %v", id, kinds)
		}
	}
	for i, e := range parentEvents {
		if e.Seq != i+1 || e.RunID != "run1" {
			t.Fatalf("parent event %d = %+v", i, e)
		}
	}
}

func TestTaskTurnLimitGivesPartialFindings(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	m := &fakeModel{step: func(_ context.Context, n int, req llm.Request, d func(llm.Delta)) (llm.Response, error) {
		if isSub(req) {
			return reply(d, fmt.Sprintf("looked at dir %d", n), call(fmt.Sprint("s", n), "list_dir", fmt.Sprintf(`{"path":"d%d"}`, n))), nil
		}
		if len(lastToolResults(req)) == 0 {
			return reply(d, "", call("t1", "task", `{"description":"explore","prompt":"look everywhere"}`)), nil
		}
		return reply(d, "ok"), nil
	}}
	opts := agentOpts(t, m, &eventLog{}, t.TempDir())
	opts.Limits.TaskMaxTurns = 2
	opts.Limits.RepeatStopAt = -1
	opts.Limits.MaxConsecutiveToolErrors = -1
	if out := Run(context.Background(), opts); out.Status != StatusFinished {
		t.Fatalf("outcome = %+v", out)
	}
	reqs := m.reqs()
	res := lastToolResults(reqs[len(reqs)-1])
	if len(res) != 1 || !strings.Contains(res[0], "it used its 2 turns") || !strings.Contains(res[0], "partial findings") || !strings.Contains(res[0], "looked at dir 3") {
		t.Fatalf("partial result = %q", res)
	}
	subs := 0
	for _, rq := range reqs {
		if isSub(rq) {
			subs++
		}
	}
	if subs != 2 {
		t.Fatalf("sub-agent made %d model calls, limit 2", subs)
	}
}

// TestCancelParentStopsSubAgent: cancelling the parent mid-task ends the
// sub-agent's model call and the run (goleak in TestMain checks nothing is
// left running).
func TestCancelParentStopsSubAgent(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	inSub := make(chan struct{})
	m := &fakeModel{step: func(ctx context.Context, _ int, req llm.Request, d func(llm.Delta)) (llm.Response, error) {
		if isSub(req) {
			close(inSub)
			<-ctx.Done()
			return llm.Response{}, ctx.Err()
		}
		return reply(d, "", call("t1", "task", `{"description":"slow","prompt":"take forever"}`)), nil
	}}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		select {
		case <-inSub:
			cancel()
		case <-time.After(testwait.Limit):
		}
	}()
	log := &eventLog{}
	out := Run(ctx, agentOpts(t, m, log, t.TempDir()))
	if out.Status != StatusCancelled {
		t.Fatalf("outcome = %+v", out)
	}
	var subEnd EventKind = -1
	for _, e := range log.all() {
		if e.ParentRunID != "" && (e.Kind == EventCancelled || e.Kind == EventFailed || e.Kind == EventFinished) {
			subEnd = e.Kind
		}
	}
	if subEnd != EventCancelled {
		t.Fatalf("sub-agent ended with %v, want cancelled", subEnd)
	}
}

func TestSkillsListedLazilyAndLoadedOnDemand(t *testing.T) {
	cfg := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", cfg)
	dir := t.TempDir()
	mustWrite(t, filepath.Join(dir, ".agentls/skills/deploy/SKILL.md"), "---\nname: deploy\ndescription: How to deploy this service to staging.\n---\n# Deploy\nDEPLOY-BODY-STEPS: run make release, see checklist.md.\n")
	mustWrite(t, filepath.Join(dir, ".agentls/skills/deploy/checklist.md"), "1. tag\n2. push\n")
	mustWrite(t, filepath.Join(dir, ".agentls/skills/broken/SKILL.md"), "---\nname: broken\n---\nno description\n")
	mustWrite(t, filepath.Join(dir, ".agentls/skills/review/SKILL.md"), "---\nname: review\ndescription: The repository's review steps.\n---\nREPO-REVIEW-BODY\n")
	userSkill := filepath.Join(cfg, "agentls/skills/review")
	mustWrite(t, filepath.Join(userSkill, "SKILL.md"), "---\nname: review\ndescription: My own code review checklist.\n---\nUSER-REVIEW-BODY, see notes.txt\n")
	mustWrite(t, filepath.Join(userSkill, "notes.txt"), "USER-NOTES-CONTENT\n")
	outside := filepath.Join(cfg, "agentls/secret.txt")
	mustWrite(t, outside, "NOT-A-SKILL-FILE\n")

	var logs bytes.Buffer
	m := script(
		calls(call("c1", "skill", `{"name":"deploy"}`), call("c2", "skill", `{"name":"review"}`), call("c3", "skill", `{"name":"workspace:review"}`)),
		calls(call("c4", "read_file", fmt.Sprintf(`{"path":%q}`, filepath.Join(userSkill, "notes.txt"))),
			call("c5", "read_file", fmt.Sprintf(`{"path":%q}`, outside)),
			call("c6", "skill", `{"name":"nope"}`)),
	)
	opts := agentOpts(t, m, &eventLog{}, dir)
	opts.Logger = slog.New(slog.NewTextHandler(&logs, nil))
	if out := Run(context.Background(), opts); out.Status != StatusFinished {
		t.Fatalf("outcome = %+v", out)
	}
	reqs := m.reqs()
	sys := reqs[0].Messages[0].Content
	for _, want := range []string{"- deploy: How to deploy this service to staging.", "- review: My own code review checklist.", "- workspace:review: The repository's review steps. (a workspace skill also named \"review\"; your user skill of that name takes precedence)"} {
		if !strings.Contains(sys, want) {
			t.Errorf("system prompt lacks %q:\n%s", want, sys)
		}
	}
	if strings.Contains(sys, "DEPLOY-BODY-STEPS") || strings.Contains(sys, "broken") {
		t.Fatalf("system prompt holds a skill body or a broken skill:\n%s", sys)
	}
	if !slices.Contains(toolNamesOf(reqs[0].Tools), "skill") {
		t.Fatalf("skill tool not offered")
	}
	res := lastToolResults(reqs[1])
	if !strings.Contains(res[0], "DEPLOY-BODY-STEPS") || !strings.Contains(res[0], filepath.Join(".agentls/skills/deploy/checklist.md")) ||
		!strings.Contains(res[1], "USER-REVIEW-BODY") || !strings.Contains(res[2], "REPO-REVIEW-BODY") {
		t.Fatalf("skill results = %q", res)
	}
	res = lastToolResults(reqs[2])[3:]
	if !strings.Contains(res[0], "USER-NOTES-CONTENT") || strings.Contains(res[1], "NOT-A-SKILL-FILE") ||
		!strings.Contains(res[2], `no such skill "nope"; available: deploy, review, workspace:review`) {
		t.Fatalf("read/skill results = %q", res)
	}
	if !strings.Contains(logs.String(), filepath.Join(".agentls/skills/broken/SKILL.md")+": front matter has no description") {
		t.Fatalf("no warning naming the broken skill:\n%s", logs.String())
	}
}

func TestPlanModeOffersNoMutatingTools(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	m := script(func(d func(llm.Delta)) llm.Response { return reply(d, "1. change a.go") })
	opts := agentOpts(t, m, &eventLog{}, t.TempDir())
	opts.Registry = tools.NewRegistry(tools.Builtins(tools.Policy{RunCommand: "ask"})...)
	opts.Mode = ModePlan
	if out := Run(context.Background(), opts); out.Status != StatusFinished || out.Answer != "1. change a.go" {
		t.Fatalf("outcome = %+v", out)
	}
	req := m.reqs()[0]
	names := toolNamesOf(req.Tools)
	if !slices.Equal(names, []string{"glob", "grep", "list_dir", "read_file", "script", "task", "todo_write"}) {
		t.Fatalf("plan mode offers %v", names)
	}
	if !strings.Contains(req.Messages[0].Content, "Plan mode: you cannot edit files") {
		t.Fatalf("system prompt lacks the plan-mode rules")
	}
}

// TestFixedCostWithAgentTools keeps what every request pays (system prompt
// plus every tool definition, run_command, skill and script included, with
// their input examples) within fixedCostBudget tokens. go test ./agent -run
// FixedCost -v prints the figure.
func TestFixedCostWithAgentTools(t *testing.T) {
	const fixedCostBudget = 1800 // the budget of the toolbox and language-intelligence issues
	cfg := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", cfg)
	mustWrite(t, filepath.Join(cfg, "agentls/skills/x/SKILL.md"), "---\nname: x\ndescription: y\n---\nz\n")
	m := script(func(d func(llm.Delta)) llm.Response { return reply(d, "ok") })
	opts := agentOpts(t, m, &eventLog{}, t.TempDir())
	opts.Registry = tools.NewRegistry(tools.Builtins(tools.Policy{RunCommand: "ask"})...)
	opts.Now = func() time.Time { return day }
	Run(context.Background(), opts)
	req := m.reqs()[0]
	c := NewCounter()
	toolsTok := c.Tools(req.Tools)
	// The system prompt without the skills listing and the temp paths.
	sys := c.Count(buildSystemPrompt(mapView{folders: []string{"/home/user/src/project"}}, day))
	t.Logf("%d tools: %d tokens; system prompt %d; total %d (budget %d)", len(req.Tools), toolsTok, sys, toolsTok+sys, fixedCostBudget)
	if len(req.Tools) != 13 {
		t.Fatalf("tools = %v", toolNamesOf(req.Tools))
	}
	if toolsTok+sys > fixedCostBudget {
		t.Fatalf("fixed cost %d tokens, budget %d", toolsTok+sys, fixedCostBudget)
	}
	b, _ := json.Marshal(req.Tools)
	if len(b) == 0 {
		t.Fatal("no tools")
	}
}

// TestSubAgentTranscriptIsPartOfTheParents: a sub-agent's records go into
// the parent's transcript, tagged with both run ids.
func TestSubAgentTranscriptIsPartOfTheParents(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	m := &fakeModel{step: func(_ context.Context, _ int, req llm.Request, d func(llm.Delta)) (llm.Response, error) {
		if isSub(req) {
			return reply(d, "SUB-ANSWER"), nil
		}
		if len(lastToolResults(req)) == 0 {
			return reply(d, "", call("t1", "task", `{"description":"look","prompt":"SUB-TASK"}`)), nil
		}
		return reply(d, "done"), nil
	}}
	dir := t.TempDir()
	tr, err := OpenTranscript(dir, "run1", nil)
	if err != nil {
		t.Fatal(err)
	}
	opts := agentOpts(t, m, &eventLog{}, t.TempDir())
	opts.Transcript = tr
	if out := Run(context.Background(), opts); out.Status != StatusFinished {
		t.Fatalf("outcome = %+v", out)
	}
	if err := tr.Close(); err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	if len(files) != 1 {
		t.Fatalf("transcripts: %v", files)
	}
	b, _ := os.ReadFile(files[0])
	var subRecords int
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var rec map[string]any
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatalf("bad line %q: %v", line, err)
		}
		if rec["subRunId"] != nil {
			subRecords++
			if rec["parentRunId"] != "run1" {
				t.Fatalf("sub record without the parent's id: %v", rec)
			}
		}
	}
	if subRecords < 3 || !strings.Contains(string(b), "SUB-TASK") || !strings.Contains(string(b), "SUB-ANSWER") {
		t.Fatalf("%d sub-agent records in the transcript:\n%s", subRecords, b)
	}
}

// TestInputExamplesMatchSchemas: the input examples written into tool
// descriptions ("E.g. {...}") are valid JSON objects that name only the
// tool's parameters and give every required one, so an example can never
// teach the model a call its schema refuses.
func TestInputExamplesMatchSchemas(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	m := script(func(d func(llm.Delta)) llm.Response { return reply(d, "ok") })
	opts := agentOpts(t, m, &eventLog{}, t.TempDir())
	opts.Registry = tools.NewRegistry(tools.Builtins(tools.Policy{RunCommand: "ask"})...)
	Run(context.Background(), opts)
	with := map[string]bool{}
	for _, d := range m.reqs()[0].Tools {
		_, ex, ok := strings.Cut(d.Description, "E.g. ")
		if !ok {
			continue
		}
		ex, _, _ = strings.Cut(ex, "\n")
		var args map[string]json.RawMessage
		if err := json.Unmarshal([]byte(ex), &args); err != nil {
			t.Errorf("%s: example is not a JSON object: %v", d.Name, err)
			continue
		}
		var schema struct {
			Properties map[string]struct {
				Type any `json:"type"`
			} `json:"properties"`
		}
		if err := json.Unmarshal(d.Parameters, &schema); err != nil {
			t.Fatal(err)
		}
		for k := range args {
			if _, ok := schema.Properties[k]; !ok {
				t.Errorf("%s: example names %q, not a parameter", d.Name, k)
			}
		}
		for k, p := range schema.Properties {
			if s, ok := p.Type.(string); ok && s != "null" {
				if _, given := args[k]; !given {
					t.Errorf("%s: example lacks required %q", d.Name, k)
				}
			}
		}
		with[d.Name] = true
	}
	for _, n := range []string{"edit_file", "multi_edit", "grep", "glob", "todo_write", "script"} {
		if !with[n] {
			t.Errorf("%s has no input example", n)
		}
	}
}

// TestFixedCostWithLanguageServer: with a language server serving the
// workspace, what every request pays grows by the five language tools
// (offered from the first request: they are the agent's instruments) and
// one rule of the system prompt, and stays within the fixed-cost budget
// plus languageToolsAllowance (docs/performance.md, "Language servers").
func TestFixedCostWithLanguageServer(t *testing.T) {
	// 1,800 for the loop's own tools and prompt, as without a language
	// server, plus what the language tools and their rule may add: 432
	// tokens of definitions and 38 of rule measured (2026-11-28), which
	// the headroom of the first 1,800 partly absorbs.
	const languageToolsAllowance = 450
	const fixedCostBudget = 1800 + languageToolsAllowance
	cfgDir := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", cfgDir)
	mustWrite(t, filepath.Join(cfgDir, "agentls/skills/x/SKILL.md"), "---\nname: x\ndescription: y\n---\nz\n")
	dir := t.TempDir()
	mustWrite(t, filepath.Join(dir, "main.go"), "package main\n")
	m := script(func(d func(llm.Delta)) llm.Response { return reply(d, "ok") })
	lm := lang.NewManager(lang.Options{Servers: []lang.ServerConfig{{Name: "gopls", Command: []string{"gopls"}, Extensions: []string{".go"}}}})
	defer lm.Close()
	cfg := config.Defaults()
	cfg.Tools.RunCommand = "ask"
	run, err := NewSession("").Prepare(context.Background(), Setup{Config: cfg, View: workspace.New(workspace.Options{Folders: []string{dir}}), TranscriptDir: NoTranscript, Model: m, Lang: lm}, RunRequest{Prompt: "x"})
	if err != nil {
		t.Fatal(err)
	}
	run.Execute(context.Background())
	req := m.reqs()[0]
	c := NewCounter()
	toolsTok := c.Tools(req.Tools)
	sys := c.Count(buildSystemPromptCore(systemPromptCore+languageRule, mapView{folders: []string{"/home/user/src/project"}}, day, ""))
	if !strings.Contains(req.Messages[0].Content, strings.TrimPrefix(languageRule, "\n")) {
		t.Fatal("the system prompt lacks the language rule")
	}
	names := toolNamesOf(req.Tools)
	if slices.Contains(names, "tool_search") || len(req.Tools) != 18 {
		t.Fatalf("tools = %v", names)
	}
	for _, n := range []string{"diagnostics", "definition", "references", "symbols", "rename"} {
		if !slices.Contains(names, n) {
			t.Fatalf("%s is not offered: %v", n, names)
		}
	}
	t.Logf("%d tools: %d tokens; system prompt %d; total %d (budget %d)", len(req.Tools), toolsTok, sys, toolsTok+sys, fixedCostBudget)
	if toolsTok+sys > fixedCostBudget {
		t.Fatalf("fixed cost with a language server %d tokens, budget %d", toolsTok+sys, fixedCostBudget)
	}
}

// TestFixedCostOfSubAgent: what every request of a sub-agent pays (its
// system prompt and tools: the read-only built-ins, script, skill, and
// the read-only language tools) stays within 1,800 tokens, the budget of
// its parent without a language server.
func TestFixedCostOfSubAgent(t *testing.T) {
	const fixedCostBudget = 1800
	cfgDir := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", cfgDir)
	mustWrite(t, filepath.Join(cfgDir, "agentls/skills/x/SKILL.md"), "---\nname: x\ndescription: y\n---\nz\n")
	dir := t.TempDir()
	mustWrite(t, filepath.Join(dir, "main.go"), "package main\n")
	m := &fakeModel{step: func(_ context.Context, _ int, req llm.Request, d func(llm.Delta)) (llm.Response, error) {
		if isSub(req) || len(lastToolResults(req)) > 0 {
			return reply(d, "ok"), nil
		}
		return reply(d, "", call("t1", "task", `{"description":"look","prompt":"look around"}`)), nil
	}}
	lm := lang.NewManager(lang.Options{Servers: []lang.ServerConfig{{Name: "gopls", Command: []string{"gopls"}, Extensions: []string{".go"}}}})
	defer lm.Close()
	cfg := config.Defaults()
	cfg.Tools.RunCommand = "ask"
	run, err := NewSession("").Prepare(context.Background(), Setup{Config: cfg, View: workspace.New(workspace.Options{Folders: []string{dir}}), TranscriptDir: NoTranscript, Model: m, Lang: lm}, RunRequest{Prompt: "x"})
	if err != nil {
		t.Fatal(err)
	}
	if out := run.Execute(context.Background()); out.Status != StatusFinished {
		t.Fatalf("outcome %+v", out)
	}
	var sub llm.Request
	for _, rq := range m.reqs() {
		if isSub(rq) {
			sub = rq
		}
	}
	names := toolNamesOf(sub.Tools)
	if !slices.Equal(names, []string{"definition", "diagnostics", "glob", "grep", "list_dir", "read_file", "references", "script", "skill", "symbols"}) {
		t.Fatalf("sub-agent tools = %v", names)
	}
	c := NewCounter()
	toolsTok := c.Tools(sub.Tools)
	sys := c.Count(buildSystemPromptCore(taskSystemCore+taskLanguageRule, mapView{folders: []string{"/home/user/src/project"}}, day, ""))
	t.Logf("sub-agent: %d tools: %d tokens; system prompt %d; total %d (budget %d)", len(sub.Tools), toolsTok, sys, toolsTok+sys, fixedCostBudget)
	if toolsTok+sys > fixedCostBudget {
		t.Fatalf("sub-agent fixed cost %d tokens, budget %d", toolsTok+sys, fixedCostBudget)
	}
}
