package tools

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/agentls/agentls/internal/workspace"
	"github.com/agentls/agentls/tools/skills"
)

// Env is what a tool call can reach: one per agent run. The loop builds it
// with NewEnv; lspserver and the CLI supply the Approver and react to staged
// changes through the Changeset.
type Env struct {
	RunID    string
	View     *workspace.View // buffers first, then disk (read cache)
	Ledger   *Ledger         // what this run has read (optimistic locks)
	Changes  *Changeset      // what this run has staged
	Approver Approver        // nil denies everything
	Policy   Policy          // user settings that gate tools
	// Skills are the skills this run may load (skill tool) and whose
	// folders read_file may read; nil means none.
	Skills *skills.Set
	// BeforeRead, when set, is called with an absolute, confined path
	// right before a tool reads it through View (read_file, and the lock
	// check of every edit), so a front-end whose editor does not push its
	// buffers (ACP's fs/read_text_file) can put the editor's current text
	// into View first. It must bound its own wait; nil does nothing. An
	// error fails the read (the tool tells the model): the editor holds
	// a text agentls cannot take, and the disk's may be stale.
	BeforeRead func(path string) error
	// Proposal is the run's proposal view, where commands run while the
	// run has staged changes; nil runs them in the workspace folder. The
	// run's owner closes it when the run ends.
	Proposal *ProposalView
	// Diagnoser, when set, judges every staged change with the workspace's
	// language servers (tools/lang); nil leaves edit results as they are.
	Diagnoser Diagnoser
	// PendingNewFile, when set, reports the new file an earlier run of
	// this run's session proposed at an absolute path that does not
	// exist, still awaiting review (pending_new.go); nil: none.
	PendingNewFile func(path string) (PendingNew, bool)

	approvals approvalMemory // "allow always" answers, per tool
}

// Policy holds the user's settings that change tool behaviour.
type Policy struct {
	RunCommand string // "off" (default), "ask"; anything else is "off"
	// AllowSecrets sends secret-looking files to the model. Without it,
	// read_file refuses them, grep skips them, rename will not change them
	// and language-server diagnostics of them are left out:
	// defaultSecretPatterns plus SecretPatterns.
	AllowSecrets bool
	// SecretPatterns are extra doublestar patterns treated as secrets;
	// one without "/" matches the base name, one with "/" the path
	// relative to its workspace folder.
	SecretPatterns []string
	// CommandTimeout bounds one run_command call, the user's
	// tools.commandTimeoutSeconds: the default when the model names no
	// timeout, and the most it may ask for. 0 means 120 s.
	CommandTimeout time.Duration
}

// NewEnv returns the environment for run id over view.
func NewEnv(runID string, view *workspace.View, approver Approver, policy Policy) *Env {
	ledger := NewLedger()
	changes := NewChangeset(view)
	changes.ledger = ledger
	return &Env{RunID: runID, View: view, Ledger: ledger, Changes: changes, Approver: approver, Policy: policy,
		Proposal: NewProposalView(view, changes, runID)}
}

// CommandPlace is where a command of this run runs: the proposal view
// while the run has staged changes (InView), else the first workspace
// folder (nothing is staged, or apply mode, where changes reach the
// editor as they are made). The caller calls Place.Done after the command.
func (env *Env) CommandPlace(ctx context.Context) (Place, error) {
	folders := env.View.Folders()
	if len(folders) == 0 {
		return Place{}, errors.New("no workspace folder is open, so there is nowhere to run a command")
	}
	if env.Proposal == nil || env.Changes == nil || len(env.Changes.Files()) == 0 {
		return Place{Dir: folders[0]}, nil
	}
	return env.Proposal.Enter(ctx)
}

// beforeRead calls BeforeRead when set.
func (env *Env) beforeRead(path string) error {
	if env.BeforeRead != nil {
		return env.BeforeRead(path)
	}
	return nil
}

// approvalMemory remembers AllowAlways decisions for the life of an Env.
// Its zero value is ready to use.
type approvalMemory struct {
	mu     sync.Mutex
	always map[string]bool
}

func (m *approvalMemory) allowed(tool string) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.always[tool]
}

func (m *approvalMemory) remember(tool string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.always == nil {
		m.always = map[string]bool{}
	}
	m.always[tool] = true
}
