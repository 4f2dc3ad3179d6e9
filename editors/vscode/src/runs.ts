// Agent runs in the UI: the "agentls runs" output channel fed by
// agentls/runEvent, a status bar item while runs are going, the prompt box
// for agentls.run and the run picker for agentls.cancel.
import * as vscode from "vscode";
import * as ext from "./lsp_ext";
import { proposalScheme } from "./preview";
import { checksFailed, endMessage, RunState, RunTracker } from "./runlog";

/** What the end-of-run notification's buttons do (main.ts wires them). */
export interface EndActions {
  /** Opens the run's changes for review (the diff view of the first file). */
  review(files: string[]): Promise<void>;
  /** Accepts everything the run proposed. */
  acceptAll(runId: string): Promise<void>;
  /** Starts a run with `args`. */
  run(args: ext.RunArgs): Promise<void>;
  /** Approves the plan of plan-mode run `runId` (agentls.approvePlan). */
  approvePlan(runId: string): Promise<void>;
  /** Takes back the changes run `runId` applied (agentls.revert). */
  revert(runId: string): Promise<void>;
  /** Shows the report of run `runId` (agentls.openReport). */
  report(runId: string): Promise<void>;
}

/** Owns the run log channel and the status bar item. */
export class Runs implements vscode.Disposable {
  private readonly tracker = new RunTracker();
  private readonly channel = vscode.window.createOutputChannel("agentls runs");
  private readonly status = vscode.window.createStatusBarItem(vscode.StatusBarAlignment.Left, 10);
  /** The session of the latest run the user started, for follow-ups. */
  lastSession: string | undefined;
  private readonly started_ = new Map<string, { args?: ext.RunArgs; sessionId?: string }>();

  constructor(private readonly actions: EndActions) {
    this.status.command = "agentls.showRuns";
    this.status.tooltip = "agentls: show the run log (agentls: Cancel Agent Run stops a run)";
  }

  private append(lines: string[]): void {
    for (const l of lines) {
      this.channel.appendLine(l);
    }
  }

  private update(): void {
    const text = this.tracker.statusText();
    if (text === "") {
      this.status.hide();
    } else {
      this.status.text = `$(sync~spin) ${text}`;
      this.status.show();
    }
  }

  /** The runs of this window (copies), newest first. */
  list(): RunState[] {
    return this.tracker.all();
  }

  /** A run of this window (a copy), or undefined. */
  run(id: string): RunState | undefined {
    return this.tracker.run(id);
  }

  /** The session of run `id`, when this window started it. */
  sessionOf(id: string): string | undefined {
    return this.started_.get(id)?.sessionId;
  }

  /** The model run `id` was started with, when this window sent one. */
  modelOf(id: string): string | undefined {
    return this.started_.get(id)?.args?.model;
  }

  /** Appends lines to the run log. */
  log(lines: string[]): void {
    this.append(lines);
  }

  /** Handles agentls/runEvent. */
  onEvent(ev: ext.RunEvent): void {
    this.append(this.tracker.onEvent(ev));
    this.update();
    if (!ev?.parentRunId && (ev?.kind === "finished" || ev?.kind === "failed" || ev?.kind === "cancelled")) {
      const r = this.tracker.run(ev.runId);
      if (r) {
        void this.notifyEnd(r, ev.pending);
      }
    }
  }

  /** Records a run the user started (agentls.run answered with its id). */
  started(runId: string, args: ext.RunArgs | undefined, sessionId?: string): void {
    this.started_.set(runId, { args, sessionId });
    this.append(this.tracker.started(runId, args?.prompt ?? "", args?.mode));
    if (sessionId) {
      this.lastSession = sessionId;
    }
    this.update();
  }

  /**
   * Asks for a follow-up on `sessionId` (default: the latest session): the
   * model sees the session's conversation and the review decisions.
   */
  async promptFollowup(sessionId?: string): Promise<ext.RunArgs | undefined> {
    const session = sessionId ?? this.lastSession;
    const prompt = await vscode.window.showInputBox({
      title: session ? "agentls: Follow Up" : "agentls: Run Agent (no session to follow up yet)",
      prompt: "What should the agent do next? It remembers the session and what you accepted or rejected.",
      placeHolder: "e.g. now also update the tests",
      ignoreFocusOut: true,
    });
    if (!prompt || prompt.trim() === "") {
      return undefined;
    }
    const args: ext.RunArgs = { prompt };
    if (session) {
      args.sessionId = session;
    }
    const editor = vscode.window.activeTextEditor;
    if (editor) {
      args.uri = editor.document.uri.toString();
    }
    return args;
  }

  /**
   * The end-of-run notification: names the files the run changed and
   * offers Review / Accept All / Follow Up (or the log when it failed),
   * Revert when its changes already landed (apply mode), and its Report.
   */
  private async notifyEnd(r: RunState, pending: number | undefined): Promise<void> {
    const msg = endMessage(r, pending);
    const hasChanges = (r.files?.length ?? 0) > 0 && pending !== 0;
    const plan = r.mode === "plan" && r.status === "finished";
    const failedChecks = checksFailed(r) || (r.problems ?? 0) > 0;
    let buttons = plan
      ? ["Approve Plan", "Show Plan"]
      : hasChanges
        ? ["Review", "Accept All", "Follow Up"]
        : r.applied
          ? ["Revert", "Follow Up"]
          : r.status === "failed"
            ? ["Show Log"]
            : ["Follow Up", "Show Log"];
    if (failedChecks && !buttons.includes("Show Log")) {
      buttons = [...buttons, "Show Log"]; // the checks' output and the problems are in the log
    }
    buttons = [...buttons, "Report"];
    const show =
      r.status === "failed"
        ? vscode.window.showErrorMessage
        : failedChecks
          ? vscode.window.showWarningMessage
          : vscode.window.showInformationMessage;
    const pick = await show(msg, ...buttons);
    switch (pick) {
      case "Review":
        return this.actions.review(r.files ?? []);
      case "Accept All":
        return this.actions.acceptAll(r.id);
      case "Follow Up":
        return this.followUp(r);
      case "Show Plan":
        // The whole plan, as the server wrote it (else the run log), in
        // an editor whose Approve Plan lens and title button stay once
        // this notification is gone (agentls: Approve Plan too).
        if (r.answerUri) {
          await vscode.window.showTextDocument(vscode.Uri.parse(r.answerUri), { preview: false });
          return;
        }
        return this.show();
      case "Show Log":
        return this.show();
      case "Approve Plan":
        return this.actions.approvePlan(r.id);
      case "Revert":
        return this.actions.revert(r.id);
      case "Report":
        return this.actions.report(r.id);
    }
  }

  /**
   * Asks for a follow-up and starts it: in the run's session when the
   * server has sessions, else as a new run whose prompt carries the earlier
   * request and answer.
   */
  private async followUp(r: RunState): Promise<void> {
    const first = this.started_.get(r.id);
    const args = await this.promptFollowup(first?.sessionId);
    if (!args) {
      return;
    }
    if (first?.args?.uri && !args.uri) args.uri = first.args.uri;
    if (!args.sessionId) {
      const context = [`This follows an earlier request: ${r.prompt ?? ""}`];
      if (r.answer) context.push(`Your answer then: ${r.answer}`);
      if (r.files?.length) context.push(`You proposed changes to: ${r.files.join(", ")}`);
      args.prompt = `${context.join("\n")}\n\nNow: ${args.prompt}`;
    }
    return this.actions.run(args);
  }

  /** Marks running runs failed when the server goes away. */
  serverStopped(reason: string): void {
    this.append(this.tracker.serverStopped(reason));
    this.update();
  }

  /** Reveals the run log without taking focus. */
  show(): void {
    this.channel.show(true);
  }

  /**
   * Asks for a prompt; the run targets the active editor's document and its
   * selection when there is one.
   */
  async promptRun(mode?: ext.Mode): Promise<ext.RunArgs | undefined> {
    const editor = vscode.window.activeTextEditor;
    const prompt = await vscode.window.showInputBox({
      title: mode === "plan" ? "agentls: Plan with Agent (read-only; you approve the plan)" : "agentls: Run Agent",
      prompt: editor && !editor.selection.isEmpty ? "What should the agent do with the selection?" : "What should the agent do?",
      placeHolder: "e.g. add error handling to this function",
      ignoreFocusOut: true,
    });
    if (!prompt || prompt.trim() === "") {
      return undefined;
    }
    const args: ext.RunArgs = { prompt };
    if (mode) {
      args.mode = mode;
    }
    if (editor) {
      // In the diff view's proposed side, the run is about the real file.
      const uri = editor.document.uri;
      args.uri = uri.scheme === proposalScheme ? uri.query : uri.toString();
      if (!editor.selection.isEmpty && uri.scheme !== proposalScheme) {
        const s = editor.selection;
        args.range = {
          start: { line: s.start.line, character: s.start.character },
          end: { line: s.end.line, character: s.end.character },
        };
      }
    }
    return args;
  }

  /** The run to cancel: the only running one, or the user's pick. */
  async pickRun(): Promise<string | undefined> {
    const running = this.tracker.running();
    if (running.length === 0) {
      void vscode.window.showInformationMessage("agentls: no agent run is running.");
      return undefined;
    }
    if (running.length === 1) {
      return running[0].id;
    }
    const pick = await vscode.window.showQuickPick(
      running.map((r) => ({ label: r.id, description: r.prompt ?? "", id: r.id })),
      { title: "agentls: Cancel which run?" },
    );
    return pick?.id;
  }

  dispose(): void {
    this.channel.dispose();
    this.status.dispose();
  }
}
