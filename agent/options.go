package agent

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"log/slog"
	"time"

	"github.com/agentls/agentls/agent/config"
	"github.com/agentls/agentls/agent/llm"
	"github.com/agentls/agentls/tools"
	scripttool "github.com/agentls/agentls/tools/script"
)

// Model is the one thing the loop needs from a model client. *llm.Client
// implements it; tests plug in fakes without an HTTP server.
type Model interface {
	Stream(ctx context.Context, req llm.Request, onDelta func(llm.Delta)) (llm.Response, error)
}

// Limits bound a run. Zero fields take the defaults below; a negative
// TokenBudget, WallClock or repeat/error limit disables that bound.
type Limits struct {
	MaxTurns                 int           // model calls with tools; default 25
	WallClock                time.Duration // whole run; default 10m
	TokenBudget              int           // prompt+completion tokens over all model calls (summaries included); default 2,000,000
	MaxConsecutiveToolErrors int           // consecutive turns in which every tool call failed; default 3
	RepeatWarnAt             int           // identical call number that gets a warning; default 3
	RepeatStopAt             int           // identical call number that ends the run; default 5

	ContextWindow    int     // model context window in tokens; default 128,000
	CompactAt        float64 // fraction of ContextWindow that triggers compaction; default 0.8
	KeepToolResults  int     // latest tool results never replaced by placeholders; default 6
	KeepRecentRounds int     // latest rounds kept whole by summarisation; default 10
	MaxOutputLines   int     // tool output cap in lines; default 2,000
	MaxOutputBytes   int     // tool output cap in bytes; default 50 KiB, lowered to a quarter of small windows
	MaxParallelTools int     // read-only calls run at once; default 8
	TaskMaxTurns     int     // turns of each sub-agent started by the task tool; default 12
	// MaxToolCallsPerTurn bounds the calls run from one model answer;
	// default 64. The rest get a tool error result without running (and
	// without an event each), so a runaway answer neither floods the
	// editor with notifications nor delays cancellation.
	MaxToolCallsPerTurn int
	// MaxCheckRounds bounds the times failing checks send the run back to
	// the model; default 2, negative: none (checks only reported).
	MaxCheckRounds int
	// CheckProgressEvery is how often a running check is reported
	// (EventCheckRunning); default 10 s, negative: never.
	CheckProgressEvery time.Duration
}

// Default limits, chosen from what earlier coding agents found workable:
// 10–25 turns, a few consecutive tool errors, loop detection on repeated calls.
const (
	DefaultCheckProgressEvery       = 10 * time.Second
	DefaultMaxTurns                 = 25
	DefaultWallClock                = 10 * time.Minute
	DefaultTokenBudget              = 2_000_000
	DefaultMaxConsecutiveToolErrors = 3
	DefaultRepeatWarnAt             = 3
	DefaultRepeatStopAt             = 5
	DefaultContextWindow            = 128_000
	DefaultCompactAt                = 0.8
	DefaultKeepToolResults          = 6
	DefaultKeepRecentRounds         = 10
	DefaultMaxOutputLines           = 2000
	DefaultMaxOutputBytes           = 50 * 1024
	DefaultMaxParallelTools         = 8
	DefaultMaxToolCallsPerTurn      = 64
)

func (l Limits) withDefaults() Limits {
	def := func(v *int, d int) {
		if *v == 0 {
			*v = d
		}
	}
	def(&l.MaxTurns, DefaultMaxTurns)
	def(&l.TokenBudget, DefaultTokenBudget)
	def(&l.MaxConsecutiveToolErrors, DefaultMaxConsecutiveToolErrors)
	def(&l.RepeatWarnAt, DefaultRepeatWarnAt)
	def(&l.RepeatStopAt, DefaultRepeatStopAt)
	def(&l.ContextWindow, DefaultContextWindow)
	def(&l.KeepToolResults, DefaultKeepToolResults)
	def(&l.KeepRecentRounds, DefaultKeepRecentRounds)
	def(&l.MaxOutputLines, DefaultMaxOutputLines)
	def(&l.MaxOutputBytes, DefaultMaxOutputBytes)
	def(&l.MaxParallelTools, DefaultMaxParallelTools)
	def(&l.TaskMaxTurns, DefaultTaskMaxTurns)
	def(&l.MaxToolCallsPerTurn, DefaultMaxToolCallsPerTurn)
	def(&l.MaxCheckRounds, DefaultMaxCheckRounds)
	if l.CheckProgressEvery == 0 {
		l.CheckProgressEvery = DefaultCheckProgressEvery
	}
	if l.WallClock == 0 {
		l.WallClock = DefaultWallClock
	}
	if l.CompactAt <= 0 || l.CompactAt > 1 {
		l.CompactAt = DefaultCompactAt
	}
	// One tool result may fill at most about a quarter of the window
	// (3 bytes a token), so an 8k-token local model is not flooded by one
	// 50 KB read.
	l.MaxOutputBytes = min(l.MaxOutputBytes, max(4096, l.ContextWindow*3/4))
	if l.MaxTurns < 0 {
		l.MaxTurns = int(^uint(0) >> 1)
	}
	return l
}

// Options describe one run. Model, Env and Prompt are required.
type Options struct {
	Model Model
	// Pricing turns tokens into cost (model.pricing); nil shows no cost.
	Pricing *config.Pricing
	// Registry supplies the tools; ToolsForTurn, when set, is asked before
	// every model call instead (deferred MCP loading plugs in there).
	Registry     *tools.Registry
	ToolsForTurn func() []tools.Tool
	// Offer, when set, is the Offer ToolsForTurn draws from; a held-back
	// tool called by its exact name is loaded from it and runs at once.
	// Sub-agents of the task tool derive theirs from it (Offer.Derive), so
	// tools held back from the parent (deferred MCP tools) are held back
	// from them too and their tool_search loads tools for them alone.
	Offer *tools.Offer
	// Env is what tool calls reach; its RunID names the run.
	Env    *tools.Env
	Limits Limits
	// Prompt is the user's task; Editor the editor state it was given in.
	Prompt string
	Editor *EditorContext
	// OnEvent receives every Event synchronously, one at a time; it must
	// not block for long (it holds up the loop).
	OnEvent func(Event)
	// Transcript, when set, receives the run's JSONL records. The caller
	// closes it.
	Transcript *Transcript
	// Tokens counts tokens; nil uses NewCounter().
	Tokens *Counter
	// Now is the clock for the date in the system prompt; nil is time.Now.
	Now func() time.Time
	// Getenv reads the environment the front-end serves (where the
	// user's AGENTS.md and skills are); nil is os.Getenv.
	Getenv func(string) string
	// Logger gets debug logs; nil discards them.
	Logger *slog.Logger
	// Mode is ModePlan for a planning run (read-only tools plus todo_write;
	// the answer is a plan for the user to approve); "" or anything else is
	// a normal run.
	Mode string
	// ReadOnlyMCPServers names the MCP servers whose read-only tools
	// (readOnlyHint) sub-agents may use; other MCP tools are never offered
	// to sub-agents.
	ReadOnlyMCPServers []string
	// ScriptLimits bound the programs of the script tool (script.*
	// settings); zero fields take the script package's defaults.
	ScriptLimits scripttool.Limits
	// ScriptSlots bound how many script programs run at once; the run's
	// sub-agents share them. A front-end that runs several runs at once
	// passes one Slots to all of them to bound the process; nil gives the
	// run its own (scripttool.DefaultConcurrent).
	ScriptSlots *scripttool.Slots
	// Language says a language server serves the workspace: the system
	// prompt asks the model to prefer the language tools to grep for
	// symbols and to fix the problems its edits introduce.
	Language bool
	// NoAgentTools leaves out the loop's own tools (todo_write, task,
	// skill), for callers that want exactly the registry's tools.
	NoAgentTools bool
	// History is the earlier conversation of the session this run
	// continues (Outcome.History of its previous run); it follows the
	// system prompt, before the task.
	History []HistoryMessage
	// Followup, when set, is put before the task in the task message:
	// what happened since the session's previous run (review decisions,
	// the user's changes).
	Followup string
	// Checks run on the proposal when the model gives its final answer
	// in a run that changed files (checks.go); failing ones go back to the
	// model up to Limits.MaxCheckRounds times.
	Checks []tools.Check
	// Between, when set, is called on the run's goroutine at every step
	// boundary: before each model call, before each tool call and before
	// Run returns. No tool call runs meanwhile, so it may update the run's
	// own changeset (a Session applies the user's review decisions
	// there); changes it makes are not reported as EventStaged.
	Between func()
}

// ModePlan is Options.Mode for a planning run.
const ModePlan = "plan"

// Status is how a run ended.
type Status int

// Run outcomes.
const (
	StatusFinished  Status = iota // the model gave a final answer
	StatusFailed                  // a limit or a model failure ended the run
	StatusCancelled               // the caller cancelled the context
)

// String names the status like the runEvent kinds do.
func (s Status) String() string {
	switch s {
	case StatusFinished:
		return "finished"
	case StatusFailed:
		return "failed"
	case StatusCancelled:
		return "cancelled"
	}
	return "unknown"
}

// Outcome is the result of Run.
type Outcome struct {
	RunID     string
	Status    Status
	Answer    string    // the model's final text (StatusFinished)
	Err       error     // why the run failed or was cancelled; errors.Is with the Err* values below
	Turns     int       // model calls made for the task (summaries excluded)
	ToolCalls int       // tool calls executed
	Usage     llm.Usage // summed over all model calls, summaries included
	// CostUSD is Usage priced with Options.Pricing; nil without pricing.
	CostUSD *float64
	// Model is the model the run used.
	Model string
	// Problems counts the problems the run introduced that were still
	// there at the end (language servers; see Event.Outstanding).
	Problems int
	// History is the conversation after the run (without the system
	// prompt), for the session's next run; see CarryHistory.
	History []HistoryMessage
	// Checks is the latest result of every check that ran, in the order
	// they first ran; empty when none did.
	Checks []tools.CheckResult
}

// Reasons a run fails, wrapped in Outcome.Err with details.
var (
	ErrMaxTurns     = errors.New("turn limit reached")
	ErrWallClock    = errors.New("wall-clock limit reached")
	ErrTokenBudget  = errors.New("token budget exhausted")
	ErrToolErrors   = errors.New("too many consecutive tool errors")
	ErrRepeatedCall = errors.New("the model repeated the same tool call")
	ErrModel        = errors.New("model request failed")
	ErrOptions      = errors.New("invalid run options")
)

// NewRunID returns a fresh random run id (12 hex digits).
func NewRunID() string {
	var b [6]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
