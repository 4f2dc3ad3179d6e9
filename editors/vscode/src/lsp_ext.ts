// The agentls protocol extensions (docs/protocol.md),
// typed once here: the agentls.* commands with their argument and result
// shapes, the agentls/* requests and notifications. Nothing else in the
// extension spells a method name. A copy of the server's Go types
// (lspserver/api.go): lspserver/wire_ext_test.go fails when the two differ,
// and reads this file with a small parser (wire_ts_test.go), so keep to the forms used here.
//
// Imports only vscode-languageserver-protocol (no "vscode"), so the pure
// modules and their unit tests can use these types under plain node.
import * as lc from "vscode-languageserver-protocol";

/** An LSP position; `character` counts UTF-16 code units (VS Code's encoding). */
export interface Position {
  line: number;
  character: number;
}

/** An LSP range, end exclusive. */
export interface Range {
  start: Position;
  end: Position;
}

/** The workspace/executeCommand command names agentls offers. */
export const Commands = {
  run: "agentls.run",
  cancel: "agentls.cancel",
  accept: "agentls.accept",
  reject: "agentls.reject",
  approvePlan: "agentls.approvePlan",
  revert: "agentls.revert",
  openReport: "agentls.openReport",
  remember: "agentls.remember",
} as const;

/** agentls.revert arguments[0]. */
export interface RevertArgs {
  runId: string;
}

/** A file (part) a revert left alone, and why. */
export interface RevertConflict {
  uri: string;
  reason: string;
}

/**
 * agentls.revert result: how many files went back, what was left alone;
 * `note` says why nothing was done (already reverted), `failureReason` why
 * the editor did not take the edit.
 */
export interface RevertResult {
  reverted: number;
  conflicts: RevertConflict[];
  note?: string;
  failureReason?: string;
}

/** agentls.openReport arguments[0] (none: the workspace's newest run). */
export interface ReportArgs {
  runId?: string;
  sessionId?: string;
}

/** agentls.openReport result: the HTML report the server wrote. */
export interface ReportResult {
  uri: string;
}

/** agentls.remember arguments[0]: a rule for the project's AGENTS.md. */
export interface RememberArgs {
  note: string;
  scope?: string;
}

/**
 * agentls.remember result: the run id the proposal is filed under and the
 * file it changes; `unchanged` when the file already holds the rule.
 */
export interface RememberResult {
  runId?: string;
  uri?: string;
  unchanged?: boolean;
}

/** One model a run may pick. */
export interface ModelInfo {
  id: string;
}

/** agentls/models result. */
export interface ModelsResult {
  models: ModelInfo[];
  /** The configured model. */
  current: string;
  /** Why the endpoint's list is missing (the configured model and model.choices are still there). */
  error?: string;
  /** What inline completions and next edits used since the server started, apart from runs; absent when completions are off. */
  completion?: CompletionUsage;
}

/** The completion model and its usage (agentls/models). */
export interface CompletionUsage {
  model: string;
  /** Completion requests received. */
  requests: number;
  /** Requests sent to the model (completions and next edits). */
  modelRequests: number;
  /** Answered by typing through a completion, no model request. */
  fromMemory: number;
  /** Answered empty: the document changed or a newer request came. */
  stale: number;
  /** Model requests closed before their answer. */
  aborted: number;
  /** Model requests that failed. */
  failed: number;
  /** Next-edit requests sent (also in modelRequests). */
  nextEdits: number;
  /** Next-edit answers that suggested an edit. */
  nextEditSuggestions: number;
  /** Next-edit requests a newer settle or a close outdated. */
  nextEditAborted: number;
  promptTokens: number;
  completionTokens: number;
  /** When model.pricing applies to the completion model. */
  costUsd?: number;
}

/** agentls/models: the models agentls.run's `model` may name. */
export const models = new lc.RequestType<Record<string, never>, ModelsResult, void>("agentls/models");

/** agentls.approvePlan arguments[0]: the plan run (none: the latest plan). */
export interface ApprovePlanArgs {
  runId?: string;
}

/** How an agent run delivers its changes. */
export type Mode = "preview" | "apply" | "plan";

/** agentls.run arguments[0]. */
export interface RunArgs {
  prompt: string;
  uri?: string;
  range?: Range;
  mode?: Mode;
  /** Continues that session; absent starts a new one. */
  sessionId?: string;
  /** The model of this run and of its session's later runs. */
  model?: string;
}

/** agentls.run result: answered at once, the run continues in the background. */
export interface RunResult {
  runId: string;
  /** The session the run belongs to (agentls/sessions lists them). */
  sessionId: string;
}

/** agentls.cancel arguments[0]. */
export interface CancelArgs {
  runId: string;
}

/** agentls.cancel result. */
export interface CancelResult {
  cancelled: boolean;
}

/** agentls.accept / agentls.reject arguments[0]; no field means everything pending. */
export interface ReviewArgs {
  runId?: string;
  uri?: string;
  hunkId?: string;
  /** agentls.reject only: why, told to the model on the session's next run. */
  reason?: string;
}

/** A hunk that could not be applied. */
export interface Conflict {
  uri: string;
  hunkId: string;
  reason: string;
}

/** agentls.accept result. */
export interface AcceptResult {
  applied: boolean;
  failureReason?: string;
  conflicts?: Conflict[];
  /** The hunks this accept applied (absent from older servers). */
  appliedHunks?: string[];
  /**
   * The editor applied the edit but had not reported it (didChange) when
   * the server answered: the accept is recorded once it does, or the
   * hunks go back to review with a window/showMessage warning
   * (docs/protocol.md, "When the edit shows"). VS Code reports before
   * answering workspace/applyEdit, so this is rare here.
   */
  verifying?: boolean;
}

/** agentls.reject result. */
export interface RejectResult {
  rejected: number;
  /** The server asks the user why (clients without our plugins only). */
  askingReason?: boolean;
}

/** One change inside a proposal; `range` is in the document as it is now. */
export interface Hunk {
  id: string;
  range: Range;
  oldText: string;
  newText: string;
  /** The hunk's own state (a proposal is conflicted when any of its hunks is). */
  status: "pending" | "conflicted";
  /** Why the hunk is conflicted, for the user. */
  reason?: string;
  /** The editor's reason when the last accept of this hunk failed. */
  lastError?: string;
  /**
   * The accepted hunk (of another run) that already made this change or
   * changed its lines: this one is conflicted for good and never applies.
   */
  supersededBy?: string;
}

/** A file's pending (or conflicted) proposal from one run. */
export interface Proposal {
  uri: string;
  runId: string;
  /** "next-edit": a next-edit suggestion (its runId names no run); absent for an agent run's proposal. */
  source?: "next-edit";
  status: "pending" | "conflicted";
  proposedText: string;
  hunks: Hunk[];
  /** The run creates the file: it does not exist yet. */
  created?: boolean;
  /**
   * The problems this proposal brings into the file, as the workspace's
   * language server reported them (ranges in the proposed text); absent
   * when no language server judged it.
   */
  problems?: Problem[];
}

/** A problem a language server reported in a run's proposed text. */
export interface Problem {
  range: Range;
  /** LSP DiagnosticSeverity: 1 error, 2 warning. */
  severity: number;
  message: string;
  source?: string;
}

/** agentls/proposals params. */
export interface ProposalsParams {
  uri?: string;
}

/** agentls/proposals result. */
export interface ProposalsResult {
  proposals: Proposal[];
}

/** agentls/proposals: the pending proposals, of one document or all. */
export const proposals = new lc.RequestType<ProposalsParams, ProposalsResult, void>("agentls/proposals");

/** agentls/document params. */
export interface DocumentParams {
  uri: string;
}

/** agentls/document result: the server's view of a document. */
export interface DocumentResult {
  version: number | null;
  text: string;
}

/** One session in agentls/sessions. */
export interface SessionInfo {
  id: string;
  title: string;
  /** RFC 3339. */
  updated: string;
  runs: number;
  /** Hunks awaiting review. */
  pending: number;
  /** Tokens of the session's runs, in + out. */
  tokens: number;
  /** Their cost in USD, when model.pricing is set. */
  costUSD?: number;
  /** The session's chosen model. */
  model?: string;
}

/** agentls/sessions result, newest first. */
export interface SessionsResult {
  sessions: SessionInfo[];
}

/** agentls/sessions: the workspace's sessions (saved ones included). */
export const sessions = new lc.RequestType<Record<string, never>, SessionsResult, void>("agentls/sessions");

/** One plan awaiting approval in agentls/plans. */
export interface PlanInfo {
  runId: string;
  sessionId: string;
  /** The plan's headline, clipped. */
  title: string;
}

/** agentls/plans result, newest first. */
export interface PlansResult {
  plans: PlanInfo[];
}

/** agentls/plans: the plans awaiting approval (agentls.approvePlan takes one's runId). */
export const plans = new lc.RequestType<Record<string, never>, PlansResult, void>("agentls/plans");

/** agentls/document: what the server holds for a document (a debugging aid). */
export const document = new lc.RequestType<DocumentParams, DocumentResult, void>("agentls/document");

/** The kinds of agentls/runEvent. */
export type RunEventKind =
  | "started"
  | "text"
  | "toolCall"
  | "toolResult"
  | "proposal"
  | "finished"
  | "failed"
  | "cancelled"
  | "todo"
  | "check"
  | "problems"
  | "usage";

/**
 * agentls/runEvent params. Fields beyond runId/seq/kind depend on the kind
 * (docs/protocol.md); they are all optional here and read defensively.
 */
export interface RunEvent {
  runId: string;
  seq: number;
  kind: RunEventKind;
  text?: string;
  tool?: string;
  args?: unknown;
  summary?: string;
  isError?: boolean;
  uri?: string;
  /** kind "proposal" in apply mode: whether the editor took the change. */
  applied?: boolean;
  error?: string;
  /** End events: the run's totals. */
  usage?: TokenUsage;
  /** kind "usage": the model call's number in the run, and its tokens. */
  turn?: number;
  promptTokens?: number;
  completionTokens?: number;
  cachedTokens?: number;
  /** kind "usage": counted locally (the endpoint reported none or nonsense). */
  estimated?: boolean;
  /** kind "usage": the call's cost; end events: the run's (USD, with model.pricing only). */
  costUSD?: number;
  /** kind "started": the run's mode. */
  mode?: string;
  /** kinds "finished" / "failed" / "cancelled": changes left for review. */
  pending?: number;
  /** kind "todo": the model's whole plan. */
  todos?: Todo[];
  /** kind "check": the check's name, whether it passed, its exit code (-1: timed out), seconds and output (the tail). */
  name?: string;
  passed?: boolean;
  exitCode?: number;
  seconds?: number;
  output?: string;
  /** kind "check": it could not run (command not installed or not executable); output starts "could not run: ". */
  notRun?: boolean;
  /** kinds "finished" / "failed" / "cancelled": the latest result of every check that ran. */
  checks?: CheckState[];
  /** kind "problems": how many problems the change introduced in `uri`, and those problems. */
  introduced?: number;
  items?: Problem[];
  /** kind "problems": how many problems the run's proposal for `uri` brings in all. */
  outstanding?: number;
  /** kind "finished": the problems the run introduced that the language server still reports (absent without one). */
  problems?: number;
  /** Set on the events of a sub-agent (the task tool); runId is then its own. */
  parentRunId?: string;
  /** kinds "toolCall" / "toolResult": the model's call id. */
  callId?: string;
  /** Set on the calls a script made: the script call's callId. */
  parentCallId?: string;
  /** kind "finished": a Markdown file holding the whole answer (a plan, or more than one line). */
  answerUri?: string;
}

/** A run's token totals (RunEvent.usage); `cachedTokens` only when the endpoint reported some. */
export interface TokenUsage {
  promptTokens: number;
  completionTokens: number;
  totalTokens: number;
  cachedTokens?: number;
}

/** One check's outcome at the end of a run. */
export interface CheckState {
  name: string;
  passed: boolean;
  /** It could not run: neither passed nor failed. */
  notRun?: boolean;
}

/** One item of the model's plan (todo_write). */
export interface Todo {
  content: string;
  status: "pending" | "in_progress" | "completed";
}

/** agentls/runEvent: one step of a run (streamed text, tool activity, the end). */
export const runEvent = new lc.NotificationType<RunEvent>("agentls/runEvent");

/** agentls/proposalsChanged params. */
export interface ProposalsChangedParams {
  uri: string;
}

/** agentls/proposalsChanged: a document's proposals changed; re-request them. */
export const proposalsChanged = new lc.NotificationType<ProposalsChangedParams>("agentls/proposalsChanged");

/** agentls/elicit params: an MCP server's elicitation/create, whole. */
export interface ElicitParams {
  /** The MCP server's name in the configuration. */
  server: string;
  message: string;
  mode: "form" | "url";
  /** mode "form": a flat object schema of string, number, integer, boolean, enum and multi-select properties. */
  requestedSchema?: unknown;
  /** mode "url": the address to open. */
  url?: string;
}

/** agentls/elicit result. */
export interface ElicitResult {
  action: "accept" | "decline" | "cancel";
  /** action "accept", mode "form": the values by property name. */
  content?: Record<string, unknown>;
}

/**
 * agentls/elicit: a server→client request, sent only to clients declaring
 * capabilities.experimental.agentls.elicitationForms.
 */
export const elicit = new lc.RequestType<ElicitParams, ElicitResult, void>("agentls/elicit");

/** The capabilities.experimental entry the extension declares. */
export const experimentalCapabilities = { agentls: { elicitationForms: true, answerViews: true } } as const;

/** One tool the editor gives the agent (agentls/registerTools); the model sees it as editor__NAME. */
export interface EditorToolDef {
  name: string;
  description: string;
  /** A JSON Schema object; absent (or null) means no arguments. */
  inputSchema?: object;
  /** As in MCP: a read-only tool may run alongside other reads and be called from scripts. */
  annotations?: { readOnlyHint?: boolean };
}

/** agentls/registerTools params: replaces this client's earlier set. */
export interface RegisterToolsParams {
  tools: EditorToolDef[];
}

/** agentls/registerTools: client → server. */
export const registerTools = new lc.RequestType<RegisterToolsParams, Record<string, never>, void>("agentls/registerTools");

/** agentls/invokeClientTool params: the model called editor__NAME in run runId. */
export interface InvokeClientToolParams {
  runId: string;
  name: string;
  arguments: Record<string, unknown>;
}

/** agentls/invokeClientTool result. */
export interface InvokeClientToolResult {
  content: string;
  isError?: boolean;
}

/** agentls/invokeClientTool: server → client, while a run is going. */
export const invokeClientTool = new lc.RequestType<InvokeClientToolParams, InvokeClientToolResult, void>(
  "agentls/invokeClientTool",
);
