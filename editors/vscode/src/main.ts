// Extension entry point: wires the client (ctx.ts), the run log (runs.ts)
// and the previews (preview.ts) together and registers the command table.
// agentls.run / agentls.cancel / agentls.accept / agentls.reject themselves
// are registered by vscode-languageclient from the server's
// executeCommandProvider (see ctx.ts); the commands below are the
// extension's own.
import * as vscode from "vscode";
import { Ctx } from "./ctx";
import { History } from "./history";
import * as hunks from "./hunks";
import * as ext from "./lsp_ext";
import { ProposedFiles } from "./files";
import { InlineReview, inlineScheme } from "./inline";
import { registerNextEdit } from "./nextedit";
import { Preview, proposalScheme } from "./preview";
import { choosePlan, planItem, planRunOfPath } from "./plans";
import { noteArgs, rememberMessage, validateNote } from "./remember";
import { Runs } from "./runs";

let ctx: Ctx | undefined;

function conflictText(conflicts: ext.Conflict[] | undefined): string {
  return (conflicts ?? []).map((c) => `${c.hunkId}: ${c.reason}`).join("; ");
}

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  let preview: Preview;
  let inline: InlineReview;
  let files: ProposedFiles;
  let history: History;
  const runs = new Runs({
    // Every file of the run: one opens at once, several in a quick pick.
    review: (uris) => files.pick(uris),
    acceptAll: async (runId) => {
      await c.execute(ext.Commands.accept, { runId } satisfies ext.ReviewArgs);
    },
    run: async (args) => {
      await c.execute(ext.Commands.run, args);
    },
    approvePlan: async (runId) => {
      await c.execute(ext.Commands.approvePlan, { runId } satisfies ext.ApprovePlanArgs);
    },
    revert: (runId) => history.revert(runId),
    report: (runId) => history.report({ runId }),
  });
  const c = new Ctx({
    onRunEvent: (ev) => {
      runs.onEvent(ev);
      if (ev?.kind === "finished" && ev.answerUri) {
        planLenses.fire(); // a plan's document may be open already
      }
      history.onRunEvent(ev);
    },
    onProposalsChanged: (p) => {
      preview.onProposalsChanged(p.uri);
      files.refresh();
      if (inline.isOpen(p.uri)) {
        void preview.refresh(p.uri);
      }
    },
    onCommandResult: (command, args, result) => {
      if (command === ext.Commands.run && result && typeof (result as ext.RunResult).runId === "string") {
        runs.started((result as ext.RunResult).runId, args[0] as ext.RunArgs | undefined, (result as ext.RunResult).sessionId);
        history.runStarted((result as ext.RunResult).sessionId, args[0] as ext.RunArgs | undefined);
      } else if (command === ext.Commands.approvePlan) {
        planLenses.fire(); // approved (or not): the lens follows
      }
      if (command === ext.Commands.approvePlan && result && typeof (result as ext.RunResult).runId === "string") {
        const planRun = (args[0] as ext.ApprovePlanArgs | undefined)?.runId ?? "the latest plan";
        runs.started((result as ext.RunResult).runId, { prompt: `carry out the approved plan (${planRun})`, mode: "preview" }, (result as ext.RunResult).sessionId);
      } else if (command === ext.Commands.revert) {
        history.onRevertResult((args[0] as ext.RevertArgs | undefined)?.runId ?? "?", result as ext.RevertResult | undefined);
      } else if (command === ext.Commands.remember && result) {
        const r = result as ext.RememberResult;
        const note = (args[0] as ext.RememberArgs | undefined)?.note ?? "";
        if (r.runId) {
          runs.log([`[${r.runId}] proposed for AGENTS.md: ${note}`]);
        }
        // The proposal shows in AGENTS.md like a run's change; the button
        // opens it for review (the file may not be open, or not exist yet).
        const uri = r.runId ? r.uri : undefined;
        const buttons = uri ? ["Review"] : [];
        void vscode.window.showInformationMessage(rememberMessage(r), ...buttons).then((pick) => {
          if (pick === "Review" && uri) {
            void reviewFile(uri);
          }
        });
      } else if (command === ext.Commands.openReport && result && typeof (result as ext.ReportResult).uri === "string") {
        void history.showReport((result as ext.ReportResult).uri);
      } else if (command === ext.Commands.accept || command === ext.Commands.reject) {
        const r = result as ext.AcceptResult | undefined;
        if (command === ext.Commands.accept) {
          history.onAcceptResult(args[0] as ext.ReviewArgs | undefined, r);
          void saveCreated();
        }
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
    pickPlan: () => pickPlan(),
    pickRun: () => runs.pickRun(),
    promptRemember: async () =>
      noteArgs(
        await vscode.window.showInputBox({
          title: "agentls: Remember",
          prompt: "A rule for the project's AGENTS.md, which every later run reads. It is proposed as a change you review.",
          placeHolder: "e.g. we wrap errors with %w",
          ignoreFocusOut: true,
          validateInput: validateNote,
        }),
      ),
    prepareRun: (args) => history.prepareRun(args),
    showDocument: (params) => history.handlesShowDocument(params),
    onStarted: () => {
      preview.refreshVisible();
      history.started();
    },
    onStopped: (reason) => {
      runs.serverStopped(reason);
      preview.clearAll();
    },
  });
  preview = new Preview(c);
  history = new History(c, runs);
  inline = new InlineReview(preview);
  // Review of one file: a new file as a diff against the empty file (it
  // does not exist yet), any other in the inline review view, where each
  // hunk's new lines stack under the lines they replace.
  const reviewFile = async (uri: string): Promise<void> => {
    await preview.refresh(uri);
    if (preview.proposalsOf(uri).some((p) => p.created)) {
      return preview.showNewFileDiff(vscode.Uri.parse(uri));
    }
    const doc = await vscode.workspace.openTextDocument(vscode.Uri.parse(uri));
    await inline.open(doc);
  };
  files = new ProposedFiles(c, reviewFile);

  // The plans awaiting approval (agentls/plans): the only one, or the
  // user's pick; undefined when none waits (said) or dismissed.
  const waitingPlans = async (): Promise<ext.PlanInfo[]> => {
    try {
      return (await c.request(ext.plans, {})).plans ?? [];
    } catch (err) {
      c.output.appendLine(`agentls/plans: ${String(err)}`);
      return [];
    }
  };
  const pickPlan = async (): Promise<string | undefined> => {
    const plans = await waitingPlans();
    const choice = choosePlan(plans);
    switch (choice.kind) {
      case "none":
        void vscode.window.showInformationMessage("agentls: no plan awaits approval (agentls: Plan with Agent… makes one).");
        return undefined;
      case "one":
        return choice.runId;
    }
    const pick = await vscode.window.showQuickPick(plans.map(planItem), { title: "agentls: Approve which plan?", matchOnDescription: true });
    return pick?.runId;
  };
  // A plan's document (answers/<run>.md) carries an Approve Plan lens
  // while the plan waits; the title bar has the same button.
  const planLenses = new vscode.EventEmitter<void>();
  context.subscriptions.push(
    planLenses,
    vscode.languages.registerCodeLensProvider(
      { scheme: "file", pattern: "**/answers/*.md" },
      {
        onDidChangeCodeLenses: planLenses.event,
        provideCodeLenses: async (doc) => {
          const runId = planRunOfPath(doc.uri.path);
          if (!runId || !(await waitingPlans()).some((p) => p.runId === runId)) {
            return [];
          }
          const top = new vscode.Range(0, 0, 0, 0);
          return [
            new vscode.CodeLens(top, { title: "$(check) Approve Plan", command: ext.Commands.approvePlan, arguments: [{ runId } satisfies ext.ApprovePlanArgs] }),
            new vscode.CodeLens(top, { title: "$(comment-discussion) Follow Up instead", command: "agentls.followUp", arguments: [runs.sessionOf(runId)] }),
          ];
        },
      },
    ),
  );
  preview.onRefreshed = (docUri) => {
    inline.update(docUri);
  };
  // An accepted new file arrives as a workspace edit that creates the file
  // (empty, on disk) and fills its document: saved here, so the file has
  // its text without the user saving it.
  const created = new Set<string>();
  context.subscriptions.push(vscode.workspace.onDidCreateFiles((e) => e.files.filter((f) => files.isNewFile(f)).forEach((f) => created.add(f.toString()))));
  const saveCreated = async () => {
    for (const doc of vscode.workspace.textDocuments) {
      if (created.has(doc.uri.toString()) && doc.isDirty) {
        created.delete(doc.uri.toString());
        if (!(await doc.save())) {
          c.output.appendLine(`${doc.uri.toString()}: the accepted new file was not saved`);
        }
      }
    }
  };
  ctx = c;
  context.subscriptions.push(c, runs, preview, inline, files, history);

  // The hunk under the cursor of an editor: the file's own, the inline
  // review's (rows map back to hunks), or the diff view's proposed side.
  const hunkAtCursor = (editor: vscode.TextEditor): hunks.HunkView | undefined => {
    const line = editor.selection.active.line;
    switch (editor.document.uri.scheme) {
      case inlineScheme:
        return inline.hunkAt(editor);
      case proposalScheme:
        return hunks.hunkAtProposed(preview.viewsOf(editor.document.uri.query), line);
    }
    return hunks.hunkAt(preview.views(editor.document), line);
  };
  // Keyboard accept / reject apply to the hunk under the cursor; the
  // context key keeps the keys free elsewhere.
  const updateCursorContext = () => {
    const editor = vscode.window.activeTextEditor;
    void vscode.commands.executeCommand("setContext", "agentls.hunkAtCursor", !!editor && hunkAtCursor(editor) !== undefined);
  };
  context.subscriptions.push(
    vscode.window.onDidChangeTextEditorSelection(() => updateCursorContext()),
    vscode.window.onDidChangeActiveTextEditor(() => updateCursorContext()),
  );
  const prevRefreshed = preview.onRefreshed;
  preview.onRefreshed = (docUri) => {
    prevRefreshed?.(docUri);
    updateCursorContext();
  };

  const editorHunk = (): { editor: vscode.TextEditor; view: hunks.HunkView } | undefined => {
    const editor = vscode.window.activeTextEditor;
    if (!editor) {
      return undefined;
    }
    const view = hunkAtCursor(editor);
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
  const decideFile = async (command: string) => {
    const doc = vscode.window.activeTextEditor?.document;
    if (!doc) {
      return;
    }
    const proposed = doc.uri.scheme === proposalScheme || doc.uri.scheme === inlineScheme;
    const uri = proposed ? doc.uri.query : doc.uri.toString();
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
    "agentls.acceptFile": () => decideFile(ext.Commands.accept),
    "agentls.rejectFile": () => decideFile(ext.Commands.reject),
    "agentls.reviewChanges": () => files.pick(),
    "agentls.reviewFile": (uri?: unknown) => {
      const doc = vscode.window.activeTextEditor?.document;
      const target = typeof uri === "string" ? uri : doc && (doc.uri.scheme === "file" || doc.uri.scheme === "untitled") ? doc.uri.toString() : undefined;
      return target ? reviewFile(target) : files.pick();
    },
    "agentls.nextHunk": () => jump(true),
    "agentls.prevHunk": () => jump(false),
    "agentls.showDiff": () => {
      const doc = vscode.window.activeTextEditor?.document;
      return doc ? preview.showDiff(doc) : undefined;
    },
    "agentls.showRuns": () => runs.show(),
    "agentls.showRunHistory": () => history.showRunHistory(),
    "agentls.revertRun": (runId?: unknown) => history.revert(typeof runId === "string" ? runId : undefined),
    "agentls.openRunReport": (runId?: unknown) => history.report(typeof runId === "string" ? { runId } : {}),
    "agentls.openReportInBrowser": () => history.openReportExternally(),
    "agentls.chooseModel": () => history.chooseModel(),
    "agentls.restartServer": () => c.restart(),
  };
  for (const [name, fn] of Object.entries(commands)) {
    context.subscriptions.push(vscode.commands.registerCommand(name, fn));
  }
  registerNextEdit(context, c, preview);

  await c.start();
}

export async function deactivate(): Promise<void> {
  await ctx?.stop();
  ctx = undefined;
}
