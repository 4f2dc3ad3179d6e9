// Run history the user controls (docs/protocol.md "Run history and usage",
// "Run report"): reverting a run (agentls.revert: one workspace edit, so
// VS Code's undo brings it back), the run's report (agentls.openReport,
// shown in a webview), the model of the next runs (agentls/models and
// agentls.run's `model`), and tokens and cost in the status bar. The
// "agentls: Agent Runs…" quick pick lists runs and sessions with their
// figures and offers these actions.
import * as vscode from "vscode";
import type { Ctx } from "./ctx";
import * as ext from "./lsp_ext";
import { planItem } from "./plans";
import { ModelChoice } from "./models";
import type { Runs } from "./runs";
import { basename, type RunState } from "./runlog";
import * as usage from "./usage";

/** Owns the usage and model status bar items and the report webviews. */
export class History implements vscode.Disposable {
  /** The model of the next runs (agentls.run's `model`). */
  readonly models = new ModelChoice();
  private readonly usageItem = vscode.window.createStatusBarItem(vscode.StatusBarAlignment.Left, 9);
  private readonly modelItem = vscode.window.createStatusBarItem(vscode.StatusBarAlignment.Left, 8);
  private readonly reports = new Map<string, vscode.WebviewPanel>();
  private activeReport: string | undefined;
  /** The configured model, from agentls/models. */
  private current: string | undefined;
  /** Sessions' totals from agentls/sessions, by id. */
  private readonly sessionTotals = new Map<string, ext.SessionInfo>();

  constructor(
    private readonly ctx: Ctx,
    private readonly runs: Runs,
  ) {
    this.usageItem.command = "agentls.showRunHistory";
    this.modelItem.command = "agentls.chooseModel";
  }

  /** The server is up: learn the configured model (in the background). */
  started(): void {
    void this.ctx.request(ext.models, {}).then(
      (res) => {
        this.current = res.current || undefined;
        this.updateModel();
      },
      () => undefined, // an older server: the item shows once a model is picked
    );
  }

  private updateModel(): void {
    const model = this.models.selected ?? this.current;
    if (!model) {
      this.modelItem.hide();
      return;
    }
    this.modelItem.text = `$(hubot) ${model}`;
    this.modelItem.tooltip = this.models.selected
      ? `agentls: the next runs use ${model} (picked; their sessions keep it). Click to choose another.`
      : `agentls: the configured model. Click to choose the model of the next runs.`;
    this.modelItem.show();
  }

  /** After each run event: the status bar shows the newest run's figures. */
  onRunEvent(ev: ext.RunEvent): void {
    if (ev?.parentRunId) {
      if (ev.kind === "usage") this.updateUsage();
      return;
    }
    if (ev?.kind === "usage" || ev?.kind === "started") {
      this.updateUsage();
    } else if (ev?.kind === "finished" || ev?.kind === "failed" || ev?.kind === "cancelled") {
      this.updateUsage();
      void this.fetchSessionTotal(ev.runId);
    }
  }

  private updateUsage(): void {
    const r = this.runs.list()[0];
    const run = usage.short(r?.usage);
    if (!r || run === "") {
      this.usageItem.hide();
      return;
    }
    const session = this.sessionTotals.get(this.runs.sessionOf(r.id) ?? "");
    let text = `$(pulse) ${run}`;
    const tooltip = [`agentls: run ${r.id} (${r.status}): ${usage.line(r.usage!)}`];
    if (session && session.runs > 1) {
      text += ` · session ${usage.compact(session.tokens ?? 0)} tok${session.costUSD !== undefined ? " · " + usage.cost(session.costUSD) : ""}`;
      tooltip.push(`session: ${usage.sessionLine(session)}`);
    }
    tooltip.push("Click: the agent runs (revert, report).");
    this.usageItem.text = text;
    this.usageItem.tooltip = tooltip.join("\n");
    this.usageItem.show();
  }

  // The session's total after one of its runs ended: in the status bar,
  // and in the run log once the session has more than one run.
  private async fetchSessionTotal(runId: string): Promise<void> {
    const sessionId = this.runs.sessionOf(runId);
    if (!sessionId) {
      return;
    }
    let list: ext.SessionInfo[];
    try {
      list = (await this.ctx.request(ext.sessions, {})).sessions ?? [];
    } catch {
      return;
    }
    const s = list.find((x) => x.id === sessionId);
    if (!s || s.tokens === undefined) {
      return;
    }
    this.sessionTotals.set(s.id, s);
    if (s.runs > 1) {
      this.runs.log([`  Σ session ${s.id}: ${usage.sessionLine(s)}`]);
    }
    this.updateUsage();
  }

  /** agentls.run's arguments with the picked model, when due. */
  prepareRun(args: ext.RunArgs): ext.RunArgs {
    return this.models.argsFor(args);
  }

  /** A run started with `args` in `sessionId`. */
  runStarted(sessionId: string | undefined, args: ext.RunArgs | undefined): void {
    this.models.started(sessionId, args);
  }

  /** The model of run `r`: the one this window sent, or its session's. */
  modelOf(r: RunState): string | undefined {
    return this.runs.modelOf(r.id) ?? this.models.sessionModel(this.runs.sessionOf(r.id));
  }

  /** Asks for the model of the next runs from the server's list. */
  async chooseModel(): Promise<void> {
    let res: ext.ModelsResult;
    try {
      res = await this.ctx.request(ext.models, {});
    } catch (err) {
      void vscode.window.showErrorMessage(`agentls: cannot list the models: ${String(err)}`);
      return;
    }
    this.current = res.current || undefined;
    const now = this.models.selected ?? this.current;
    const items: (vscode.QuickPickItem & { id?: string })[] = (res.models ?? [])
      .filter((m) => ModelChoice.valid(m.id))
      .map((m) => ({
        label: m.id,
        id: m.id,
        description: [m.id === res.current ? "configured" : "", m.id === this.models.selected ? "picked" : ""].filter((x) => x).join(", ") || undefined,
        picked: m.id === now,
      }));
    if (items.length === 0) {
      void vscode.window.showWarningMessage(`agentls: no models to choose from${res.error ? ": " + res.error : ""}`);
      return;
    }
    const pick = await vscode.window.showQuickPick(items, {
      title: `agentls: Model for the next runs (now: ${now ?? "none"})`,
      placeHolder: res.error ? `the endpoint's list is unavailable: ${res.error}` : "the session of a run keeps its model",
    });
    if (pick?.id) {
      this.models.selected = pick.id;
      this.updateModel();
    }
  }

  /**
   * Reverts run `runId`; without one, the newest run with changes (asking
   * when several could be meant). The result is shown by onRevertResult,
   * which every path to agentls.revert reaches (code actions too).
   */
  async revert(runId?: string): Promise<void> {
    let id = runId;
    if (!id) {
      const candidates = this.runs.list().filter((r) => r.status !== "running" && ((r.files?.length ?? 0) > 0 || r.applied));
      if (candidates.length === 0) {
        void vscode.window.showInformationMessage("agentls: no run of this window changed files. agentls: Agent Runs… lists sessions; a run's id reverts it from the code action on its lines.");
        return;
      }
      id = candidates.length === 1 ? candidates[0].id : (await this.pickRun(candidates, "agentls: Revert which run?"))?.id;
    }
    if (id) {
      await this.ctx.execute(ext.Commands.revert, { runId: id } satisfies ext.RevertArgs);
    }
  }

  /** Shows what agentls.revert did: a message, and the run log's lines. */
  onRevertResult(runId: string, res: ext.RevertResult | undefined): void {
    if (!res) {
      return; // the error was shown
    }
    const tag = `[${runId}]`;
    if (res.failureReason) {
      this.runs.log([`${tag} not reverted: ${res.failureReason}`]);
      void vscode.window.showErrorMessage(`agentls: run ${runId} was not reverted: ${res.failureReason}`);
      return;
    }
    const conflicts = res.conflicts ?? [];
    if (res.reverted === 0 && conflicts.length === 0) {
      const note = res.note || "nothing to revert";
      this.runs.log([`${tag} revert: ${note}`]);
      void vscode.window.showInformationMessage(`agentls: ${note}`);
      return;
    }
    const files = `${res.reverted} file${res.reverted === 1 ? "" : "s"}`;
    this.runs.log([`${tag} reverted: ${files}`, ...conflicts.map((c) => `  ✗ ${basename(c.uri)}: left alone: ${c.reason}`)]);
    if (conflicts.length === 0) {
      void vscode.window.showInformationMessage(`agentls: reverted run ${runId}: ${files}. Undo brings the changes back.`, "Open Report").then((pick) => {
        if (pick === "Open Report") void this.report({ runId });
      });
      return;
    }
    const first = conflicts[0];
    void vscode.window
      .showWarningMessage(
        `agentls: reverted run ${runId}: ${files}; ${conflicts.length} left alone: ${basename(first.uri)}: ${first.reason}${conflicts.length > 1 ? " …" : ""}`,
        "Show Log",
      )
      .then((pick) => {
        if (pick === "Show Log") this.runs.show();
      });
  }

  /**
   * After an accept of a whole run (or of everything): the runs whose
   * changes landed, with Revert Run and Open Report. Accepting one hunk
   * says nothing more.
   */
  onAcceptResult(args: ext.ReviewArgs | undefined, res: ext.AcceptResult | undefined): void {
    if (!res?.applied || args?.hunkId || args?.uri || !res.appliedHunks?.length) {
      return;
    }
    const runIds = [...new Set(res.appliedHunks.map((h) => h.slice(0, h.lastIndexOf("#"))).filter((id) => id))];
    if (runIds.length !== 1) {
      return;
    }
    const runId = runIds[0];
    const files = (this.runs.run(runId)?.files ?? []).map(basename);
    const named = files.length ? ` (${files.length > 3 ? files.slice(0, 3).join(", ") + " …" : files.join(", ")})` : "";
    void vscode.window.showInformationMessage(`agentls: accepted the changes of run ${runId}${named}.`, "Revert Run", "Open Report").then((pick) => {
      if (pick === "Revert Run") void this.revert(runId);
      else if (pick === "Open Report") void this.report({ runId });
    });
  }

  /** Writes a run's (or session's) report and shows it (onReport). */
  async report(args: ext.ReportArgs): Promise<void> {
    await this.ctx.execute(ext.Commands.openReport, args);
  }

  /**
   * Shows the report at `uri` (a file: URI of a self-contained HTML page)
   * in a webview, one per report; called for agentls.openReport's answer
   * and for the server's window/showDocument of it.
   */
  async showReport(uri: string): Promise<void> {
    const target = vscode.Uri.parse(uri);
    let html: string;
    try {
      html = new TextDecoder().decode(await vscode.workspace.fs.readFile(target));
    } catch (err) {
      void vscode.window.showErrorMessage(`agentls: cannot read the report ${target.fsPath}: ${String(err)}`);
      return;
    }
    let panel = this.reports.get(uri);
    if (panel) {
      panel.reveal();
    } else {
      const name = basename(uri).replace(/\.html$/, "");
      const id = name.startsWith("session-") ? `session ${name.slice(8)}` : `run ${name.replace(/^\d{4}-\d{2}-\d{2}-/, "")}`;
      panel = vscode.window.createWebviewPanel("agentls.report", `Agent report: ${id}`, vscode.ViewColumn.Active, {
        enableScripts: true, // its one inline script (expand / collapse), pinned by the page's CSP
        enableFindWidget: true,
        localResourceRoots: [], // the page is self-contained
      });
      const p = panel;
      this.reports.set(uri, p);
      this.activeReport = uri;
      p.onDidDispose(() => {
        this.reports.delete(uri);
        if (this.activeReport === uri) this.activeReport = undefined;
      });
      p.onDidChangeViewState((e) => {
        if (e.webviewPanel.active) this.activeReport = uri;
      });
    }
    panel.webview.html = html;
  }

  /** Opens the report shown in the active webview with the system's browser. */
  async openReportExternally(): Promise<void> {
    if (this.activeReport) {
      await vscode.env.openExternal(vscode.Uri.parse(this.activeReport));
    }
  }

  /**
   * window/showDocument from the server: an external file: URI of an HTML
   * page is a run report (agentls.openReport asks the editor to open it),
   * shown here; the rest goes the usual way.
   */
  handlesShowDocument(params: { uri: string; external?: boolean }): boolean {
    if (params.external && params.uri.startsWith("file:") && params.uri.endsWith(".html")) {
      void this.showReport(params.uri);
      return true;
    }
    return false;
  }

  private describeRun(r: RunState): string {
    const parts: string[] = [r.status];
    const u = usage.short(r.usage);
    if (u) parts.push(u);
    const model = this.modelOf(r);
    if (model) parts.push(model);
    return parts.join(" · ");
  }

  private async pickRun(list: RunState[], title: string): Promise<RunState | undefined> {
    const pick = await vscode.window.showQuickPick(
      list.map((r) => ({ label: `[${r.id}] ${r.prompt ?? ""}`, description: this.describeRun(r), run: r })),
      { title },
    );
    return pick?.run;
  }

  /**
   * "agentls: Agent Runs…": this window's runs (newest first, with status,
   * tokens, cost and model) and the workspace's sessions (with totals);
   * a run offers revert, report, log and cancel, a session its report and
   * a follow-up.
   */
  async showRunHistory(): Promise<void> {
    type Item = vscode.QuickPickItem & { run?: RunState; session?: ext.SessionInfo; plan?: string };
    // Plans awaiting approval first: approving one is what they wait for.
    let plans: ext.PlanInfo[] = [];
    try {
      plans = (await this.ctx.request(ext.plans, {})).plans ?? [];
    } catch {
      // the server is not running, or an older one
    }
    const items: Item[] = plans.map((p) => {
      const it = planItem(p);
      return { label: `$(check) Approve plan: ${it.label}`, description: it.description, plan: p.runId };
    });
    if (items.length > 0) {
      items.push({ label: "Runs", kind: vscode.QuickPickItemKind.Separator });
    }
    items.push(...this.runs.list().map((r) => ({ label: `[${r.id}] ${r.prompt ?? ""}`, description: this.describeRun(r), run: r })));
    let sessions: ext.SessionInfo[] = [];
    try {
      sessions = (await this.ctx.request(ext.sessions, {})).sessions ?? [];
    } catch {
      // the server is not running: this window's runs only
    }
    if (sessions.length > 0) {
      items.push({ label: "Sessions", kind: vscode.QuickPickItemKind.Separator });
      for (const s of sessions) {
        const parts = [usage.sessionLine(s)];
        if (s.model) parts.push(s.model);
        if (s.pending) parts.push(`${s.pending} pending`);
        items.push({ label: `$(comment-discussion) ${s.title || s.id}`, description: parts.join(" · "), session: s });
      }
    }
    if (items.length === 0) {
      void vscode.window.showInformationMessage("agentls: no agent runs yet.");
      return;
    }
    const pick = await vscode.window.showQuickPick(items, { title: "agentls: Agent Runs", matchOnDescription: true });
    if (pick?.plan) {
      await this.ctx.execute(ext.Commands.approvePlan, { runId: pick.plan } satisfies ext.ApprovePlanArgs);
    } else if (pick?.run) {
      await this.runActions(pick.run);
    } else if (pick?.session) {
      await this.sessionActions(pick.session);
    }
  }

  private async runActions(r: RunState): Promise<void> {
    const actions = r.status === "running" ? ["Cancel Run", "Open Report", "Show Log"] : ["Revert Run", "Open Report", "Show Log"];
    const pick = await vscode.window.showQuickPick(actions, { title: `agentls: run ${r.id}: ${r.prompt ?? ""}` });
    switch (pick) {
      case "Revert Run":
        return this.revert(r.id);
      case "Open Report":
        return this.report({ runId: r.id });
      case "Show Log":
        return this.runs.show();
      case "Cancel Run":
        await this.ctx.execute(ext.Commands.cancel, { runId: r.id } satisfies ext.CancelArgs);
    }
  }

  private async sessionActions(s: ext.SessionInfo): Promise<void> {
    const pick = await vscode.window.showQuickPick(["Open Session Report", "Follow Up"], { title: `agentls: session ${s.title || s.id}` });
    if (pick === "Open Session Report") {
      await this.report({ sessionId: s.id });
    } else if (pick === "Follow Up") {
      await vscode.commands.executeCommand("agentls.followUp", s.id);
    }
  }

  dispose(): void {
    this.usageItem.dispose();
    this.modelItem.dispose();
    for (const p of this.reports.values()) p.dispose();
  }
}
