package agent

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/agentls/agentls/tools"
	scripttool "github.com/agentls/agentls/tools/script"
)

//go:embed descriptions/task.md
var taskDescription string

// Sub-agent bounds. The sub-agent shares its parent's token budget,
// cancellation and wall clock; it has its own, smaller turn limit, and its
// answer is cut so one delegation cannot flood the parent's context.
const (
	DefaultTaskMaxTurns = 12
	maxTaskAnswerBytes  = 16 << 10
)

const taskSystemCore = `You are a sub-agent of agentls, a coding agent. You explore the user's workspace for your parent agent with read-only tools (you cannot edit or run anything).

Rules:
- Search first (glob, grep, list_dir), then read only what you need (read_file with offset/limit for big files). For questions over many files, one script call beats many reads.
- Answer the task you were given and stop: report what you found with exact file paths, line numbers and identifiers, concisely. Your final answer is all the parent sees; do not paste whole files.`

type taskParams struct {
	Description string `json:"description" jsonschema:"a 3-5 word label for the user"`
	Prompt      string `json:"prompt" jsonschema:"the whole task: what to find and what to report back"`
}

// taskTool is the task tool of one run. It counts as read-only, so several
// task calls in one turn run in parallel (bounded by MaxParallelTools).
func (r *runner) taskTool() tools.Tool {
	return tools.New("task", taskDescription, true, func(ctx context.Context, _ *tools.Env, p taskParams) (tools.Result, error) {
		if strings.TrimSpace(p.Prompt) == "" {
			return tools.Errorf("prompt is empty; say what the sub-agent should find and report"), nil
		}
		return r.runTask(ctx, p)
	})
}

// runTask runs a sub-agent to the end and turns its outcome into the tool
// result: the final answer (bounded), or on a limit the partial findings
// with the reason.
func (r *runner) runTask(ctx context.Context, p taskParams) (tools.Result, error) {
	subID := NewRunID()
	parentID := r.env.RunID
	env := &tools.Env{
		RunID:   subID,
		View:    r.env.View,
		Ledger:  tools.NewLedger(), // its reads are not the parent's: the parent must read before it edits
		Changes: r.env.Changes,     // read-only tools show the parent's staged text
		Policy:  r.env.Policy,
		Skills:  r.env.Skills,

		BeforeRead:     r.env.BeforeRead,
		PendingNewFile: r.env.PendingNewFile,
	}
	limits := r.limits
	limits.MaxTurns = r.limits.TaskMaxTurns
	limits.WallClock = -1 // the parent's deadline is on ctx
	if r.limits.TokenBudget > 0 {
		left := r.limits.TokenBudget - r.usageTotal()
		if left <= 0 {
			return tools.Errorf("the run's token budget is used up; no sub-agent can start"), nil
		}
		limits.TokenBudget = left
	}
	toolsForTurn, offer := r.subAgentTools()
	opts := Options{
		Model:        r.model,
		ToolsForTurn: toolsForTurn,
		Offer:        offer,
		Language:     r.opts.Language,
		ScriptLimits: r.opts.ScriptLimits,
		ScriptSlots:  r.opts.ScriptSlots,
		Env:          env,
		Limits:       limits,
		Prompt:       p.Prompt,
		Transcript:   r.transcript.sub(subID, parentID),
		Pricing:      r.opts.Pricing,
		Tokens:       r.counter,
		Now:          r.opts.Now,
		Logger:       r.log.With("subRun", subID),
	}
	opts.OnEvent = func(ev Event) {
		ev.ParentRunID = parentID
		if ev.Kind == EventStarted && p.Description != "" {
			ev.Summary = p.Description
		}
		r.events.forward(ev)
	}
	sub, err := newRunner(opts)
	if err != nil {
		return tools.Result{}, err
	}
	sub.role = roleTask
	out := sub.run(ctx)
	r.addUsage(out.Usage)
	label := strings.TrimSpace(p.Description)
	if label == "" {
		label = "sub-agent"
	}
	switch out.Status {
	case StatusFinished:
		answer := strings.TrimSpace(out.Answer)
		if answer == "" {
			answer = "(the sub-agent finished without an answer)"
		}
		return tools.Result{Text: capAnswer(answer), Summary: fmt.Sprintf("%s: done in %d turns", label, out.Turns)}, nil
	case StatusCancelled:
		if err := ctx.Err(); err != nil {
			return tools.Result{}, err
		}
		return tools.Errorf("the sub-agent was cancelled"), nil
	}
	partial := strings.TrimSpace(sub.lastText)
	msg := fmt.Sprintf("The sub-agent stopped before finishing: %v.", out.Err)
	if errors.Is(out.Err, ErrMaxTurns) {
		msg = fmt.Sprintf("The sub-agent stopped before finishing: it used its %d turns.", limits.MaxTurns)
	}
	if partial != "" {
		msg += "\nIts last notes (partial findings):\n" + capAnswer(partial)
	} else {
		msg += " It left no findings; narrow the task or explore yourself."
	}
	return tools.Result{Text: msg, IsError: true, Summary: label + ": stopped early"}, nil
}

func capAnswer(s string) string {
	if len(s) <= maxTaskAnswerBytes {
		return s
	}
	return cutUTF8(s, maxTaskAnswerBytes) + fmt.Sprintf("\n[answer cut: %d more bytes]", len(s)-maxTaskAnswerBytes)
}

// subAgentTools returns what a sub-agent is offered at each turn: the
// read-only tools of its parent's registry (subAgentMay) and the skill
// tool, and the sub-agent's Offer. With the parent's Offer (Options.Offer)
// the sub-agent derives its own, so what its tool_search loads (or a call
// by name, see runner.load) is its own and its fixed cost stays bounded
// the same way; without one (nil offer) it gets the parent's read-only
// tools of the turn.
func (r *runner) subAgentTools() (func() []tools.Tool, *tools.Offer) {
	var offer *tools.Offer
	if r.opts.Offer != nil {
		offer = r.opts.Offer.Derive(r.subAgentMay)
	}
	return func() []tools.Tool {
		base := r.baseTools() // the caller brings its registry up to date (MCP, editor tools)
		var out []tools.Tool
		if offer != nil {
			out = offer.Tools()
		} else {
			for _, t := range base {
				if r.subAgentMay(t) {
					out = append(out, t)
				}
			}
		}
		if r.env.Skills.Len() > 0 {
			out = append(out, tools.Skill())
		}
		return sortTools(out)
	}, offer
}

// subAgentMay says whether a sub-agent may be offered t: read-only tools
// only (no edits, no commands, no rename: a sub-agent never stages), none
// of the loop's own (no task: no recursion; its script and skill tools
// are its own), and MCP tools only from the servers the user marked
// read-only (Options.ReadOnlyMCPServers). Read-only editor tools
// (editor__…, readOnlyHint) are offered as to the parent.
func (r *runner) subAgentMay(t tools.Tool) bool {
	name := t.Name()
	switch {
	case !t.ReadOnly() || name == scripttool.Name || slices.Contains(scriptExcluded, name):
		return false
	case strings.HasPrefix(name, tools.DeferPrefix):
		return r.readOnlyMCP(name)
	}
	return true
}

func (r *runner) readOnlyMCP(name string) bool {
	for _, s := range r.opts.ReadOnlyMCPServers {
		if strings.HasPrefix(name, "mcp__"+s+"__") {
			return true
		}
	}
	return false
}
