package lspserver

import (
	"github.com/agentls/agentls/lspserver/core"
	"github.com/agentls/agentls/lspserver/docs"
	"github.com/agentls/agentls/lspserver/review"
	"github.com/agentls/agentls/lspserver/runs"
)

// The agentls protocol's names and types (docs/protocol.md) are defined
// by the part that serves them; they are re-exported here so that cmd,
// the editor tests and plugin authors' tools need only this package.

type (
	// Client is every server→client message agentls sends (core.Client).
	Client = core.Client
	// Session is what initialize negotiated (core.Session).
	Session = core.Session
	// ClientFeatures are the client capabilities agentls acts on.
	ClientFeatures = core.ClientFeatures

	// DocumentParams are the params of agentls/document.
	DocumentParams = docs.DocumentParams
	// DocumentResult is the result of agentls/document.
	DocumentResult = docs.DocumentResult

	// ProposalsParams are the params of agentls/proposals.
	ProposalsParams = review.ProposalsParams
	// ProposalsResult is the result of agentls/proposals.
	ProposalsResult = review.ProposalsResult
	// ProposalInfo is one run's proposed change to one document.
	ProposalInfo = review.ProposalInfo
	// HunkInfo is one hunk of a proposal.
	HunkInfo = review.HunkInfo

	// RunOptions configure how the server loads configuration and
	// records agent runs (SetRunOptions).
	RunOptions = runs.Options
	// RunArgs is arguments[0] of agentls.run.
	RunArgs = runs.RunArgs
	// RunResult is the result of agentls.run.
	RunResult = runs.RunResult
	// CancelArgs is arguments[0] of agentls.cancel.
	CancelArgs = runs.CancelArgs
	// CancelResult is the result of agentls.cancel.
	CancelResult = runs.CancelResult
	// ApprovePlanArgs is arguments[0] of agentls.approvePlan.
	ApprovePlanArgs = runs.ApprovePlanArgs
	// RunEvent is the params of agentls/runEvent.
	RunEvent = runs.RunEvent
	// CheckState is one check's outcome in a terminal runEvent.
	CheckState = runs.CheckState
	// ElicitParams are agentls/elicit's params.
	ElicitParams = runs.ElicitParams
	// RegisterToolsParams are agentls/registerTools' params.
	RegisterToolsParams = runs.RegisterToolsParams
	// InvokeClientToolParams are agentls/invokeClientTool's params.
	InvokeClientToolParams = runs.InvokeClientToolParams
	// InvokeClientToolResult is agentls/invokeClientTool's result.
	InvokeClientToolResult = runs.InvokeClientToolResult
	// ElicitAnswer is agentls/elicit's result.
	ElicitAnswer = runs.ElicitAnswer
	// SessionsResult is the result of agentls/sessions.
	SessionsResult = runs.SessionsResult
	// SessionInfo describes one session.
	SessionInfo = runs.SessionInfo
	// SessionArgs is arguments[0] of agentls.deleteSession.
	SessionArgs = runs.SessionArgs

	RevertArgs     = runs.RevertArgs
	RevertResult   = runs.RevertResult
	RevertConflict = runs.RevertConflict
	ReportArgs     = runs.ReportArgs
	ReportResult   = runs.ReportResult
	ModelsResult   = runs.ModelsResult
)

// The agentls.* commands (workspace/executeCommand) and agentls/* methods.
const (
	CommandRun           = runs.CommandRun
	CommandCancel        = runs.CommandCancel
	CommandAccept        = review.CommandAccept
	CommandReject        = review.CommandReject
	CommandApprovePlan   = runs.CommandApprovePlan
	CommandDeleteSession = runs.CommandDeleteSession
	CommandClearSessions = runs.CommandClearSessions
	CommandRevert        = runs.CommandRevert
	CommandOpenReport    = runs.CommandOpenReport

	MethodDocument         = docs.MethodDocument
	MethodProposals        = review.MethodProposals
	MethodProposalsChanged = review.MethodProposalsChanged
	MethodSessions         = runs.MethodSessions
	MethodModels           = runs.MethodModels
	MethodRunEvent         = runs.MethodRunEvent
	MethodElicit           = runs.MethodElicit
	MethodRegisterTools    = runs.MethodRegisterTools
	MethodInvokeClientTool = runs.MethodInvokeClientTool
)

// Values of RunArgs.Mode and RunOptions.
const (
	// ModePlan is agentls.run's mode for a planning run.
	ModePlan = runs.ModePlan
	// NoTranscripts as RunOptions.TranscriptDir disables run transcripts.
	NoTranscripts = runs.NoTranscripts
	// NoSessionState as RunOptions.StateDir keeps sessions in memory only.
	NoSessionState = runs.NoSessionState
	// ServerName is serverInfo.name.
	ServerName = core.ServerName
)

// ErrBadHeader is wrapped by the error that ends serving when the input
// holds a header block the server cannot frame.
var ErrBadHeader = core.ErrBadHeader

// ErrClientTimeout is wrapped by the error of a server→client request the
// editor did not answer within client.requestTimeoutSeconds.
var ErrClientTimeout = core.ErrClientTimeout
