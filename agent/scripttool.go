package agent

import (
	"github.com/agentls/agentls/tools"
	scripttool "github.com/agentls/agentls/tools/script"
)

// scriptExcluded are read-only tools that are not functions in a script:
// the loop's own, which act on the conversation rather than the workspace.
var scriptExcluded = []string{"task", "todo_write", "skill", tools.ToolSearchName}

// scriptTool is the script tool of one run. Its functions are the
// read-only tools offered at the turn the script was called in (built-ins,
// language tools, editor tools and MCP tools that say they are
// read-only), and each inner call is shown to front-ends as a tool call
// with ParentCallID set and written to the transcript.
func (r *runner) scriptTool() tools.Tool {
	return scripttool.New(scripttool.Options{
		Tools: func() []tools.Tool {
			r.offeredMu.Lock()
			defer r.offeredMu.Unlock()
			return r.offered
		},
		Exclude: scriptExcluded,
		Observe: r.observeInner,
		Limits:  r.opts.ScriptLimits,
		Slots:   r.opts.ScriptSlots,
	})
}

// observeInner reports an inner call of a script and returns the function
// that reports its result.
func (r *runner) observeInner(parent string, c scripttool.InnerCall) func(tools.Result) {
	r.events.emit(Event{Kind: EventToolCall, Tool: c.Tool, Args: c.Args, CallID: c.ID, ParentCallID: parent})
	r.transcript.record("tool_call", map[string]any{"id": c.ID, "name": c.Tool, "args": string(c.Args), "parentCallId": parent})
	return func(res tools.Result) {
		summary := res.Summary
		if summary == "" {
			summary = firstLine(res.Text, 120)
		}
		ev := Event{Kind: EventToolResult, Tool: c.Tool, CallID: c.ID, IsError: res.IsError, Summary: summary, ParentCallID: parent}
		if res.IsError {
			ev.Text = res.Text
		}
		r.events.emit(ev)
		r.transcript.record("tool_result", map[string]any{"id": c.ID, "name": c.Tool, "isError": res.IsError, "summary": summary, "parentCallId": parent})
	}
}
