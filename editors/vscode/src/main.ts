// Extension entry point: wires the client (ctx.ts), the run log (runs.ts)
// and the previews (preview.ts) together and registers the command table.
// agentls.run / agentls.cancel / agentls.accept / agentls.reject themselves
// are registered by vscode-languageclient from the server's
// executeCommandProvider (see ctx.ts); the commands below are the
// extension's own.
import * as vscode from "vscode";
import { Ctx } from "./ctx";
import * as hunks from "./hunks";
import * as ext from "./lsp_ext";
import { Preview, proposalScheme } from "./preview";
import { Runs } from "./runs";

let ctx: Ctx | undefined;

function conflictText(conflicts: ext.Conflict[] | undefined): string {
  return (conflicts ?? []).map((c) => `${c.hunkId}: ${c.reason}`).join("; ");
}

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  let preview: Preview;
  const runs = new Runs({
    review: async (files) => {
      if (files.length === 0) return;
      const doc = await vscode.workspace.openTextDocument(vscode.Uri.parse(files[0]));
      await vscode.window.showTextDocument(doc, { preview: false });
      await preview.showDiff(doc);
    },
    acceptAll: async (runId) => {
      await c.execute(ext.Commands.accept, { runId } satisfies ext.ReviewArgs);
    },
    run: async (args) => {
      await c.execute(ext.Commands.run, args);
    },
    approvePlan: async (runId) => {
      await c.execute(ext.Commands.approvePlan, { runId } satisfies ext.ApprovePlanArgs);
    },
  });
  const c = new Ctx({
    onRunEvent: (ev) => runs.onEvent(ev),
    onProposalsChanged: (p) => preview.onProposalsChanged(p.uri),
    onCommandResult: (command, args, result) => {
      if (command === ext.Commands.run && result && typeof (result as ext.RunResult).runId === "string") {
        runs.started((result as ext.RunResult).runId, args[0] as ext.RunArgs | undefined, (result as ext.RunResult).sessionId);
      } else if (command === ext.Commands.approvePlan && result && typeof (result as ext.RunResult).runId === "string") {
        const planRun = (args[0] as ext.ApprovePlanArgs | undefined)?.runId ?? "the latest plan";
        runs.started((result as ext.RunResult).runId, { prompt: `carry out the approved plan (${planRun})`, mode: "preview" }, (result as ext.RunResult).sessionId);
      } else if (command === ext.Commands.accept || command === ext.Commands.reject) {
        const r = result as ext.AcceptResult | undefined;
        if (command === ext.Commands.accept && r && r.applied === false) {
          const why = r.failureReason ?? conflictText(r.conflicts);
          void vscode.window.showWarningMessage(`agentls: the change was not applied: ${why || "no reason given"}`);
        }
        // The server also sends agentls/proposalsChanged; this keeps the
        // preview right even if that notification is lost.
        preview.refreshVisible();
        // A hover whose Accept / Reject link was just used describes a hunk
        // that is gone: close it (the next hover shows the current state).
        void vscode.commands.executeCommand("editor.action.hideHover").then(undefined, () => undefined);
      }
    },
    promptRun: () => runs.promptRun(),
    pickRun: () => runs.pickRun(),
    onStarted: () => preview.refreshVisible(),
    onStopped: (reason) => {
      runs.serverStopped(reason);
      preview.clearAll();
    },
  });
  preview = new Preview(c);
  ctx = c;
  context.subscriptions.push(c, runs, preview);

  const editorHunk = (): { editor: vscode.TextEditor; view: hunks.HunkView } | undefined => {
    const editor = vscode.window.activeTextEditor;
    if (!editor) {
      return undefined;
    }
    const line = editor.selection.active.line;
    // In the diff view the cursor may be on the proposed text (its right
    // side): map the row back to the hunk that produced it.
    const proposed = editor.document.uri.scheme === proposalScheme;
    const views = proposed ? preview.viewsOf(editor.document.uri.query) : preview.views(editor.document);
    const view = proposed ? hunks.hunkAtProposed(views, line) : hunks.hunkAt(views, line);
    if (!view) {
      void vscode.window.showInformationMessage("agentls: no proposed change under the cursor.");
      return undefined;
    }
    return { editor, view };
  };
  const reviewHunk = async (command: string, reason?: string) => {
    const h = editorHunk();
    if (h) {
      const args: ext.ReviewArgs = { runId: h.view.runId, uri: h.view.uri, hunkId: h.view.hunkId };
      if (reason) {
        args.reason = reason;
      }
      await c.execute(command, args);
    }
  };
  const rejectWithReason = async () => {
    if (!editorHunk()) {
      return;
    }
    const reason = await vscode.window.showInputBox({
      title: "agentls: Reject Change",
      prompt: "Why? The agent is told on the session's next run (agentls: Follow Up).",
      ignoreFocusOut: true,
    });
    if (reason !== undefined) {
      await reviewHunk(ext.Commands.reject, reason.trim() || undefined);
    }
  };
  // The session to follow up: the one given, the latest of this window,
  // else one the user picks from agentls/sessions (sessions survive a
  // reload; this window's memory does not).
  const pickSession = async (): Promise<string | undefined> => {
    if (runs.lastSession) {
      return runs.lastSession;
    }
    let list: ext.SessionInfo[] = [];
    try {
      list = (await c.request(ext.sessions, {})).sessions;
    } catch {
      return undefined;
    }
    if (list.length <= 1) {
      return list[0]?.id;
    }
    const pick = await vscode.window.showQuickPick(
      list.map((s) => ({ label: s.title || s.id, description: `${s.runs} run(s), ${s.pending} pending · ${s.updated}`, id: s.id })),
      { title: "agentls: Follow up which session?" },
    );
    return pick?.id;
  };
  const followUp = async (sessionId?: unknown) => {
    const session = typeof sessionId === "string" ? sessionId : await pickSession();
    const args = await runs.promptFollowup(session);
    if (args) {
      await c.execute(ext.Commands.run, args);
    }
  };
  // The file of the active editor, or of the diff view's proposed side.
  const reviewFile = async (command: string) => {
    const doc = vscode.window.activeTextEditor?.document;
    if (!doc) {
      return;
    }
    const uri = doc.uri.scheme === proposalScheme ? doc.uri.query : doc.uri.toString();
    await c.execute(command, { uri } satisfies ext.ReviewArgs);
  };
  const jump = (forward: boolean) => {
    const editor = vscode.window.activeTextEditor;
    if (!editor) {
      return;
    }
    const v = hunks.step(preview.views(editor.document), editor.selection.active.line, forward);
    if (!v) {
      void vscode.window.showInformationMessage("agentls: no proposed changes in this file.");
      return;
    }
    const pos = new vscode.Position(hunks.span(v).first, 0);
    editor.selection = new vscode.Selection(pos, pos);
    editor.revealRange(new vscode.Range(pos, pos), vscode.TextEditorRevealType.InCenterIfOutsideViewport);
  };

  const commands: Record<string, (...args: unknown[]) => unknown> = {
    "agentls.acceptHunk": () => reviewHunk(ext.Commands.accept),
    "agentls.rejectHunk": () => reviewHunk(ext.Commands.reject),
    "agentls.rejectHunkWithReason": () => rejectWithReason(),
    "agentls.followUp": (sessionId?: unknown) => followUp(sessionId),
    "agentls.plan": async () => {
      const args = await runs.promptRun("plan");
      if (args) {
        await c.execute(ext.Commands.run, args);
      }
    },
    "agentls.acceptAll": () => c.execute(ext.Commands.accept, {} satisfies ext.ReviewArgs),
    "agentls.rejectAll": () => c.execute(ext.Commands.reject, {} satisfies ext.ReviewArgs),
    "agentls.acceptFile": () => reviewFile(ext.Commands.accept),
    "agentls.rejectFile": () => reviewFile(ext.Commands.reject),
    "agentls.nextHunk": () => jump(true),
    "agentls.prevHunk": () => jump(false),
    "agentls.showDiff": () => {
      const doc = vscode.window.activeTextEditor?.document;
      return doc ? preview.showDiff(doc) : undefined;
    },
    "agentls.showRuns": () => runs.show(),
    "agentls.restartServer": () => c.restart(),
  };
  for (const [name, fn] of Object.entries(commands)) {
    context.subscriptions.push(vscode.commands.registerCommand(name, fn));
  }

  await c.start();
}

export async function deactivate(): Promise<void> {
  await ctx?.stop();
  ctx = undefined;
}
