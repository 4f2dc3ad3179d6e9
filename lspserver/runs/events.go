package runs

import (
	"encoding/json"
	"sync"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/agent/llm"
	"github.com/agentls/agentls/internal/redact"
	"github.com/agentls/agentls/lspserver/core"
	"github.com/agentls/agentls/tools"
	"go.lsp.dev/uri"
)

// MethodRunEvent is the agentls/runEvent notification (docs/protocol.md).
const MethodRunEvent = "agentls/runEvent"

// Run event kinds of agentls/runEvent (docs/protocol.md). The agent's own events
// use agent.EventKind.String(); "proposal" is the server's.
const (
	kindStarted    = "started"
	kindText       = "text"
	kindToolCall   = "toolCall"
	kindToolResult = "toolResult"
	kindProposal   = "proposal"
	kindProblems   = "problems"
	kindFinished   = "finished"
	kindFailed     = "failed"
	kindCancelled  = "cancelled"
)

// RunEvent is the params of the agentls/runEvent notification. Which
// fields are set depends on Kind (docs/protocol.md):
//
//	started     text (the prompt), mode ("preview"|"apply")
//	text        text (a streamed fragment of model text)
//	toolCall    tool, args, callId, parentCallId (a script's inner call)
//	toolResult  tool, summary, isError, callId, parentCallId (tool "applyEdit" without
//	            callId: the editor refused an apply-mode change)
//	proposal    uri, and in apply mode applied (whether the editor took it)
//	finished    text (the final answer), usage, pending
//	failed      error, usage, pending
//	cancelled   usage, pending
//	todo        todos (the model's whole plan, after every todo_write)
//	usage       turn, promptTokens, completionTokens, cachedTokens?,
//	            costUSD?, estimated? (one model call; terminal events carry
//	            the run's totals in usage and costUSD)
//	check       name, passed, exitCode, seconds, output (one check on the
//	            proposal; terminal events carry checks: [{name, passed}],
//	            the latest result of each)
//	problems    uri, introduced (problems this change introduced), items
//	            (those problems: range in the proposed text, severity,
//	            message, source), outstanding (problems the run's proposal
//	            for the file brings in all); finished carries problems: the
//	            number the run introduced and left (with a language server)
//
// A sub-agent started by the task tool sends its own started, text,
// toolCall, toolResult and terminal events with its own runId and seq and
// parentRunId set; its started event carries the task's label in summary.
//
// pending counts the changes the run leaves for review (preview: all its
// pending proposals; apply: the changes the editor did not take).
type RunEvent struct {
	RunID   string          `json:"runId"`
	Seq     int             `json:"seq"`
	Kind    string          `json:"kind"`
	Text    *string         `json:"text,omitzero"`
	Mode    string          `json:"mode,omitempty"`
	Tool    string          `json:"tool,omitempty"`
	Args    json.RawMessage `json:"args,omitzero"`
	CallID  string          `json:"callId,omitempty"`
	Summary string          `json:"summary,omitempty"`
	IsError *bool           `json:"isError,omitzero"`
	URI     string          `json:"uri,omitempty"`
	Applied *bool           `json:"applied,omitzero"`
	Error   string          `json:"error,omitempty"`
	Usage   *llm.Usage      `json:"usage,omitzero"`
	// Usage events (one model call): the counts at top level.
	Turn             int  `json:"turn,omitzero"`
	PromptTokens     *int `json:"promptTokens,omitzero"`
	CompletionTokens *int `json:"completionTokens,omitzero"`
	CachedTokens     *int `json:"cachedTokens,omitzero"`
	Estimated        bool `json:"estimated,omitzero"`
	// CostUSD prices the call (usage) or the run (terminal events) with
	// model.pricing; absent without pricing.
	CostUSD *float64     `json:"costUSD,omitzero"`
	Pending *int         `json:"pending,omitzero"`
	Todos   []agent.Todo `json:"todos,omitzero"`
	// Check events: one check's result (output is its bounded tail).
	Name     string   `json:"name,omitempty"`
	Passed   *bool    `json:"passed,omitzero"`
	ExitCode *int     `json:"exitCode,omitzero"`
	Seconds  *float64 `json:"seconds,omitzero"`
	Output   *string  `json:"output,omitzero"`
	// NotRun: the check could not run (its command is not installed or
	// not executable, or there was no proposal view); output starts
	// "could not run: ". It neither passed nor failed.
	NotRun bool `json:"notRun,omitzero"`
	// Checks on the terminal events: the latest result of every check
	// that ran; absent when none did.
	Checks []CheckState `json:"checks,omitzero"`
	// Problems events: how many problems one change introduced, those
	// problems, and how many the run's proposal for the file brings.
	Introduced  *int           `json:"introduced,omitzero"`
	Items       []core.Problem `json:"items,omitzero"`
	Outstanding *int           `json:"outstanding,omitzero"`
	// Problems (finished) counts the problems the run introduced that the
	// language server still reported at the end; absent without one.
	Problems *int `json:"problems,omitzero"`
	// ParentRunID marks the events of a sub-agent (the task tool): RunID
	// and Seq are then the sub-agent's own.
	ParentRunID string `json:"parentRunId,omitempty"`
	// ParentCallID marks a toolCall or toolResult of a call a tool made
	// on its own (a script's inner calls): the model's call that made it.
	ParentCallID string `json:"parentCallId,omitempty"`
	// AnswerURI (finished) names the Markdown file holding the whole
	// answer, for a plan or an answer of more than one line (answers.go).
	AnswerURI string `json:"answerUri,omitempty"`
}

// CheckState is one check's outcome in a terminal event.
type CheckState struct {
	Name   string `json:"name"`
	Passed bool   `json:"passed"`
	NotRun bool   `json:"notRun,omitzero"`
}

func checkStates(results []tools.CheckResult) []CheckState {
	if len(results) == 0 {
		return nil
	}
	out := make([]CheckState, len(results))
	for i, c := range results {
		out[i] = CheckState{Name: c.Name, Passed: c.Passed, NotRun: c.NotRun}
	}
	return out
}

// eventStream numbers one run's events and sends them in order. The agent
// numbers its own events, but the server adds "proposal" events (from tool
// goroutines) and holds the agent's final event back until the run is
// wrapped up, so it renumbers everything here: seq starts at 1 and
// increases by one per notification, on the wire in that order (the
// notification is written under the lock).
type eventStream struct {
	s     *Runs
	runID string

	mu     sync.Mutex
	seq    int
	last   *RunEvent      // the agent's terminal event, held back by agentEvent
	subSeq map[string]int // sub-agent run id → its last seq
}

func newEventStream(s *Runs, runID string) *eventStream {
	return &eventStream{s: s, runID: runID}
}

// send numbers ev and notifies the editor. It uses the server context, not
// the run's: a "cancelled" event must still go out after cancellation.
func (e *eventStream) send(ev RunEvent) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.seq++
	ev.RunID, ev.Seq = e.runID, e.seq
	if err := e.s.core.Client().Notify(e.s.ctx, MethodRunEvent, &ev); err != nil {
		e.s.log.Debug("runEvent not sent", "run", e.runID, "kind", ev.Kind, "err", err)
	}
}

// sendSub numbers a sub-agent's event in its own sequence and notifies the
// editor; nothing is held back (the parent's tool result follows it).
func (e *eventStream) sendSub(ev RunEvent, subID string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.subSeq == nil {
		e.subSeq = map[string]int{}
	}
	e.subSeq[subID]++
	ev.RunID, ev.Seq, ev.ParentRunID = subID, e.subSeq[subID], e.runID
	if err := e.s.core.Client().Notify(e.s.ctx, MethodRunEvent, &ev); err != nil {
		e.s.log.Debug("runEvent not sent", "run", subID, "kind", ev.Kind, "err", err)
	}
	if ev.Kind == kindFinished || ev.Kind == kindFailed || ev.Kind == kindCancelled {
		delete(e.subSeq, subID)
	}
}

// fromAgent converts an agent event; terminal events are returned with
// held=true instead of being sent.
func (e *eventStream) fromAgent(ev agent.Event) (out RunEvent, held bool) {
	out = RunEvent{Kind: ev.Kind.String()}
	switch ev.Kind {
	case agent.EventTodo:
		out.Todos = ev.Todos
		if out.Todos == nil {
			out.Todos = []agent.Todo{}
		}
	case agent.EventStarted, agent.EventText:
		out.Text = core.Ptr(ev.Text)
		out.Summary = ev.Summary
	case agent.EventToolCall:
		out.Tool, out.Args, out.CallID, out.ParentCallID = ev.Tool, validJSON(ev.Args), ev.CallID, ev.ParentCallID
	case agent.EventToolResult:
		out.Tool, out.CallID, out.Summary, out.IsError, out.ParentCallID = ev.Tool, ev.CallID, ev.Summary, core.Ptr(ev.IsError), ev.ParentCallID
	case agent.EventUsage:
		out.Turn, out.PromptTokens, out.CompletionTokens, out.Estimated, out.CostUSD = ev.Turn, core.Ptr(ev.Usage.PromptTokens), core.Ptr(ev.Usage.CompletionTokens), ev.Estimated, ev.CostUSD
		if ev.Usage.CachedTokens > 0 {
			out.CachedTokens = core.Ptr(ev.Usage.CachedTokens)
		}
	case agent.EventCheck:
		if c := ev.Check; c != nil {
			out.Name, out.Passed, out.ExitCode, out.Seconds, out.Output, out.NotRun = c.Name, core.Ptr(c.Passed), core.Ptr(c.ExitCode), core.Ptr(c.Seconds), core.Ptr(c.Output), c.NotRun
		}
	case agent.EventCheckRunning:
		out.Name, out.Seconds, out.Summary = ev.Check.Name, core.Ptr(ev.Seconds), ev.Summary
	case agent.EventLangServer:
		out.Name, out.Summary = ev.Server, ev.Summary
		if !ev.Starting {
			out.Seconds = core.Ptr(ev.Seconds)
		}
		if ev.Err != nil {
			out.Error = ev.Err.Error()
		}
	case agent.EventProblems:
		fp := ev.Problems
		enc := e.s.core.Session().Encoding
		out.URI = string(uri.File(ev.Path))
		out.Introduced, out.Outstanding = core.Ptr(fp.Introduced), core.Ptr(len(fp.Outstanding))
		out.Items = core.Problems(fp.Items, fp.Text, enc)
	case agent.EventFinished:
		out.Text, out.Usage, out.CostUSD, out.Problems = core.Ptr(ev.Text), core.Ptr(ev.Usage), ev.CostUSD, ev.Outstanding
		held = true
	case agent.EventFailed:
		out.Error, out.Usage, out.CostUSD = ev.Summary, core.Ptr(ev.Usage), ev.CostUSD
		if out.Error == "" && ev.Err != nil {
			out.Error = ev.Err.Error()
		}
		held = true
	case agent.EventCancelled:
		out.Usage, out.CostUSD = core.Ptr(ev.Usage), ev.CostUSD
		held = true
	}
	if held {
		out.Checks = checkStates(ev.Checks)
	}
	return out, held
}

// agentEvent is the agent's OnEvent (via the run, which also reports
// progress): it forwards the event, holding back the terminal one.
func (e *eventStream) agentEvent(ev agent.Event, mode string) RunEvent {
	out, held := e.fromAgent(ev)
	if ev.ParentRunID != "" {
		e.sendSub(out, ev.RunID)
		return out
	}
	if ev.Kind == agent.EventStarted {
		out.Mode = mode
	}
	if held {
		e.mu.Lock()
		e.last = &out
		e.mu.Unlock()
		return out
	}
	e.send(out)
	return out
}

// finish sends the held terminal event (or fallback when the agent sent
// none, e.g. a run cancelled while queued) with pending (and the whole
// answer's file, if any) filled in.
func (e *eventStream) finish(fallback RunEvent, pending int, answerURI string) RunEvent {
	e.mu.Lock()
	ev := fallback
	if e.last != nil {
		ev = *e.last
	}
	e.mu.Unlock()
	ev.Pending = core.Ptr(pending)
	if ev.Kind == kindFinished {
		ev.AnswerURI = answerURI
	}
	e.send(ev)
	return ev
}

// validJSON returns raw when it is valid JSON, else raw as a JSON string
// (the model sent arguments that do not parse).
func validJSON(raw json.RawMessage) json.RawMessage {
	if len(raw) == 0 {
		return nil
	}
	if json.Valid(raw) {
		return raw
	}
	b, _ := json.Marshal(string(raw))
	return b
}

// Redacted is ev with its error text redacted (core.Redacter): a key or a
// credential quoted by an error never reaches the editor.
func (ev RunEvent) Redacted() any {
	ev.Error = redact.Text(ev.Error)
	return ev
}
