package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime/debug"
	"strings"
	"sync"
	"time"

	"github.com/agentls/agentls/agent/llm"
	"github.com/agentls/agentls/tools"
)

// callResult is the outcome of one tool call, in call order.
type callResult struct {
	call    llm.ToolCall
	text    string
	isError bool
	summary string
	mutated bool // a mutating tool succeeded
	// problems are what the language servers found in the files the call
	// staged.
	problems []tools.FileProblems
}

// plannedCall is a call with the tool resolved, or a result decided before
// running anything (bad arguments, unknown tool).
type plannedCall struct {
	call     llm.ToolCall
	tool     tools.Tool
	readOnly bool
	early    *callResult
	repeat   int  // how many identical calls so far, this one included
	skipped  bool // beyond the per-turn cap: early holds the result, no events
}

// capCalls marks the calls beyond Limits.MaxToolCallsPerTurn as not run,
// with a tool error result telling the model why. made is how many calls
// the model's answer held: the conversation keeps only one call past the
// limit (run.go), whose result speaks for all the calls dropped after it.
// Only the calls that run are announced as events; the rest are one
// transcript record.
func (r *runner) capCalls(planned []plannedCall, made int) {
	limit := r.limits.MaxToolCallsPerTurn
	if limit <= 0 || made <= limit {
		return
	}
	text := fmt.Sprintf("Error: not run: this turn made %d tool calls and at most %d run per turn (maxToolCallsPerTurn); "+
		"this call and every call after it (%d in all) were not run. Make fewer calls per turn and repeat the ones you still need.",
		made, limit, made-limit)
	for i := limit; i < len(planned); i++ {
		planned[i].skipped, planned[i].readOnly = true, true
		planned[i].early = &callResult{isError: true, text: text}
	}
	msg := fmt.Sprintf("the model made %d tool calls in one turn; only the first %d ran (maxToolCallsPerTurn)", made, limit)
	r.log.Warn(msg)
	r.transcript.record("warning", map[string]any{"warning": msg})
}

// execTurn runs one turn's calls: consecutive read-only calls run in
// parallel (bounded), each mutating call runs alone, in call order, so a
// read that follows an edit in the same turn sees the edit. Results come
// back in call order.
func (r *runner) execTurn(ctx context.Context, planned []plannedCall) []callResult {
	results := make([]callResult, len(planned))
	for i, pc := range planned {
		if pc.skipped {
			results[i] = *pc.early
			results[i].call = pc.call
		}
	}
	n := len(planned)
	for n > 0 && planned[n-1].skipped {
		n--
	}
	planned = planned[:n]
	for i := 0; i < len(planned); {
		if ctx.Err() != nil {
			break // cancelled: the run stops; the calls not started never run
		}
		r.between()
		if !planned[i].readOnly {
			r.emitCall(planned[i].call)
			results[i] = r.execOne(ctx, planned[i])
			i++
			continue
		}
		j := i
		for j < len(planned) && planned[j].readOnly {
			j++
		}
		for k := i; k < j; k++ {
			r.emitCall(planned[k].call)
		}
		r.execParallel(ctx, planned[i:j], results[i:j])
		i = j
	}
	return results
}

func (r *runner) execParallel(ctx context.Context, batch []plannedCall, out []callResult) {
	if len(batch) == 1 {
		out[0] = r.execOne(ctx, batch[0])
		return
	}
	sem := make(chan struct{}, r.limits.MaxParallelTools)
	var wg sync.WaitGroup
	for k := range batch {
		sem <- struct{}{}
		if ctx.Err() != nil { // cancelled: announced calls not started get a result, not a run
			<-sem
			out[k] = r.execOne(ctx, plannedCall{call: batch[k].call, readOnly: true,
				early: &callResult{isError: true, text: fmt.Sprintf("Error: tool %s was cancelled.", batch[k].call.Name)}})
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			out[k] = r.execOne(ctx, batch[k])
		}()
	}
	wg.Wait()
}

func (r *runner) emitCall(tc llm.ToolCall) {
	args := json.RawMessage(tc.Args)
	if tc.ArgsErr != nil || !json.Valid(args) {
		args, _ = json.Marshal(tc.Args) // keep the invalid text visible, as a JSON string
	}
	r.events.emit(Event{Kind: EventToolCall, Tool: tc.Name, Args: args, CallID: tc.ID})
	r.transcript.record("tool_call", map[string]any{"id": tc.ID, "name": tc.Name, "args": tc.Args, "argsError": errString(tc.ArgsErr)})
}

// execOne runs one call and turns every failure into a result the model can
// read: tool errors, Go errors and panics.
func (r *runner) execOne(ctx context.Context, pc plannedCall) callResult {
	var res callResult
	if pc.early != nil {
		res = *pc.early
	} else {
		res = r.invoke(ctx, pc)
	}
	if !pc.readOnly && r.env.Changes != nil {
		r.flushStaged()
	}
	for _, fp := range res.problems {
		r.events.emit(Event{Kind: EventProblems, Path: fp.Path, Problems: fp})
		r.transcript.record("problems", map[string]any{"id": pc.call.ID, "path": fp.Path, "introduced": fp.Introduced, "items": fp.Items})
	}
	res.call = pc.call
	res.text = truncateOutput(res.text, r.limits.MaxOutputLines, r.limits.MaxOutputBytes)
	if res.text == "" {
		res.text = "(no output)"
	}
	if !res.isError {
		// After truncation, so the rules are never what gets cut.
		res.text += r.nestedRulesNote(pc.call)
	}
	if pc.repeat >= r.limits.RepeatWarnAt && r.limits.RepeatWarnAt > 0 {
		res.text += repeatWarning(pc.call.Name, pc.repeat, r.limits.RepeatStopAt)
	}
	if res.summary == "" {
		res.summary = firstLine(res.text, 120)
	}
	ev := Event{Kind: EventToolResult, Tool: pc.call.Name, CallID: pc.call.ID, IsError: res.isError, Summary: res.summary}
	if res.isError {
		ev.Text = res.text // the whole error, for front-ends that show failures in full
	}
	r.events.emit(ev)
	r.transcript.record("tool_result", map[string]any{"id": pc.call.ID, "name": pc.call.Name, "isError": res.isError, "summary": res.summary, "text": res.text})
	return res
}

// toolGrace is how long a tool may take to return once its context is
// cancelled (cancel, wall clock) before the run stops waiting for it.
const toolGrace = time.Second

// invoke runs the call bounded by ctx: a tool that does not return within
// toolGrace of cancellation (a read blocked in the kernel, a tool that
// ignores its context) is abandoned with a cancelled result, so cancel and
// the wall clock always end a run. The abandoned goroutine ends when the
// tool does; its result is dropped.
func (r *runner) invoke(ctx context.Context, pc plannedCall) callResult {
	done := make(chan callResult, 1)
	go func() { done <- r.invokeSync(ctx, pc) }()
	select {
	case res := <-done:
		return res
	case <-ctx.Done():
	}
	grace := time.NewTimer(toolGrace)
	defer grace.Stop()
	select {
	case res := <-done:
		return res
	case <-grace.C:
		r.log.Warn("tool did not stop after cancellation; no longer waiting for it", "tool", pc.call.Name, "grace", toolGrace)
		return callResult{text: fmt.Sprintf("Error: tool %s was cancelled.", pc.call.Name), isError: true}
	}
}

func (r *runner) invokeSync(ctx context.Context, pc plannedCall) (res callResult) {
	defer func() {
		if p := recover(); p != nil {
			r.log.Error("tool panicked", "tool", pc.call.Name, "panic", p, "stack", string(debug.Stack()))
			r.transcript.record("error", map[string]any{"where": "tool " + pc.call.Name, "panic": fmt.Sprint(p), "stack": string(debug.Stack())})
			res = callResult{text: fmt.Sprintf("Error: tool %s crashed (%v). This is a bug in the tool, not in your call; try another way.", pc.call.Name, p), isError: true}
		}
	}()
	out, err := pc.tool.Call(tools.WithCallID(ctx, pc.call.ID), r.env, json.RawMessage(pc.call.Args))
	if err != nil {
		if ctx.Err() != nil {
			return callResult{text: fmt.Sprintf("Error: tool %s was cancelled.", pc.call.Name), isError: true}
		}
		return callResult{text: fmt.Sprintf("Error: tool %s failed: %v", pc.call.Name, err), isError: true}
	}
	return callResult{text: out.Text, isError: out.IsError, summary: out.Summary, mutated: !pc.readOnly && !out.IsError, problems: out.Problems}
}

// plan resolves each call's tool and decides the results that need no run.
func (r *runner) plan(calls []llm.ToolCall, available []tools.Tool) []plannedCall {
	byName := make(map[string]tools.Tool, len(available))
	for _, t := range available {
		byName[t.Name()] = t
	}
	out := make([]plannedCall, len(calls))
	for i, tc := range calls {
		pc := plannedCall{call: tc, readOnly: true}
		t, ok := byName[tc.Name]
		if !ok {
			t, ok = r.load(tc.Name)
		}
		switch {
		case !ok:
			pc.early = &callResult{isError: true, text: fmt.Sprintf("Error: there is no tool named %q. Available tools: %s.", tc.Name, toolNames(available))}
		case errors.Is(tc.ArgsErr, llm.ErrArgsTooLarge):
			pc.early = &callResult{isError: true, text: "Error: " + tc.ArgsErr.Error()}
		case tc.ArgsErr != nil:
			pc.early = &callResult{isError: true, text: fmt.Sprintf(
				"Error: the arguments for %s were not valid JSON (%v). You sent: %s\nCall the tool again with one JSON object that matches its schema.",
				tc.Name, tc.ArgsErr, quoteCut(tc.Args, 300))}
		default:
			pc.tool, pc.readOnly = t, t.ReadOnly()
		}
		out[i] = pc
	}
	return out
}

// load is the held-back tool (tools.Offer.Loadable) called name, when
// this run may use it, activated for the rest of the run: a call by its
// exact name runs at once (invalid arguments fail like any tool's, and its
// schema is in view from the next turn). A planning run never loads a
// tool that could not be offered to it.
func (r *runner) load(name string) (tools.Tool, bool) {
	if r.opts.Offer == nil {
		return nil, false
	}
	t, ok := r.opts.Offer.Loadable(name)
	if !ok || (r.role == roleMain && r.opts.Mode == ModePlan && !t.ReadOnly()) {
		return nil, false
	}
	r.opts.Offer.Activate(name)
	return t, true
}

func toolNames(ts []tools.Tool) string {
	if len(ts) == 0 {
		return "none"
	}
	names := make([]string, len(ts))
	for i, t := range ts {
		names[i] = t.Name()
	}
	return strings.Join(names, ", ")
}

func firstLine(s string, max int) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	if len(s) > max {
		s = cutUTF8(s, max) + "…"
	}
	return s
}

func quoteCut(s string, max int) string {
	if len(s) > max {
		return fmt.Sprintf("%q… (%d bytes)", cutUTF8(s, max), len(s))
	}
	return fmt.Sprintf("%q", s)
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
