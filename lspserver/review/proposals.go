package review

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/agent/desk"
	"github.com/agentls/agentls/agent/proposal"
	"github.com/agentls/agentls/internal/pending"
	"github.com/agentls/agentls/internal/workspace"
	"github.com/agentls/agentls/lspserver/core"
)

// This file wires the proposal store (agent/proposal) into the server:
// the review state, the agentls/proposals request and the announcements
// (agentls/proposalsChanged, workspace/codeLens/refresh) sent when the
// store's proposals change. The desk (agent/desk) owns the rules;
// staging is in stage.go, the rebase hooks in rebase.go, accept/reject in
// accept.go.

// MethodProposals is the agentls/proposals request (docs/protocol.md "Custom
// requests"): the pending proposals, with hunk ranges in the document as the
// client has it now.
const MethodProposals = "agentls/proposals"

// MethodProposalsChanged is the agentls/proposalsChanged notification: the
// proposals of a document changed (docs/protocol.md).
const MethodProposalsChanged = "agentls/proposalsChanged"

// ProposalsParams are the params of agentls/proposals; no uri lists every
// document.
type ProposalsParams struct {
	URI uri.URI `json:"uri,omitempty"`
}

// ProposalsResult is the result of agentls/proposals.
type ProposalsResult struct {
	Proposals []ProposalInfo `json:"proposals"`
}

// ProposalInfo is one run's proposed change to one document. ProposedText
// is the current document with every pending hunk applied (conflicted hunks
// cannot apply and are left out).
type ProposalInfo struct {
	URI   uri.URI `json:"uri"`
	RunID string  `json:"runId"`
	// Source is "next-edit" for a next-edit suggestion (its runId names
	// no agent run); absent for an agent run's proposal.
	Source       string     `json:"source,omitempty"`
	Status       string     `json:"status"` // "pending" | "conflicted" (any hunk conflicted)
	ProposedText string     `json:"proposedText"`
	Hunks        []HunkInfo `json:"hunks"`
	// Created: the run creates the file (it does not exist yet; its one
	// hunk covers the whole, empty, document).
	Created bool `json:"created,omitempty"`
	// Problems are the problems this proposal brings into the file, as
	// the workspace's language server reported them (ranges in the
	// proposed text as it was checked); absent when no language server
	// judged it, empty when it brings none.
	Problems []core.Problem `json:"problems,omitzero"`
}

// HunkInfo is one hunk of a proposal. Status, Reason and LastError are
// agentls additions to the fixed contract (allowed: fields may be added).
type HunkInfo struct {
	ID      string         `json:"id"`
	Range   protocol.Range `json:"range"`
	OldText string         `json:"oldText"`
	NewText string         `json:"newText"`
	// Status is "pending" or "conflicted"; a conflicted hunk is never
	// applied.
	Status string `json:"status"`
	// Reason says why a hunk is conflicted.
	Reason string `json:"reason,omitempty"`
	// LastError is the editor's reason when the last accept of the hunk
	// failed.
	LastError string `json:"lastError,omitempty"`
	// SupersededBy is the hunk of another run that replaced this one: an
	// accepted hunk that changed this hunk's lines or already made its
	// change (agent/proposal, clash.go), or a later run of the session
	// that wrote its own version of this new file (replace.go). The hunk
	// is conflicted for good and never applies.
	SupersededBy string `json:"supersededBy,omitempty"`
}

// refreshTimeout bounds the wait for the editor's answer to
// workspace/codeLens/refresh, so an editor that never answers cannot stall
// later announcements.
const refreshTimeout = 10 * time.Second

// ProposalsChangedParams are the params of agentls/proposalsChanged.
type ProposalsChangedParams struct {
	URI uri.URI `json:"uri"`
}

// reviewState is the server's side of previews: the proposal store,
// and the announcer queue. Its zero value is inert: state() initialises it on first use.
type reviewState struct {
	once sync.Once
	// desk owns the proposals and orders every update of a document's
	// text into them (agent/desk); store is its store, for queries.
	desk  *desk.Desk
	store *proposal.Store

	announce pending.Set // paths whose proposals changed, for the announcer

	// verifyWait and verifyGrace override defaultVerifyTimeout and
	// defaultVerifyGrace (tests); zero means the default.
	verifyWait, verifyGrace atomic.Int64
	// decided receives the decisions of accepts settled after the
	// command's answer (OnDecided).
	decided atomic.Pointer[func([]agent.Decision)]
	// reasons receives rejections whose reason the user is asked
	// (OnReason, reason.go).
	reasons atomic.Pointer[reasonSinks]
}

// state returns the review state, starting it on first use: the store, its
// change subscription, the disk-change subscription and the announcer
// goroutine (owned by the server, stopped with it).
func (v *Review) state() *reviewState {
	r := &v.st
	r.once.Do(func() {
		r.desk = desk.New(v.log)
		r.store = r.desk.Store()
		stopStore := r.store.OnChange(r.announce.Add)
		v.startPreviewDiagnostics(r)
		stopView := v.view.Subscribe(func(ev workspace.Event) {
			if !ev.Buffer {
				v.diskChanged(ev.Path)
			}
		})
		v.core.Go("announce proposals", func(ctx context.Context) {
			defer stopStore()
			defer stopView()
			r.announce.Run(ctx, v.announce)
		})
	})
	return r
}

// announce sends agentls/proposalsChanged for every path of a round, then
// one workspace/codeLens/refresh when the client supports it; changes that
// arrive while a refresh is outstanding come in the next round. The
// refresh is a request, so it runs on the announcer and never on the read
// loop.
func (v *Review) announce(ctx context.Context, paths []string) {
	if v.core.Client() == nil {
		return
	}
	for _, p := range paths {
		if err := v.core.Client().Notify(ctx, MethodProposalsChanged, &ProposalsChangedParams{URI: v.docs.URIOf(p)}); err != nil {
			v.log.Warn("announce proposals", "path", p, "err", err)
		}
	}
	if v.core.Session().Features.CodeLensRefresh {
		rctx, cancel := context.WithTimeout(ctx, refreshTimeout)
		if err := v.core.Client().CodeLensRefresh(rctx); err != nil {
			v.log.Warn("code lens refresh", "err", err)
		}
		cancel()
	}
}

// Proposals answers agentls/proposals.
func (v *Review) Proposals(_ context.Context, p *ProposalsParams) (*ProposalsResult, error) {
	path := ""
	if p.URI != "" {
		path = v.docs.PathOf(p.URI)
	}
	enc := v.core.Session().Encoding
	list := v.state().store.ListLSP(path, enc)
	out := &ProposalsResult{Proposals: make([]ProposalInfo, 0, len(list))}
	for _, pr := range list {
		info := ProposalInfo{
			URI:          v.docs.URIOf(pr.Path),
			RunID:        pr.RunID,
			Source:       pr.Source,
			Status:       string(pr.Status()),
			ProposedText: pr.Result(),
			Hunks:        make([]HunkInfo, len(pr.Hunks)),
			Created:      pr.Created,
			Problems:     v.proposalProblems(pr.RunID, pr.Path, enc),
		}
		for i, h := range pr.Hunks {
			info.Hunks[i] = HunkInfo{
				ID: h.ID, Range: core.ToProtocolRange(h.Range), OldText: h.OldText, NewText: h.NewText,
				Status: string(h.Status), Reason: h.Reason, LastError: h.LastError, SupersededBy: h.SupersededBy,
			}
		}
		out.Proposals = append(out.Proposals, info)
	}
	return out, nil
}
