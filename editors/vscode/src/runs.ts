// Agent runs in the UI: the "agentls runs" output channel fed by
// agentls/runEvent, a status bar item while runs are going, the prompt box
// for agentls.run and the run picker for agentls.cancel.
import * as vscode from "vscode";
import * as ext from "./lsp_ext";
import { RunTracker } from "./runlog";

/** Owns the run log channel and the status bar item. */
export class Runs implements vscode.Disposable {
  private readonly tracker = new RunTracker();
  private readonly channel = vscode.window.createOutputChannel("agentls runs");
  private readonly status = vscode.window.createStatusBarItem(vscode.StatusBarAlignment.Left, 10);
  /** The session of the latest run the user started, for follow-ups. */
  lastSession: string | undefined;

  constructor() {
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

  /** Handles agentls/runEvent. */
  onEvent(ev: ext.RunEvent): void {
    this.append(this.tracker.onEvent(ev));
    this.update();
  }

  /** Records a run the user started (agentls.run answered with its id). */
  started(runId: string, args: ext.RunArgs | undefined, sessionId?: string): void {
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
  async promptRun(): Promise<ext.RunArgs | undefined> {
    const editor = vscode.window.activeTextEditor;
    const prompt = await vscode.window.showInputBox({
      title: "agentls: Run Agent",
      prompt: editor && !editor.selection.isEmpty ? "What should the agent do with the selection?" : "What should the agent do?",
      placeHolder: "e.g. add error handling to this function",
      ignoreFocusOut: true,
    });
    if (!prompt || prompt.trim() === "") {
      return undefined;
    }
    const args: ext.RunArgs = { prompt };
    if (editor) {
      args.uri = editor.document.uri.toString();
      if (!editor.selection.isEmpty) {
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
