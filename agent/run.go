package agent

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"sort"
	"sync"
	"time"

	"github.com/agentls/agentls/agent/llm"
	"github.com/agentls/agentls/tools"
	"github.com/agentls/agentls/tools/lang"
	scripttool "github.com/agentls/agentls/tools/script"
	"github.com/agentls/agentls/tools/skills"
	openai "github.com/sashabaranov/go-openai"
)

// runner is the state of one run; it lives only inside Run.
type runner struct {
	opts       Options
	limits     Limits
	env        *tools.Env
	model      Model
	counter    *Counter
	events     *emitter
	transcript *Transcript
	log        *slog.Logger
	conv       *conversation
	repeats    *repeatTracker
	usage      llm.Usage
	turns      int
	toolCalls  int
	errTurns   int // consecutive turns in which every call failed
	role       runRole
	todos      plan   // the model's checklist (todo_write)
	lastText   string // latest non-empty model text, a sub-agent's partial findings
	usageMu    sync.Mutex
	own        []tools.Tool // the loop's own tools (tools), made on first use
	offeredMu  sync.Mutex
	offered    []tools.Tool // the tools of the latest model call (the script tool's functions)

	toolTokCache map[string]int // tool definition text → tokens

	stagedMu sync.Mutex
	staged   []string // paths the changeset reported since the last flush, in order

	ctx         context.Context     // the run's context (wall clock included), for background work it starts
	checks      []tools.CheckResult // latest result of each check (checks.go)
	checkRounds int                 // times failing checks sent the run back to the model

	userRules string      // the user's own AGENTS.md, read into the system prompt
	nested    nestedRules // nested AGENTS.md files already shown (nestedrules.go)
}

// Run executes one agent task and returns how it ended. It blocks until the
// model answers without tool calls, a limit is hit, or ctx is cancelled;
// every event is delivered to opts.OnEvent before Run returns, the last one
// being EventFinished, EventFailed or EventCancelled.
//
// Limits, all in opts.Limits (zero means the default):
//   - MaxTurns model calls; the run fails with ErrMaxTurns if the model
//     still wants tools after the last one.
//   - WallClock for the whole run (a context deadline: it interrupts the
//     model stream and running tools); ErrWallClock.
//   - TokenBudget over all model calls, from reported usage or counted
//     tokens when the server reports none; checked after every model call,
//     and ErrTokenBudget ends the run unless that call was the final answer.
//   - MaxConsecutiveToolErrors: a turn counts as failed when every tool
//     call in it returned an error; a turn with at least one success resets
//     the count. That many failed turns in a row end the run
//     (ErrToolErrors), so a batch of parallel lookups that all miss counts
//     once, not per call.
//   - RepeatWarnAt/RepeatStopAt: identical calls (name + canonical JSON
//     arguments) are counted over the run; the RepeatWarnAt-th gets a
//     warning appended to its result, the RepeatStopAt-th is not executed
//     and ends the run (ErrRepeatedCall). A successful mutating call resets
//     the counts from the next turn on, since re-reading after an edit is
//     progress.
func Run(ctx context.Context, opts Options) Outcome {
	holdTables()
	defer releaseTables()
	r, err := newRunner(opts)
	if err != nil {
		return Outcome{Status: StatusFailed, Err: err}
	}
	if r.env.Changes != nil {
		defer r.env.Changes.Subscribe(r.noteStaged)()
	}
	if lr, ok := r.env.Diagnoser.(interface{ OnStatus(func(lang.ServerStatus)) }); ok {
		lr.OnStatus(func(st lang.ServerStatus) { r.events.emit(langServerEvent(st)) })
	}
	out := r.run(ctx)
	r.between()
	if err := r.env.Proposal.Close(); err != nil { // the run's scratch copy goes with it
		r.log.Warn("proposal view not removed", "err", err)
	}
	return out
}

// noteStaged is the changeset subscriber: it only records the path (it
// runs inside the tool call that staged it); flushStaged reports it.
func (r *runner) noteStaged(path string) {
	r.stagedMu.Lock()
	if !slices.Contains(r.staged, path) {
		r.staged = append(r.staged, path)
	}
	r.stagedMu.Unlock()
}

func (r *runner) takeStaged() []string {
	r.stagedMu.Lock()
	defer r.stagedMu.Unlock()
	out := r.staged
	r.staged = nil
	return out
}

// flushStaged emits EventStaged for every path staged since the last
// flush. A consumer may change the changeset again while handling the
// event (apply mode marks the change applied), which is reported in the
// next round; the loop ends when a round stages nothing new.
func (r *runner) flushStaged() {
	for paths := r.takeStaged(); len(paths) > 0; paths = r.takeStaged() {
		if r.willCheck() {
			// Checks will run on the proposal: make its copy while the
			// model works, not when the checks are due.
			r.env.Proposal.Prewarm(r.ctx)
		}
		for _, p := range paths {
			f, ok := r.env.Changes.Get(p)
			if !ok {
				f = tools.StagedFile{Path: p}
			}
			rel := r.env.Rel(p)
			r.transcript.record("staged", map[string]any{"path": rel, "created": f.Created, "pending": f.Pending(), "diff": f.Unified(rel)})
			r.events.emit(Event{Kind: EventStaged, Path: p, Staged: f})
		}
	}
}

// between runs Options.Between at a step boundary; what it changes in the
// changeset is the caller's own doing and is not reported back to it.
func (r *runner) between() {
	if r.opts.Between == nil {
		return
	}
	r.flushStaged()
	r.opts.Between()
	r.takeStaged()
}

func newRunner(opts Options) (*runner, error) {
	if opts.Model == nil {
		return nil, fmt.Errorf("%w: no model", ErrOptions)
	}
	if opts.Env == nil {
		return nil, fmt.Errorf("%w: no tool environment", ErrOptions)
	}
	if opts.Registry == nil && opts.ToolsForTurn == nil {
		opts.Registry = tools.NewRegistry()
	}
	r := &runner{
		opts:       opts,
		limits:     opts.Limits.withDefaults(),
		env:        opts.Env,
		model:      opts.Model,
		counter:    opts.Tokens,
		transcript: opts.Transcript,
		log:        opts.Logger,
		repeats:    newRepeatTracker(),

		toolTokCache: map[string]int{},
	}
	if r.env.RunID == "" {
		r.env.RunID = NewRunID()
	}
	if r.opts.ScriptSlots == nil {
		r.opts.ScriptSlots = scripttool.NewSlots(0)
	}
	if r.counter == nil {
		r.counter = NewCounter()
	}
	if r.log == nil {
		r.log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	r.events = &emitter{runID: r.env.RunID, fn: opts.OnEvent}
	r.conv = newConversation(r.counter)
	return r, nil
}

// runRole tells a top-level run from a sub-agent started by the task tool.
type runRole int

const (
	roleMain runRole = iota
	roleTask
)

// baseTools are the tools the caller supplies (registry or ToolsForTurn).
func (r *runner) baseTools() []tools.Tool {
	if r.opts.ToolsForTurn != nil {
		return r.opts.ToolsForTurn()
	}
	return r.opts.Registry.List()
}

// tools is what the model is offered this turn: the caller's tools plus
// the loop's own (todo_write, task, script, and skill when there are
// skills). A planning run keeps only read-only tools. A sub-agent's list
// is already filtered (subAgentTools); it adds its own script tool, whose
// functions are the sub-agent's tools of the turn.
func (r *runner) tools() []tools.Tool {
	base := r.baseTools()
	if r.role == roleTask {
		if r.own == nil {
			r.own = []tools.Tool{r.scriptTool()}
		}
		return sortTools(append(slices.Clone(base), r.own...))
	}
	if r.opts.NoAgentTools {
		return base
	}
	out := make([]tools.Tool, 0, len(base)+3)
	seen := map[string]bool{}
	for _, t := range base {
		if r.opts.Mode == ModePlan && !t.ReadOnly() {
			continue
		}
		out = append(out, t)
		seen[t.Name()] = true
	}
	if r.own == nil { // built once: their schemas come from reflection
		r.own = []tools.Tool{r.todoWriteTool(), r.taskTool(), r.scriptTool()}
		if r.env.Skills.Len() > 0 {
			r.own = append(r.own, tools.Skill())
		}
	}
	for _, t := range r.own {
		if !seen[t.Name()] {
			out = append(out, t)
		}
	}
	return sortTools(out)
}

// sortTools sorts by name, so requests are byte-stable across turns.
func sortTools(ts []tools.Tool) []tools.Tool {
	sort.Slice(ts, func(i, j int) bool { return ts[i].Name() < ts[j].Name() })
	return ts
}

func (r *runner) usageTotal() int {
	r.usageMu.Lock()
	defer r.usageMu.Unlock()
	return r.usage.TotalTokens
}

// addUsage adds a sub-agent's usage to the run's (sub-agents of one turn
// finish concurrently).
func (r *runner) addUsage(u llm.Usage) {
	r.usageMu.Lock()
	defer r.usageMu.Unlock()
	r.usage.PromptTokens += u.PromptTokens
	r.usage.CompletionTokens += u.CompletionTokens
	r.usage.TotalTokens += u.TotalTokens
	r.usage.CachedTokens += u.CachedTokens
}

// usageRecord is a usage as transcripts hold it (the report reads
// costUSD next to the counts).
func usageRecord(u llm.Usage, cost *float64) map[string]any {
	m := map[string]any{"promptTokens": u.PromptTokens, "completionTokens": u.CompletionTokens, "totalTokens": u.TotalTokens}
	if u.CachedTokens > 0 {
		m["cachedTokens"] = u.CachedTokens
	}
	if cost != nil {
		m["costUSD"] = *cost
	}
	return m
}

// cost prices a usage with the run's pricing (nil without one).
func (r *runner) cost(u llm.Usage) *float64 {
	return r.opts.Pricing.Cost(u.PromptTokens, u.CachedTokens, u.CompletionTokens)
}

// totalUsage is the run's usage so far (sub-agents included).
func (r *runner) totalUsage() llm.Usage {
	r.usageMu.Lock()
	defer r.usageMu.Unlock()
	return r.usage
}

func toolDefs(ts []tools.Tool) []llm.ToolDef {
	defs := make([]llm.ToolDef, len(ts))
	for i, t := range ts {
		defs[i] = llm.ToolDef{Name: t.Name(), Description: t.Description(), Parameters: t.Schema()}
	}
	return defs
}

func (r *runner) run(parent context.Context) Outcome {
	ctx, cancel := parent, context.CancelFunc(func() {})
	if r.limits.WallClock > 0 {
		ctx, cancel = context.WithTimeoutCause(parent, r.limits.WallClock, ErrWallClock)
	}
	defer cancel()
	r.ctx = ctx

	now := time.Now
	if r.opts.Now != nil {
		now = r.opts.Now
	}
	var view workspaceReader
	var folders []string
	if r.env.View != nil {
		view = r.env.View
		folders = view.Folders()
	}
	if r.env.Skills == nil && r.role == roleMain {
		r.env.Skills = skills.Discover(skills.UserDir(r.opts.Getenv), folders)
		for _, w := range r.env.Skills.Warnings {
			r.log.Warn(w)
			r.transcript.record("warning", map[string]any{"warning": w})
		}
	}
	r.userRules = UserRulesPath(r.opts.Getenv)
	system := r.systemPrompt(view, now())
	task := buildTaskMessage(r.opts.Prompt, r.opts.Editor, folders)
	r.conv.add(llm.Message{Role: openai.ChatMessageRoleSystem, Content: system}, kindSystem, "")
	for _, h := range r.opts.History {
		r.conv.add(h.Message, h.kind(), toolName(h.Message, r.opts.History))
	}
	if r.opts.Followup != "" {
		task = r.opts.Followup + "\n\n## Your new task\n" + task
	}
	r.conv.add(llm.Message{Role: openai.ChatMessageRoleUser, Content: task}, kindTask, "")
	r.events.emit(Event{Kind: EventStarted, Text: r.opts.Prompt})
	r.transcript.record("start", map[string]any{"runId": r.env.RunID, "limits": r.limits, "system": system, "task": task})

	for {
		if err := ctx.Err(); err != nil {
			return r.stopped(ctx, err)
		}
		if r.turns >= r.limits.MaxTurns {
			return r.fail(fmt.Errorf("%w: the model still wanted tools after %d turns", ErrMaxTurns, r.turns))
		}
		r.between()
		available := r.tools()
		r.offeredMu.Lock()
		r.offered = available
		r.offeredMu.Unlock()
		defs := toolDefs(available)
		if err := r.compact(ctx, defs); err != nil {
			return r.stopped(ctx, err)
		}
		r.turns++
		resp, err := r.callModel(ctx, llm.Request{Messages: r.conv.snapshot(), Tools: defs}, len(available))
		if err != nil {
			return r.stopped(ctx, err)
		}
		if resp.Text != "" {
			r.lastText = resp.Text
		}
		calls := normaliseCalls(r.turns, resp.ToolCalls)
		made := len(calls)
		if limit := r.limits.MaxToolCallsPerTurn; limit > 0 && made > limit+1 {
			// The conversation keeps the calls that run plus one that
			// carries the error for all the rest: 20,000 calls answered
			// one by one would flood the context window.
			calls = calls[:limit+1]
		}
		r.conv.add(assistantMessage(resp, calls), kindNormal, "")
		if len(calls) == 0 {
			again, err := r.runChecks(ctx)
			if err != nil {
				return r.stopped(ctx, err)
			}
			if again {
				continue
			}
			return r.finish(resp.Text)
		}
		if used := r.usageTotal(); r.limits.TokenBudget > 0 && used >= r.limits.TokenBudget {
			return r.fail(fmt.Errorf("%w: %d of %d tokens used after %d turns", ErrTokenBudget, used, r.limits.TokenBudget, r.turns))
		}
		planned := r.plan(calls, available)
		r.capCalls(planned, made)
		for i := range planned {
			if planned[i].skipped {
				continue
			}
			planned[i].repeat = r.repeats.see(calls[i].Name, calls[i].Args)
			if r.limits.RepeatStopAt > 0 && planned[i].repeat >= r.limits.RepeatStopAt {
				return r.fail(fmt.Errorf("%w: %s was called %d times with the same arguments %s", ErrRepeatedCall, calls[i].Name, planned[i].repeat, quoteCut(calls[i].Args, 200)))
			}
		}
		results := r.execTurn(ctx, planned)
		r.toolCalls += len(results)
		if err := ctx.Err(); err != nil {
			return r.stopped(ctx, err)
		}
		if err := r.afterTools(results); err != nil {
			return r.fail(err)
		}
	}
}

// afterTools appends the results in call order and applies the error and
// repeat bookkeeping.
func (r *runner) afterTools(results []callResult) error {
	allFailed, mutated := true, false
	var lastErr string
	for _, res := range results {
		r.conv.add(llm.Message{Role: openai.ChatMessageRoleTool, Content: res.text, ToolCallID: res.call.ID}, kindNormal, res.call.Name)
		if res.isError {
			lastErr = res.call.Name + ": " + firstLine(res.text, 200)
		} else {
			allFailed = false
		}
		mutated = mutated || res.mutated
	}
	if mutated {
		r.repeats.reset()
	}
	if !allFailed {
		r.errTurns = 0
		return nil
	}
	r.errTurns++
	if max := r.limits.MaxConsecutiveToolErrors; max > 0 && r.errTurns >= max {
		return fmt.Errorf("%w: every tool call failed in %d turns in a row (last: %s)", ErrToolErrors, r.errTurns, lastErr)
	}
	return nil
}

// callModel makes one streaming call, forwards text deltas as events and
// accounts usage.
func (r *runner) callModel(ctx context.Context, req llm.Request, nTools int) (llm.Response, error) {
	r.transcript.record("request", map[string]any{"turn": r.turns, "messages": len(req.Messages), "tools": nTools, "maxTokens": r.conv.upperBound() + toolBytes(req.Tools)})
	resp, err := r.model.Stream(ctx, req, func(d llm.Delta) {
		switch d.Kind {
		case llm.DeltaText:
			if d.Text != "" {
				r.events.emit(Event{Kind: EventText, Text: d.Text})
			}
		case llm.DeltaRetry:
			r.log.Info("model retry", "reason", d.Text)
			r.transcript.record("retry", map[string]any{"turn": r.turns, "reason": d.Text})
		}
	})
	if err != nil {
		r.transcript.record("error", map[string]any{"where": "model", "turn": r.turns, "error": err.Error()})
		return resp, err
	}
	u := r.account(ctx, resp, func() int { return r.conv.tokens() + r.toolTokens(req.Tools) })
	calls := make([]map[string]any, len(resp.ToolCalls))
	for i, tc := range resp.ToolCalls {
		calls[i] = map[string]any{"id": tc.ID, "name": tc.Name, "args": tc.Args, "argsError": errString(tc.ArgsErr)}
	}
	r.transcript.record("response", map[string]any{"turn": r.turns, "text": resp.Text, "toolCalls": calls, "finishReason": resp.FinishReason, "usage": usageRecord(u, r.cost(u)), "usageReported": resp.UsageKnown})
	return resp, nil
}

// account adds a response's usage to the run total, counting tokens
// ourselves (promptTokens) when the server reported none. Counting stops
// when ctx ends (the run is ending; the usage is then a lower bound).
func (r *runner) account(ctx context.Context, resp llm.Response, promptTokens func() int) llm.Usage {
	u := resp.Usage
	if !resp.UsageKnown {
		u.PromptTokens = promptTokens()
		n, _ := r.counter.CountContext(ctx, resp.Text)
		u.CompletionTokens = n
		for _, tc := range resp.ToolCalls {
			n, _ := r.counter.CountContext(ctx, tc.Args)
			u.CompletionTokens += perMessage + r.counter.Count(tc.Name) + n
		}
		u.TotalTokens = 0
	}
	if u.TotalTokens == 0 {
		u.TotalTokens = u.PromptTokens + u.CompletionTokens
	}
	r.addUsage(u)
	r.events.emit(Event{Kind: EventUsage, Turn: r.turns, Usage: u, Estimated: !resp.UsageKnown, CostUSD: r.cost(u)})
	return u
}

func (r *runner) outcome(s Status) Outcome {
	u := r.totalUsage()
	return Outcome{RunID: r.env.RunID, Status: s, Turns: r.turns, ToolCalls: r.toolCalls, Usage: u, CostUSD: r.cost(u), History: r.history(), Checks: r.checks}
}

func (r *runner) finish(answer string) Outcome {
	o := r.outcome(StatusFinished)
	o.Answer = answer
	var outstanding *int
	if oc, ok := r.env.Diagnoser.(interface{ Outstanding() int }); ok && r.role == roleMain {
		o.Problems = oc.Outstanding()
		outstanding = &o.Problems
	}
	r.transcript.record("finish", map[string]any{"status": "finished", "answer": answer, "turns": r.turns, "toolCalls": r.toolCalls, "usage": usageRecord(o.Usage, o.CostUSD), "checks": r.checks, "problems": o.Problems})
	r.events.emit(Event{Kind: EventFinished, Text: answer, Usage: o.Usage, CostUSD: o.CostUSD, Checks: r.checks, Outstanding: outstanding})
	return o
}

func (r *runner) fail(err error) Outcome {
	o := r.outcome(StatusFailed)
	o.Err = err
	r.transcript.record("finish", map[string]any{"status": "failed", "error": err.Error(), "turns": r.turns, "toolCalls": r.toolCalls, "usage": usageRecord(o.Usage, o.CostUSD)})
	r.events.emit(Event{Kind: EventFailed, Err: err, Summary: err.Error(), Usage: o.Usage, CostUSD: o.CostUSD, Checks: r.checks})
	return o
}

// stopped ends the run after err from the model, compaction or the
// context: our wall-clock deadline fails the run, a cancelled parent
// cancels it, anything else is a model failure.
func (r *runner) stopped(ctx context.Context, err error) Outcome {
	if ctx.Err() != nil {
		if errors.Is(context.Cause(ctx), ErrWallClock) {
			return r.fail(fmt.Errorf("%w: stopped after %s (%d turns)", ErrWallClock, r.limits.WallClock, r.turns))
		}
		if errors.Is(ctx.Err(), context.Canceled) {
			o := r.outcome(StatusCancelled)
			o.Err = context.Cause(ctx)
			r.transcript.record("finish", map[string]any{"status": "cancelled", "turns": r.turns, "toolCalls": r.toolCalls, "usage": usageRecord(o.Usage, o.CostUSD)})
			r.events.emit(Event{Kind: EventCancelled, Usage: o.Usage, CostUSD: o.CostUSD, Checks: r.checks})
			return o
		}
		return r.fail(fmt.Errorf("run stopped: %w", context.Cause(ctx)))
	}
	return r.fail(fmt.Errorf("%w: %w", ErrModel, err))
}
