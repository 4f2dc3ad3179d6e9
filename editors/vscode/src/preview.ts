// Inline diff previews of pending proposals in visible editors: the lines a
// hunk replaces get the diff editor's "removed" background, its new lines
// show in full as a block beside them (one per row, lined up in a column),
// and the hunk's diff, with Accept / Reject links, shows on hover. "agentls: Show Proposed Changes as Diff"
// opens VS Code's diff editor against an agentls-proposal: document that
// holds the proposed text. Proposals are fetched with agentls/proposals and
// refetched on agentls/proposalsChanged, when editors become visible and
// after edits to a document that has hunks. Layout logic lives in hunks.ts.
import * as vscode from "vscode";
import type { Ctx } from "./ctx";
import * as hunks from "./hunks";
import * as ext from "./lsp_ext";

/** The URI scheme of the proposed-text documents the diff editor shows. */
export const proposalScheme = "agentls-proposal";

interface DocState {
  gen: number;
  proposals: ext.Proposal[];
  views: hunks.HunkView[];
}

function documentLines(doc: vscode.TextDocument): string[] {
  const lines: string[] = [];
  for (let i = 0; i < doc.lineCount; i++) {
    lines.push(doc.lineAt(i).text);
  }
  return lines;
}

function commandLink(command: string, arg: ext.ReviewArgs): string {
  return `command:${command}?${encodeURIComponent(JSON.stringify([arg]))}`;
}

/** Owns the decorations and the proposal document provider. */
export class Preview implements vscode.Disposable, vscode.TextDocumentContentProvider {
  private readonly deleted = vscode.window.createTextEditorDecorationType({
    isWholeLine: true,
    backgroundColor: new vscode.ThemeColor("diffEditor.removedLineBackground"),
    overviewRulerColor: new vscode.ThemeColor("editorOverviewRuler.deletedForeground"),
    overviewRulerLane: vscode.OverviewRulerLane.Left,
  });
  private readonly conflicted = vscode.window.createTextEditorDecorationType({
    isWholeLine: true,
    backgroundColor: new vscode.ThemeColor("merge.incomingContentBackground"),
    overviewRulerColor: new vscode.ThemeColor("editorOverviewRuler.warningForeground"),
    overviewRulerLane: vscode.OverviewRulerLane.Left,
  });
  private readonly added = vscode.window.createTextEditorDecorationType({
    after: { fontStyle: "italic" },
    overviewRulerColor: new vscode.ThemeColor("editorOverviewRuler.addedForeground"),
    overviewRulerLane: vscode.OverviewRulerLane.Left,
  });
  private readonly problem = vscode.window.createTextEditorDecorationType({
    after: { color: new vscode.ThemeColor("editorWarning.foreground"), fontStyle: "italic" },
    overviewRulerColor: new vscode.ThemeColor("editorOverviewRuler.warningForeground"),
    overviewRulerLane: vscode.OverviewRulerLane.Right,
  });
  private readonly docs = new Map<string, DocState>();
  // Pure insertions show as whole lines where they go: a comment thread's
  // zone, the one extension API that draws between two lines (decorations
  // can only add text to an existing line). Accept / Reject are the
  // thread's title buttons.
  private readonly insertions = vscode.comments.createCommentController("agentls.insertions", "agentls proposed insertions");
  private readonly threads = new Map<string, Map<string, { thread: vscode.CommentThread; view: hunks.HunkView }>>();
  private readonly changed = new vscode.EventEmitter<vscode.Uri>();
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private readonly disposables: vscode.Disposable[] = [];

  /** Fires when a proposal document's content changed. */
  readonly onDidChange = this.changed.event;

  /** Called after a document's proposals were fetched (the inline view and the file list follow). */
  onRefreshed?: (docUri: string) => void;

  constructor(private readonly ctx: Ctx) {
    this.disposables.push(
      this.insertions,
      vscode.commands.registerCommand("agentls.acceptInsertion", (t: vscode.CommentThread) => this.decideInsertion(t, ext.Commands.accept)),
      vscode.commands.registerCommand("agentls.rejectInsertion", (t: vscode.CommentThread) => this.decideInsertion(t, ext.Commands.reject)),
      this.deleted,
      this.conflicted,
      this.added,
      this.problem,
      this.changed,
      vscode.workspace.registerTextDocumentContentProvider(proposalScheme, this),
      vscode.window.onDidChangeVisibleTextEditors(() => this.refreshVisible()),
      vscode.window.onDidChangeActiveTextEditor(() => this.updateContext()),
      vscode.workspace.onDidChangeTextDocument((e) => this.scheduleRefresh(e.document)),
      vscode.workspace.onDidCloseTextDocument((d) => this.docs.delete(d.uri.toString())),
    );
  }

  /** Refetches and redraws the proposals of every visible editor. */
  refreshVisible(): void {
    const seen = new Set<string>();
    for (const editor of vscode.window.visibleTextEditors) {
      const key = editor.document.uri.toString();
      const scheme = editor.document.uri.scheme;
      if ((scheme === "file" || scheme === "untitled") && !seen.has(key)) {
        seen.add(key);
        void this.refresh(key);
      }
    }
  }

  /** Handles agentls/proposalsChanged: refetches that document if it is open. */
  onProposalsChanged(uri: string): void {
    for (const doc of vscode.workspace.textDocuments) {
      if (hunks.sameUri(uri, doc.uri.toString())) {
        void this.refresh(doc.uri.toString());
      }
    }
  }

  /** Fetches a document's proposals and redraws its editors. */
  async refresh(docUri: string): Promise<void> {
    const state = this.docs.get(docUri) ?? { gen: 0, proposals: [], views: [] };
    this.docs.set(docUri, state);
    const gen = ++state.gen;
    let result: ext.ProposalsResult;
    try {
      result = await this.ctx.request(ext.proposals, { uri: docUri });
    } catch {
      return; // server not running or not implementing proposals yet
    }
    if (state.gen !== gen) {
      return; // a newer refresh is under way
    }
    state.proposals = result?.proposals ?? [];
    const doc = vscode.workspace.textDocuments.find((d) => d.uri.toString() === docUri);
    // A proposed new file has no document yet: its one hunk lays out over
    // an empty one.
    const created = state.proposals.some((p) => p.created);
    state.views = doc ? hunks.hunkViews(state.proposals, docUri, documentLines(doc)) : created ? hunks.hunkViews(state.proposals, docUri, [""]) : [];
    this.redraw(docUri);
    this.changed.fire(this.proposalUri(vscode.Uri.parse(docUri)));
    this.onRefreshed?.(docUri);
    if (state.proposals.length === 0) {
      await this.closeDiffs(docUri);
    }
  }

  /** Closes the diff views of a document that has nothing left to review. */
  private async closeDiffs(docUri: string): Promise<void> {
    const tabs = vscode.window.tabGroups.all
      .flatMap((g) => g.tabs)
      .filter(
        (t) =>
          (t.input instanceof vscode.TabInputTextDiff && t.input.modified.scheme === proposalScheme && t.input.modified.query === docUri) ||
          (t.input instanceof vscode.TabInputText && t.input.uri.scheme === "agentls-inline" && t.input.uri.query === docUri),
      );
    if (tabs.length > 0) {
      await vscode.window.tabGroups.close(tabs);
    }
  }

  private scheduleRefresh(doc: vscode.TextDocument): void {
    const key = doc.uri.toString();
    if (!this.docs.get(key)?.views.length) {
      return;
    }
    clearTimeout(this.timers.get(key));
    this.timers.set(
      key,
      setTimeout(() => {
        this.timers.delete(key);
        void this.refresh(key);
      }, 300),
    );
  }

  private async decideInsertion(thread: vscode.CommentThread | undefined, command: string): Promise<void> {
    for (const m of this.threads.values()) {
      for (const t of m.values()) {
        if (t.thread === thread) {
          await this.ctx.execute(command, { runId: t.view.runId, uri: t.view.uri, hunkId: t.view.hunkId } satisfies ext.ReviewArgs);
          return;
        }
      }
    }
  }

  // The insertion threads of a document, kept while their hunk and lines
  // stay the same (no flicker on each refresh).
  private drawInsertions(docUri: string, views: hunks.HunkView[]): void {
    const old = this.threads.get(docUri) ?? new Map<string, { thread: vscode.CommentThread; view: hunks.HunkView }>();
    const next = new Map<string, { thread: vscode.CommentThread; view: hunks.HunkView }>();
    const doc = vscode.workspace.textDocuments.find((d) => d.uri.toString() === docUri);
    const runsShown = new Set(views.map((v) => v.runId)).size;
    for (const v of views) {
      const row = hunks.insertionRow(v);
      if (row === undefined || !doc) {
        continue;
      }
      const body = hunks.insertionMarkdown(v, doc.languageId);
      const label =
        `agentls: run ${v.runId} inserts ${v.added.length === 1 ? "this line" : `these ${v.added.length} lines`} here` +
        (v.conflicted ? ` (${v.reason ?? "conflicted"})` : "") +
        (v.problems ? ` · ${v.problems}` : "") +
        (runsShown > 1 ? ` ‹run ${v.runId}›` : "");
      const key = `${v.runId}/${v.hunkId}/${row}/${label}/${body}`;
      const kept = old.get(key);
      if (kept) {
        old.delete(key);
        next.set(key, { thread: kept.thread, view: v });
        continue;
      }
      const md = new vscode.MarkdownString(body);
      const thread = this.insertions.createCommentThread(doc.uri, new vscode.Range(row, 0, row, 0), [
        { body: md, mode: vscode.CommentMode.Preview, author: { name: `run ${v.runId}` }, contextValue: "agentls.insertion" },
      ]);
      thread.label = label;
      thread.canReply = false;
      thread.contextValue = "agentls.insertion";
      thread.collapsibleState = vscode.CommentThreadCollapsibleState.Expanded;
      next.set(key, { thread, view: v });
    }
    for (const t of old.values()) {
      t.thread.dispose();
    }
    if (next.size > 0) {
      this.threads.set(docUri, next);
    } else {
      this.threads.delete(docUri);
    }
  }

  private redraw(docUri: string): void {
    const views = this.docs.get(docUri)?.views ?? [];
    this.drawInsertions(docUri, views);
    for (const editor of vscode.window.visibleTextEditors) {
      if (editor.document.uri.toString() !== docUri) {
        continue;
      }
      const lines = documentLines(editor.document);
      const deleted: vscode.DecorationOptions[] = [];
      const conflicted: vscode.DecorationOptions[] = [];
      const added: vscode.DecorationOptions[] = [];
      const problems: vscode.DecorationOptions[] = [];
      const tabSize = typeof editor.options.tabSize === "number" ? editor.options.tabSize : 4;
      const blocks: { v: hunks.HunkView; hover: vscode.MarkdownString; covered: (row: number) => boolean; rows: hunks.BlockRow[] }[] = [];
      // Two runs' hunks in one file are told apart by their run.
      const runsShown = new Set(views.map((v) => v.runId)).size;
      for (const v of views) {
        const hover = new vscode.MarkdownString(
          `**agentls proposal** (run ${v.runId}${v.conflicted ? `, ${v.supersededBy ? "not applicable" : "conflicted"}${v.reason ? ": " + v.reason : ""}` : ""})\n\n` +
            (v.lastError ? `Last accept failed: ${v.lastError}\n\n` : "") +
            (v.problems ? `**${v.problems.replace(/^⚠ /, "Language server: ")}**\n\n` : "") +
            hunks.diffMarkdown(v, lines) +
            (v.conflicted
              ? `\n\n[Reject](${commandLink(ext.Commands.reject, { runId: v.runId, uri: v.uri, hunkId: v.hunkId })})`
              : `\n\n[Accept](${commandLink(ext.Commands.accept, { runId: v.runId, uri: v.uri, hunkId: v.hunkId })})` +
                ` · [Reject](${commandLink(ext.Commands.reject, { runId: v.runId, uri: v.uri, hunkId: v.hunkId })})`),
        );
        hover.isTrusted = { enabledCommands: [ext.Commands.accept, ext.Commands.reject] };
        // One hover per hunk and row: the replaced lines carry it; a block
        // row carries it only where no replaced line of the hunk is.
        const covered = (row: number) => v.first !== undefined && v.first <= row && row <= (v.last ?? v.first);
        if (v.first !== undefined) {
          const range = new vscode.Range(v.first, 0, v.last ?? v.first, 0);
          (v.conflicted ? conflicted : deleted).push({ range, hoverMessage: hover });
        }
        if (v.problems) {
          // What accepting the proposal would break, on its first hunk's
          // first row (the language server's words; the hover lists it).
          const row = Math.min(Math.max(v.first ?? v.anchor, 0), editor.document.lineCount - 1);
          const end = editor.document.lineAt(row).range.end;
          problems.push({ range: new vscode.Range(end, end), renderOptions: { after: { contentText: v.problems, margin: "0 0 0 3ch" } } });
        }
        if (v.supersededBy) {
          // Another run's accepted change already made it: its lines are
          // not drawn again (they would read as the same block twice).
          const row = Math.min(v.first ?? v.anchor, editor.document.lineCount - 1);
          const end = editor.document.lineAt(row).range.end;
          added.push({
            range: new vscode.Range(end, end),
            hoverMessage: covered(row) ? undefined : hover,
            renderOptions: { after: { contentText: `⊘ already made by accepted change ${v.supersededBy} (run ${v.runId}): reject it`, margin: "0 0 0 3ch", fontStyle: "italic" } },
          });
          continue;
        }
        if (hunks.insertionRow(v) !== undefined) {
          continue; // whole lines where they go (drawInsertions)
        }
        // The whole replacement, one new line per row, as a block beside
        // the old lines (hunks.blockRows); "Review" shows it stacked.
        blocks.push({ v, hover, covered, rows: hunks.blockRows(v, lines, tabSize) });
      }
      // Blocks sharing rows (two runs on one line) stand side by side, each whole.
      const stacked = hunks.stackBlocks(
        blocks.map((b) => b.rows),
        lines,
        tabSize,
      );
      for (const [i, { v, hover, covered }] of blocks.entries()) {
        for (const b of stacked[i]) {
          const end = editor.document.lineAt(Math.min(b.row, editor.document.lineCount - 1)).range.end;
          added.push({
            range: new vscode.Range(end, end),
            hoverMessage: covered(b.row) ? undefined : hover,
            renderOptions: {
              after: {
                contentText: runsShown > 1 && b.first ? `${b.text} ‹run ${v.runId}›` : b.text,
                margin: `0 0 0 ${b.margin}ch`,
                backgroundColor: new vscode.ThemeColor(
                  v.conflicted ? "merge.incomingHeaderBackground" : "diffEditor.insertedTextBackground",
                ),
              },
            },
          });
        }
      }
      editor.setDecorations(this.deleted, deleted);
      editor.setDecorations(this.conflicted, conflicted);
      editor.setDecorations(this.added, added);
      editor.setDecorations(this.problem, problems);
    }
    this.updateContext();
  }

  private updateContext(): void {
    const editor = vscode.window.activeTextEditor;
    const has = !!editor && (this.docs.get(editor.document.uri.toString())?.views.length ?? 0) > 0;
    void vscode.commands.executeCommand("setContext", "agentls.hasProposals", has);
  }

  /** The hunks shown in a document. */
  views(doc: vscode.TextDocument): hunks.HunkView[] {
    return this.viewsOf(doc.uri.toString());
  }

  /** The hunks of the document whose URI string is `docUri`. */
  viewsOf(docUri: string): hunks.HunkView[] {
    return this.docs.get(docUri)?.views ?? [];
  }

  /** Removes every preview (the server stopped). */
  clearAll(): void {
    for (const key of [...this.docs.keys()]) {
      this.docs.set(key, { gen: (this.docs.get(key)?.gen ?? 0) + 1, proposals: [], views: [] });
      this.redraw(key);
    }
  }

  /** The agentls-proposal: URI holding the proposed text of document `uri`. */
  proposalUri(uri: vscode.Uri): vscode.Uri {
    return vscode.Uri.from({ scheme: proposalScheme, path: uri.path, query: uri.toString() });
  }

  /** The left side of a new file's diff: the file before it exists (empty). */
  emptyUri(uri: vscode.Uri): vscode.Uri {
    return vscode.Uri.from({ scheme: proposalScheme, path: uri.path, query: uri.toString(), fragment: "base" });
  }

  /** TextDocumentContentProvider: the proposed text for the document named in the query. */
  provideTextDocumentContent(uri: vscode.Uri): string {
    if (uri.fragment === "base") {
      return "";
    }
    const state = this.docs.get(uri.query);
    const proposal = state?.proposals.find((p) => hunks.sameUri(p.uri, uri.query));
    return proposal?.proposedText ?? "";
  }

  /** The proposals last fetched for the document whose URI string is `docUri`. */
  proposalsOf(docUri: string): ext.Proposal[] {
    return this.docs.get(docUri)?.proposals ?? [];
  }

  /**
   * InlineSource: fetches a document's proposals and returns its lines and
   * hunks (laid out over the document as it is now).
   */
  async load(docUri: string): Promise<{ lines: string[]; views: hunks.HunkView[] }> {
    try {
      await vscode.workspace.openTextDocument(vscode.Uri.parse(docUri));
    } catch {
      // A new file the agent proposes: it does not exist yet.
    }
    await this.refresh(docUri);
    return this.current(docUri);
  }

  /** InlineSource: the same from the last fetch (no request). */
  current(docUri: string): { lines: string[]; views: hunks.HunkView[] } {
    const doc = vscode.workspace.textDocuments.find((d) => d.uri.toString() === docUri);
    const lines = doc ? documentLines(doc) : [""];
    return { lines, views: hunks.hunkViews(this.proposalsOf(docUri), docUri, lines) };
  }

  /**
   * Opens the diff of a proposed new file (which does not exist yet)
   * against the empty file, so it is seen before it is accepted.
   */
  async showNewFileDiff(uri: vscode.Uri): Promise<void> {
    await this.refresh(uri.toString());
    const name = uri.path.split("/").pop() ?? uri.path;
    await vscode.commands.executeCommand("vscode.diff", this.emptyUri(uri), this.proposalUri(uri), `${name} (new file) ↔ agent proposal`, {
      preview: false,
    } satisfies vscode.TextDocumentShowOptions);
  }

  /** Opens the diff editor: the document against its proposed text. */
  async showDiff(doc: vscode.TextDocument): Promise<void> {
    await this.refresh(doc.uri.toString());
    if (this.views(doc).length === 0) {
      void vscode.window.showInformationMessage("agentls: no proposed changes for this file.");
      return;
    }
    const name = doc.uri.path.split("/").pop() ?? doc.uri.path;
    // Its own tab (preview: false): a file opened with a single click sits
    // in a preview tab, which a preview-mode diff would replace, leaving
    // nothing when the diff is closed. Review it with the title bar's
    // Accept / Reject buttons (per change at the cursor, or the whole file).
    await vscode.commands.executeCommand("vscode.diff", doc.uri, this.proposalUri(doc.uri), `${name} ↔ agent proposal`, {
      preview: false,
    } satisfies vscode.TextDocumentShowOptions);
  }

  dispose(): void {
    this.timers.forEach((t) => clearTimeout(t));
    this.disposables.forEach((d) => d.dispose());
  }
}
