package review

import (
	"context"
	"encoding/json"
	"log/slog"
	"time"

	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/agent/desk"
	"github.com/agentls/agentls/agent/proposal"
	"github.com/agentls/agentls/internal/memo"
	"github.com/agentls/agentls/internal/text"
	"github.com/agentls/agentls/internal/workspace"
	"github.com/agentls/agentls/lspserver/core"
	"github.com/agentls/agentls/lspserver/docs"
)

// The agentls.* commands review answers (docs/protocol.md).
const (
	CommandAccept = "agentls.accept"
	CommandReject = "agentls.reject"
)

// ArgShape is the shape of agentls.accept's and agentls.reject's
// arguments[0], for error messages.
const ArgShape = `{"runId"?: "…", "uri"?: "file:///…", "hunkId"?: "…", "reason"?: "…"}`

// Review is the review part of the server: the proposal store and its
// LSP face. It never calls into the runs part: runs feed it through Stage,
// and it answers with results and agent.Decisions the wiring passes to the
// runs' sessions.
type Review struct {
	core *core.Server
	docs *docs.Docs
	view *workspace.View
	src  desk.Source // the view's documents, for the desk
	log  *slog.Logger

	st    reviewState  // proposals under review (proposals.go)
	diags previewDiags // proposals as diagnostics for plugin-less clients (diagnostics.go)

	hunkDiags hunkDiagMemo                                 // preview diagnostics for the code actions (actions.go)
	lenses    memo.Map[string, lensStamp, json.RawMessage] // encoded code lenses per document (codelens.go)
}

// New returns the review part of c's session, on the documents of d. The
// wiring makes it follow d (docs.Docs.Follow).
func New(c *core.Server, d *docs.Docs) *Review {
	v := &Review{core: c, docs: d, view: d.View(), src: desk.ViewSource(d.View(), true), log: c.Log()}
	v.lenses.Max = maxLensDocs
	v.hunkDiags.m.Max = maxHunkDiags
	return v
}

// Pending is every proposal in review, for the runs' sessions (saving,
// follow-up runs, agentls/sessions).
func (v *Review) Pending() []proposal.Proposal { return v.state().store.List("") }

// PendingAt is every proposal in review for path (an absolute path, as
// staged).
func (v *Review) PendingAt(path string) []proposal.Proposal { return v.state().store.List(path) }

// SupersedeNew lets runID's proposal to create path replace those earlier
// runs of sess left in review (desk.Desk.SupersedeNew); it returns the
// runs superseded.
func (v *Review) SupersedeNew(sess *agent.Session, path, runID string) []string {
	return v.state().desk.SupersedeNew(sess, path, runID)
}

// CodeActions are the accept/reject code actions for the hunks
// overlapping r in the document key (core.DocKey) names; lazy leaves
// their commands out (for clients that resolve them:
// lspserver/runs/resolve.go).
func (v *Review) CodeActions(key string, r text.Range, lazy bool) []protocol.CommandOrCodeAction {
	return v.reviewActions(key, r, lazy)
}

// IsPreviewDiagnostic reports whether d is one of review's preview
// diagnostics (the client echoes diagnostics back in code action requests).
func (v *Review) IsPreviewDiagnostic(d protocol.Diagnostic) bool { return isPreviewDiagnostic(d) }

// Accept is the agentls.accept command. The decisions it returns (one per
// run and file whose hunks were applied) are for the runs' sessions.
func (v *Review) Accept(ctx context.Context, raw json.RawMessage) (any, []agent.Decision, error) {
	var a Args
	if err := core.DecodeArg(CommandAccept, ArgShape, raw, &a); err != nil {
		return nil, nil, err
	}
	return v.acceptCommand(ctx, a)
}

// Reject is the agentls.reject command. The decisions it returns (one per
// run and file whose hunks were dropped, with the user's reason) are for
// the runs' sessions.
func (v *Review) Reject(ctx context.Context, raw json.RawMessage) (any, []agent.Decision, error) {
	var a Args
	if err := core.DecodeArg(CommandReject, ArgShape, raw, &a); err != nil {
		return nil, nil, err
	}
	return v.rejectCommand(ctx, a)
}

// SetVerifyTimeout bounds how long accept waits for an applied edit to
// show in the buffer (tests of editors that never show it); zero is the
// default.
func (v *Review) SetVerifyTimeout(d time.Duration) { v.state().verifyWait.Store(int64(d)) }

// SetVerifyGrace bounds how long the accept command itself waits for an
// applied edit to show before it answers verifying:true and checks on
// after the answer (tests); zero is the default.
func (v *Review) SetVerifyGrace(d time.Duration) { v.state().verifyGrace.Store(int64(d)) }

// DiagnosticMaps returns the sizes of the preview publisher's maps keyed
// by document, for tests proving didClose empties them.
func (v *Review) DiagnosticMaps() (pending, published int) {
	d := &v.diags
	waiting, found := d.scans.Len()
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.pending.Len() + waiting, len(d.published) + found
}

// Args is arguments[0] of agentls.accept and agentls.reject
// (docs/protocol.md): no field selects everything pending.
type Args struct {
	RunID  string `json:"runId,omitempty"`
	URI    string `json:"uri,omitempty"`
	HunkID string `json:"hunkId,omitempty"`
	// Reason (agentls.reject only) is told to the model on the session's
	// next run.
	Reason string `json:"reason,omitempty"`
}

// AcceptResult is the result of agentls.accept.
type AcceptResult struct {
	Applied       bool           `json:"applied"`
	FailureReason string         `json:"failureReason,omitempty"`
	Conflicts     []HunkConflict `json:"conflicts,omitempty"`
	// AppliedHunks are the ids of the hunks this accept applied (an
	// addition to the contract): with Conflicts, every selected hunk is
	// accounted for, so a client can say exactly what happened.
	AppliedHunks []string `json:"appliedHunks,omitempty"`
	// Verifying (an addition to the contract): the editor answered that
	// it applied the edit but its documents do not show it yet; the
	// server records the accept when they do, or puts the hunks back in
	// review and says so with window/showMessage (verify.go).
	Verifying bool `json:"verifying,omitempty"`
}

// HunkConflict names a hunk that was not applied and why.
type HunkConflict struct {
	URI    string `json:"uri"`
	HunkID string `json:"hunkId"`
	Reason string `json:"reason"`
}

// RejectResult is the result of agentls.reject.
type RejectResult struct {
	Rejected int `json:"rejected"`
	// AskingReason (an addition to the contract): the hunks are rejected
	// and the server now asks the user why with window/showMessageRequest;
	// the session is told once they answer (reason.go).
	AskingReason bool `json:"askingReason,omitempty"`
}
