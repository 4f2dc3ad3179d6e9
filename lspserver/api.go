package lspserver

import (
	"github.com/agentls/agentls/lspserver/core"
	"github.com/agentls/agentls/lspserver/docs"
	"github.com/agentls/agentls/lspserver/review"
)

// The agentls protocol's names and types (docs/protocol.md), defined by
// the part that serves them and re-exported here so that cmd, editor
// tests and plugin authors' tools need only this package.

type (
	// Client is every server→client message agentls sends (core.Client).
	Client = core.Client
	// Session is what initialize negotiated (core.Session).
	Session = core.Session
	// ClientFeatures are the client capabilities agentls acts on.
	ClientFeatures = core.ClientFeatures

	// ProposalsParams are the params of agentls/proposals.
	ProposalsParams = review.ProposalsParams
	// ProposalsResult is the result of agentls/proposals.
	ProposalsResult = review.ProposalsResult
	// ProposalInfo is one run's proposed change to one document.
	ProposalInfo = review.ProposalInfo
	// HunkInfo is one hunk of a proposal.
	HunkInfo = review.HunkInfo

	// DocumentParams are the params of agentls/document.
	DocumentParams = docs.DocumentParams
	// DocumentResult is the result of agentls/document.
	DocumentResult = docs.DocumentResult
)

// MethodDocument is the agentls/document request: the server's view of a
// document.
const MethodDocument = docs.MethodDocument

// Review's commands and methods.
const (
	CommandAccept          = review.CommandAccept
	CommandReject          = review.CommandReject
	MethodProposals        = review.MethodProposals
	MethodProposalsChanged = review.MethodProposalsChanged
)
