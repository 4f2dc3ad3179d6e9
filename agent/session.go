package agent

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/agentls/agentls/agent/config"
	"github.com/agentls/agentls/agent/llm"
	"github.com/agentls/agentls/internal/workspace"
	"github.com/agentls/agentls/tools"
	"github.com/agentls/agentls/tools/lang"
	scripttool "github.com/agentls/agentls/tools/script"
)

// A Session is the one owner of building and running agent runs: the
// model client, the tools and their policy, the MCP tools, the transcript,
// the limits and the conversation. Front-ends (the CLI's `agentls run`,
// lspserver's agentls.run) describe what they have (Setup) and what the
// user asked (RunRequest), then Prepare and Execute; they see the run
// only through its events (text, tool calls, staged changes, the end).
//
// Review decisions on a run's staged changes (accept, reject, with a
// reason) come back as explicit inputs (Decide): a running run applies
// them to its own changeset at its next step boundary, and the session
// keeps them for the model on its next run. Nothing calls into a run
// while it works.
type Session struct {
	id string

	mu     sync.Mutex
	inputs []Decision // decisions not yet applied to the active run
	active string     // id of the run in progress, "" when none
	st     sessionState
	// transcriptDir is where this session's runs write transcripts (the
	// last Setup's), for fates recorded after a run ended; "" is the
	// default, NoTranscript none.
	transcriptDir string
	// transcripts remembers the transcript file of each run executed in
	// this process ("" for a run without one) and of runs whose file
	// RecordFate had to look up, so a review decision appends to it
	// without listing the transcript directory (transcriptOrder bounds it).
	transcripts     map[string]string
	transcriptOrder []string
}

// maxKnownTranscripts bounds the transcript paths a session remembers;
// a run forgotten past it is looked up again (FindTranscript).
const maxKnownTranscripts = 256

// NewSession returns a new, empty session; id "" gets a fresh one.
func NewSession(id string) *Session {
	if id == "" {
		id = NewRunID()
	}
	now := time.Now().UTC()
	return &Session{id: id, st: sessionState{Created: now, Updated: now, Known: map[string]string{}}}
}

// ID names the session (agentls.run's sessionId).
func (s *Session) ID() string { return s.id }

// Setup is what a front-end provides to build a run from.
type Setup struct {
	// Config is the merged configuration: model, tool policy, limits,
	// context window, deferred tool share.
	Config config.Config
	// View is the workspace the tools work on.
	View *workspace.View
	// Approver answers approval requests (run_command); nil denies.
	Approver tools.Approver
	// Logger receives the run's logs; nil discards them.
	Logger *slog.Logger
	// TranscriptDir is where the JSONL transcript goes: "" is
	// DefaultTranscriptDir, NoTranscript disables it.
	TranscriptDir string
	// ViewDir is where the run's proposal view (the scratch copy commands
	// and checks run in) is made: "" is $XDG_CACHE_HOME/agentls/views.
	ViewDir string
	// SyncTools, when set, is called before every model call with the
	// run's registry, so tools that come and go (MCP servers) are offered
	// as they are at that turn.
	SyncTools func(*tools.Registry)
	// Model, when set, is used instead of a client built from Config
	// (tests with fakes); the run does not close it.
	Model Model
	// Getenv reads the front-end's environment (the user's AGENTS.md and
	// skills folder); nil is os.Getenv.
	Getenv func(string) string
	// BeforeRead, when set, becomes the run's tools.Env.BeforeRead: the
	// front-end pulls the editor's buffer for a path before a tool reads
	// it (ACP's fs/read_text_file); its error fails the tool's read.
	BeforeRead func(path string) error
	// PendingNew, when set, becomes the run's tools.Env.PendingNewFile:
	// the front-end that owns proposals reports the new file an earlier
	// run of this session proposed at a path that does not exist, still
	// in review, so the run can read and change it (tools/pending_new.go).
	PendingNew func(path string) (tools.PendingNew, bool)
	// Lang, when set, are the language servers the front-end keeps for
	// its workspace (NewLanguageManager): when one serves the workspace's
	// files, every edit result ends with the problems it introduced and
	// the language tools (definition, references, symbols, rename,
	// diagnostics) are offered from the first request. nil: none.
	Lang *lang.Manager
	// ScriptSlots, when set, bound the script programs of this run
	// together with every other run given the same Slots (a front-end's
	// runs); nil: the run's own (Options.ScriptSlots).
	ScriptSlots *scripttool.Slots
}

// NoTranscript as Setup.TranscriptDir disables the run's transcript.
// It is NoState, so a face's "keep nothing" setting passes through as is.
const NoTranscript = NoState

// RunRequest is one task for the session.
type RunRequest struct {
	// RunID names the run; "" gets a fresh one.
	RunID  string
	Prompt string
	Editor *EditorContext
	// OnEvent receives the run's events in order (Options.OnEvent).
	OnEvent func(Event)
	// Proposals are the session's proposals still in review (the front-end
	// owns them), told to the model when the run continues the session.
	Proposals []ProposalState
	// Mode is ModePlan for a planning run (read-only tools plus
	// todo_write); anything else is a normal run.
	Mode string
	// Model, when set, is the model for this run and the session's later
	// runs (agentls.run's "model", agentls run --model), instead of
	// model.name.
	Model string
}

// SessionRun is a run built by Prepare and not yet executed (or
// executing). Its changeset and registry are exposed for front-ends that
// act on staged changes themselves (apply mode, `agentls run --apply`)
// or add tools before the run starts (the CLI's MCP servers).
type SessionRun struct {
	s       *Session
	setup   Setup
	req     RunRequest
	env     *tools.Env
	reg     *tools.Registry
	counter *Counter
	offer   *tools.Offer
	model   Model
	closer  func()
	closeMu sync.Once
	lang    bool // a language server serves the workspace (Setup.Lang)
	// warm starts the run's language servers (lang.Run.Warm); Execute
	// runs it beside the first model request.
	warm func(context.Context)

	transcriptPath string
}

// NewModelClient builds the model client described by cfg.
func NewModelClient(cfg config.Config, logger *slog.Logger) (*llm.Client, error) {
	lc := cfg.LLM()
	lc.Logger = logger
	c, err := llm.New(lc)
	if err != nil {
		return nil, fmt.Errorf("model client: %w", err)
	}
	return c, nil
}

// Prepare builds a run: the model client (unless setup.Model is given),
// the tool policy, environment, registry and offer. It fails on a prompt
// or model name CheckAsk refuses, on a configuration without a model
// (RunConfig's error, which names what to set) and when the model client
// cannot be built. A
// prepared run must be Executed or Closed. ctx bounds the walk that finds
// which language servers serve the workspace (a large tree, a cancelled
// request); it is not kept: Execute takes the run's own.
func (s *Session) Prepare(ctx context.Context, setup Setup, req RunRequest) (*SessionRun, error) {
	if err := CheckPrompt(req.Prompt); err != nil {
		return nil, err
	}
	if req.Model != "" {
		if err := CheckModelName(req.Model); err != nil {
			return nil, err
		}
	}
	if req.RunID == "" {
		req.RunID = NewRunID()
	}
	if setup.Logger == nil {
		setup.Logger = slog.New(slog.DiscardHandler)
	}
	// The run's model (RunConfig); a configuration without one is refused
	// here too, so no face can skip the check (a given Model needs none).
	cfg, err := s.RunConfig(setup.Config, req.Model)
	if err != nil && setup.Model == nil {
		return nil, err
	}
	setup.Config = cfg
	if err := CheckPromptFor(len(req.Prompt), setup.Config.Model.ContextWindow); err != nil {
		return nil, err
	}
	r := &SessionRun{s: s, setup: setup, req: req, model: setup.Model, closer: func() {}}
	if r.model == nil {
		c, err := NewModelClient(setup.Config, setup.Logger.With("component", "llm"))
		if err != nil {
			return nil, err
		}
		r.model, r.closer = c, c.Close
	}
	// The session keeps a choice for its follow-ups (also over restarts:
	// it is saved), once a run could be built with it.
	if req.Model != "" {
		s.mu.Lock()
		s.st.Model = req.Model
		s.mu.Unlock()
	}
	policy := tools.Policy{RunCommand: cfg.Tools.RunCommand, AllowSecrets: cfg.Tools.AllowSecrets,
		SecretPatterns: cfg.Tools.SecretPatterns, CommandTimeout: cfg.CommandTimeout()}
	r.env = tools.NewEnv(req.RunID, setup.View, setup.Approver, policy)
	r.env.Proposal.BaseDir = setup.ViewDir
	r.env.BeforeRead = setup.BeforeRead
	r.env.PendingNewFile = setup.PendingNew
	r.reg = tools.NewRegistry(tools.Builtins(policy)...)
	if lr := setup.Lang.NewRun(ctx, r.env); lr != nil {
		r.env.Diagnoser = lr
		r.lang, r.warm = true, lr.Warm
		// Offered from the first request like the other built-ins: the
		// agent navigates with them, and holding them behind tool_search
		// would cost a model turn before their first use (their price in
		// tokens: docs/performance.md).
		for _, t := range lr.Tools() {
			r.reg.Add(t)
		}
	}
	r.counter = NewCounter()
	r.offer = tools.NewOffer(r.reg, cfg.Model.ContextWindow, cfg.MCP.DeferredToolShare, r.counter.Count)
	return r, nil
}

// ID is the run's id.
func (r *SessionRun) ID() string { return r.req.RunID }

// Env is what the run's tool calls reach; Env().Changes holds its staged
// changes.
func (r *SessionRun) Env() *tools.Env { return r.env }

// Registry is the run's tool registry (built-ins; add tools before
// Execute).
func (r *SessionRun) Registry() *tools.Registry { return r.reg }

// TranscriptPath is the transcript file of an executed run, "" if none.
func (r *SessionRun) TranscriptPath() string { return r.transcriptPath }

// Close releases the model client; Execute does it itself. It is safe to
// call more than once.
func (r *SessionRun) Close() { r.closeMu.Do(r.closer) }

// Execute runs the task and returns how it ended; it blocks until the run
// is over (cancel ctx to stop it early). The transcript is opened here
// (a failure is logged: the run goes on without one).
func (r *SessionRun) Execute(ctx context.Context) Outcome {
	defer r.Close()
	s, log := r.s, r.setup.Logger
	tr := r.openTranscript()
	s.mu.Lock()
	s.transcriptDir = r.setup.TranscriptDir
	s.rememberTranscript(r.req.RunID, tr.Path())
	s.mu.Unlock()
	var folders []string
	if r.setup.View != nil {
		folders = r.setup.View.Folders()
	}
	tr.record("session", map[string]any{"sessionId": s.id, "runId": r.req.RunID, "folders": folders, "mode": r.req.Mode, "model": r.setup.Config.Model.Name, "prompt": r.req.Prompt})
	history, followup := s.begin(r.req, r.setup.View)
	out := Run(ctx, Options{
		History:  history,
		Followup: followup,
		Model:    r.model,
		ToolsForTurn: func() []tools.Tool {
			if r.setup.SyncTools != nil {
				r.setup.SyncTools(r.reg)
			}
			return r.offer.Tools()
		},
		Offer:      r.offer,
		Env:        r.env,
		Limits:     LimitsFromConfig(r.setup.Config),
		Prompt:     r.req.Prompt,
		Editor:     r.req.Editor,
		OnEvent:    r.req.OnEvent,
		Transcript: tr,
		Tokens:     r.counter,
		Logger:     log,
		Getenv:     r.setup.Getenv,
		Warm:       r.warm,
		Between:    r.applyDecisions,
		Pricing:    r.setup.Config.Model.Pricing,
		Mode:       r.req.Mode,
		Checks:     ChecksFromConfig(r.setup.Config),
		Language:   r.lang,

		ReadOnlyMCPServers: r.setup.Config.MCP.ReadOnlyServers,
		ScriptLimits:       ScriptLimitsFromConfig(r.setup.Config),
		ScriptSlots:        r.setup.ScriptSlots,
	})
	out.Model = r.setup.Config.Model.Name
	if out.RunID == "" { // a run refused before it started
		out.RunID = r.req.RunID
	}
	s.end(r, out)
	if tr != nil {
		r.transcriptPath = tr.Path()
		if err := tr.Close(); err != nil {
			log.Warn("run transcript incomplete", "path", tr.Path(), "err", err)
		}
	}
	return out
}

func (r *SessionRun) openTranscript() *Transcript {
	dir := r.setup.TranscriptDir
	if dir == NoTranscript {
		return nil
	}
	tr, err := OpenTranscript(dir, r.req.RunID, NewRedactor(r.setup.Config.APIKey()))
	if err != nil {
		r.setup.Logger.Warn("no transcript for this run", "err", err)
		return nil
	}
	return tr
}
