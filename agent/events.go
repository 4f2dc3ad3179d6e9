package agent

import (
	"encoding/json"
	"sync"

	"github.com/agentls/agentls/agent/llm"
	"github.com/agentls/agentls/tools"
)

// EventKind says what an Event reports. lspserver maps the kinds to the
// "kind" strings of the agentls/runEvent notification (String gives them).
type EventKind int

// Event kinds, in the order a run usually produces them.
const (
	EventStarted    EventKind = iota // the run began; Text holds the user's prompt
	EventText                        // streamed model text; Text holds the fragment
	EventToolCall                    // the model (or a script: ParentCallID) called a tool; Tool, Args, CallID set
	EventToolResult                  // a tool finished; Tool, CallID, IsError, Summary (ParentCallID) set
	EventFinished                    // the run ended with an answer; Text and Usage set
	EventFailed                      // the run ended without an answer; Err and Summary set
	EventCancelled                   // the run's context was cancelled
	EventTodo                        // the model updated its plan (todo_write); Todos set
	// EventStaged reports a file whose staged change a tool call made,
	// replaced or discarded: Path and Staged (the changeset's entry now;
	// only Path set and Pending() false when it was discarded). It is
	// emitted after the tool call that staged it and before its
	// EventToolResult. Review consumes it: the run never calls review.
	EventStaged
	// EventUsage reports one model call's tokens: Turn, Usage (this call),
	// Estimated (counted locally: the endpoint reported none) and CostUSD
	// (nil without model.pricing). Sub-agents' calls carry ParentRunID.
	EventUsage
	// EventCheck reports one check's result (Check set): at the end of a
	// run with changes, each configured check that applies runs on the
	// proposal; a failing one may send the run back to the model, so
	// checks can come in several rounds.
	EventCheck
	// EventProblems reports the problems a tool call's staged change
	// introduced in one file, as the workspace's language server judged
	// them: Path and Problems. It follows the call's EventStaged and
	// precedes its EventToolResult.
	EventProblems
	// EventCheckStarted reports that a check starts (Check with its Name,
	// Summary the command): checks can take minutes, and without it the
	// run looks hung between the model's answer and the check's result.
	EventCheckStarted
	// EventCheckRunning repeats, every Limits.CheckProgressEvery while a
	// check runs, its Name (Check), the seconds so far (Seconds) and a
	// line for humans (Summary): a check on a cold machine can take
	// minutes, and "running check test" alone does not say it is alive.
	EventCheckRunning
	// EventLangServer reports a language server the run waits for to
	// start (Server, Starting), then ready or failed (Seconds waited,
	// Err); Summary is the line for humans ("starting language server
	// gopls…", "language server gopls ready (3.1s)"), worded here once
	// for every face.
	EventLangServer
)

// String returns the agentls/runEvent kind name.
func (k EventKind) String() string {
	switch k {
	case EventStarted:
		return "started"
	case EventText:
		return "text"
	case EventToolCall:
		return "toolCall"
	case EventToolResult:
		return "toolResult"
	case EventFinished:
		return "finished"
	case EventFailed:
		return "failed"
	case EventCancelled:
		return "cancelled"
	case EventTodo:
		return "todo"
	case EventStaged:
		return "staged"
	case EventUsage:
		return "usage"
	case EventCheck:
		return "check"
	case EventProblems:
		return "problems"
	case EventCheckStarted:
		return "checkStarted"
	case EventCheckRunning:
		return "checkRunning"
	case EventLangServer:
		return "langServer"
	}
	return "unknown"
}

// Event is one observable step of a run, delivered to Options.OnEvent so
// that lspserver (runEvent notifications, progress) and the CLI (stderr)
// can show what the agent does without polling. Seq increases strictly
// within a run, starting at 1.
type Event struct {
	RunID   string
	Seq     int
	Kind    EventKind
	Text    string          // EventStarted: prompt; EventText: fragment; EventFinished: answer; EventToolResult with IsError: the whole error
	Tool    string          // EventToolCall, EventToolResult
	Args    json.RawMessage // EventToolCall: arguments as sent by the model (valid JSON or a JSON string holding the invalid text)
	CallID  string          // EventToolCall, EventToolResult
	IsError bool            // EventToolResult: the tool reported a failure
	Summary string          // EventToolResult: one line for humans; EventFailed: the reason
	Usage   llm.Usage       // EventFinished, EventFailed, EventCancelled: tokens used by the whole run; EventUsage: this call's
	// CostUSD is Usage priced with model.pricing (EventUsage and the
	// terminal events); nil when no pricing is configured.
	CostUSD *float64
	// Turn and Estimated: EventUsage (Estimated: counted locally because
	// the endpoint reported no usage).
	Turn      int
	Estimated bool
	Err       error  // EventFailed: the cause (an *llm.Error for model failures)
	Todos     []Todo // EventTodo: the whole plan
	// Check is EventCheck's result; Checks on EventFinished, EventFailed
	// and EventCancelled the latest result of every check that ran.
	Check  *tools.CheckResult
	Checks []tools.CheckResult
	// ParentRunID is set on the events of a sub-agent started by the task
	// tool (RunID is then the sub-agent's own id); empty for a top-level run.
	ParentRunID string
	// ParentCallID is set on the EventToolCall and EventToolResult of a
	// call that a tool made on its own (a script's inner calls): the id of
	// the model's call that made it. Such calls never reach the model.
	ParentCallID string
	Path         string           // EventStaged, EventProblems: the file (absolute, symlinks resolved)
	Staged       tools.StagedFile // EventStaged: the run's staged entry for Path
	// Problems is what EventProblems reports for Path.
	Problems tools.FileProblems
	// Server and Starting: EventLangServer. Seconds: EventCheckRunning's
	// time so far, EventLangServer's wait for the server once it ended.
	Server   string
	Starting bool
	Seconds  float64
	// Outstanding counts, on EventFinished, the problems the run
	// introduced that were still there at its last check of each file;
	// nil when no language server judged the run.
	Outstanding *int
}

// emitter numbers events and delivers them one at a time, so that events
// from parallel tool calls reach OnEvent in Seq order.
type emitter struct {
	mu    sync.Mutex
	runID string
	seq   int
	fn    func(Event)
}

// forward delivers an event numbered elsewhere (a sub-agent's) under the
// same lock, so OnEvent still sees one event at a time.
func (e *emitter) forward(ev Event) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.fn != nil {
		e.fn(ev)
	}
}

func (e *emitter) emit(ev Event) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.seq++
	ev.RunID = e.runID
	ev.Seq = e.seq
	if e.fn != nil {
		e.fn(ev)
	}
}
