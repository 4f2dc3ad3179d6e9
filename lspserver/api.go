package lspserver

import (
	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/agent/llm"
	"github.com/agentls/agentls/lspserver/core"
	"github.com/agentls/agentls/lspserver/docs"
	"github.com/agentls/agentls/lspserver/review"
	"github.com/agentls/agentls/lspserver/runs"
	"github.com/agentls/agentls/tools/editortools"
)

// The agentls protocol's names and types (docs/protocol.md) are defined
// by the part that serves them; they are re-exported here so that cmd,
// the editor tests and plugin authors' tools need only this package.
// wire_ext_test.go holds editors/vscode/src/lsp_ext.ts to these: a type
// added here is either mirrored there or listed in that test as not.

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
	// Problem is one problem a proposal or a change brings into a file.
	Problem = core.Problem
	// ProposalsChangedParams are the params of agentls/proposalsChanged.
	ProposalsChangedParams = review.ProposalsChangedParams
	// ReviewArgs is arguments[0] of agentls.accept and agentls.reject.
	ReviewArgs = review.Args
	// AcceptResult is the result of agentls.accept.
	AcceptResult = review.AcceptResult
	// RememberArgs is arguments[0] of agentls.remember.
	RememberArgs = review.RememberArgs
	// RememberResult is the result of agentls.remember.
	RememberResult = review.RememberResult
	// HunkConflict is a hunk an accept could not apply, and why.
	HunkConflict = review.HunkConflict
	// RejectResult is the result of agentls.reject.
	RejectResult = review.RejectResult

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
	// PlansResult is the result of agentls/plans.
	PlansResult = runs.PlansResult
	// PlanInfo is one plan awaiting approval.
	PlanInfo = runs.PlanInfo
	// RunEvent is the params of agentls/runEvent.
	RunEvent = runs.RunEvent
	// CheckState is one check's outcome in a terminal runEvent.
	CheckState = runs.CheckState
	// Usage is a run's token totals on its terminal runEvent.
	Usage = llm.Usage
	// Todo is one item of the model's plan in a "todo" runEvent.
	Todo = agent.Todo
	// ElicitParams are agentls/elicit's params.
	ElicitParams = runs.ElicitParams
	// RegisterToolsParams are agentls/registerTools' params.
	RegisterToolsParams = runs.RegisterToolsParams
	// EditorToolDef is one of the editor's own tools in RegisterToolsParams.
	EditorToolDef = editortools.Def
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

	// RevertArgs is arguments[0] of agentls.revert.
	RevertArgs = runs.RevertArgs
	// RevertResult is the result of agentls.revert.
	RevertResult = runs.RevertResult
	// RevertConflict is a file (part) a revert left alone, and why.
	RevertConflict = runs.RevertConflict
	// ReportArgs is arguments[0] of agentls.openReport.
	ReportArgs = runs.ReportArgs
	// ReportResult is the result of agentls.openReport.
	ReportResult = runs.ReportResult
	// ModelsResult is the result of agentls/models.
	ModelsResult = runs.ModelsResult
	// ModelInfo is one model of ModelsResult.
	ModelInfo = runs.ModelInfo
	// CompletionUsage is ModelsResult's completion usage.
	CompletionUsage = runs.CompletionUsage
)

// The agentls.* commands (workspace/executeCommand) and agentls/* methods.
const (
	CommandRun           = runs.CommandRun
	CommandCancel        = runs.CommandCancel
	CommandAccept        = review.CommandAccept
	CommandRemember      = review.CommandRemember
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
	MethodPlans            = runs.MethodPlans
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

// ErrClientTimeout is wrapped by the error of a server→client request the
// editor did not answer within client.requestTimeoutSeconds.
var ErrClientTimeout = core.ErrClientTimeout
