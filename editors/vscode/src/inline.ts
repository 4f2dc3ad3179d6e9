// The inline review document: a read-only view of a file in which every
// proposed hunk shows as whole lines, the lines it replaces (removed
// colours) with the lines it produces stacked under them (inserted
// colours), each block with Accept / Reject lenses naming its run, in the
// file's language. VS Code's extension API cannot add lines to an editor
// (no view zones; decorations are one line of text), so this is where the
// stacked inline diff lives; the file's own editor keeps its compact
// preview (preview.ts). Layout logic: hunks.inlineLayout.
import * as vscode from "vscode";
import * as hunks from "./hunks";
import * as ext from "./lsp_ext";

/** The URI scheme of inline review documents; the query is the reviewed document's URI. */
export const inlineScheme = "agentls-inline";

/** What the inline view needs from the preview: the hunks of a document and its lines. */
export interface InlineSource {
  /** The hunks of the document whose URI string is `docUri`, fetched afresh. */
  load(docUri: string): Promise<{ lines: string[]; views: hunks.HunkView[] }>;
  /** The same from what was fetched last (no request). */
  current(docUri: string): { lines: string[]; views: hunks.HunkView[] };
  /** The hunks last fetched for `docUri` (no request). */
  viewsOf(docUri: string): hunks.HunkView[];
}

/** Owns the inline review documents: content, decorations and lenses. */
export class InlineReview implements vscode.Disposable, vscode.TextDocumentContentProvider, vscode.CodeLensProvider {
  private readonly layouts = new Map<string, hunks.InlineLayout>();
  private readonly changed = new vscode.EventEmitter<vscode.Uri>();
  private readonly lensesChanged = new vscode.EventEmitter<void>();
  private readonly disposables: vscode.Disposable[] = [];
  private readonly removed = vscode.window.createTextEditorDecorationType({
    isWholeLine: true,
    backgroundColor: new vscode.ThemeColor("diffEditor.removedLineBackground"),
    textDecoration: "line-through",
    overviewRulerColor: new vscode.ThemeColor("editorOverviewRuler.deletedForeground"),
    overviewRulerLane: vscode.OverviewRulerLane.Left,
    before: { contentText: "−", width: "2ch", color: new vscode.ThemeColor("editorGutter.deletedBackground") },
  });
  private readonly added = vscode.window.createTextEditorDecorationType({
    isWholeLine: true,
    backgroundColor: new vscode.ThemeColor("diffEditor.insertedLineBackground"),
    overviewRulerColor: new vscode.ThemeColor("editorOverviewRuler.addedForeground"),
    overviewRulerLane: vscode.OverviewRulerLane.Left,
    before: { contentText: "+", width: "2ch", color: new vscode.ThemeColor("editorGutter.addedBackground") },
  });
  private readonly conflicted = vscode.window.createTextEditorDecorationType({
    isWholeLine: true,
    backgroundColor: new vscode.ThemeColor("merge.incomingContentBackground"),
    before: { contentText: "!", width: "2ch" },
  });
  private readonly same = vscode.window.createTextEditorDecorationType({
    before: { contentText: " ", width: "2ch" },
  });

  /** Fires when an inline review document's content changed. */
  readonly onDidChange = this.changed.event;
  /** Fires when the lenses should be asked for again. */
  readonly onDidChangeCodeLenses = this.lensesChanged.event;

  constructor(private readonly source: InlineSource) {
    this.disposables.push(
      this.changed,
      this.lensesChanged,
      this.removed,
      this.added,
      this.conflicted,
      this.same,
      vscode.workspace.registerTextDocumentContentProvider(inlineScheme, this),
      vscode.languages.registerCodeLensProvider({ scheme: inlineScheme }, this),
      vscode.window.onDidChangeVisibleTextEditors(() => this.decorateVisible()),
    );
  }

  /** The inline review URI of document `docUri`. */
  uriOf(docUri: vscode.Uri): vscode.Uri {
    return vscode.Uri.from({ scheme: inlineScheme, path: docUri.path, query: docUri.toString() });
  }

  /** Opens the inline review of `doc` (the file's own editor stays as it is). */
  async open(doc: vscode.TextDocument): Promise<void> {
    const uri = this.uriOf(doc.uri);
    await this.relayout(doc.uri.toString());
    const view = await vscode.workspace.openTextDocument(uri);
    await vscode.languages.setTextDocumentLanguage(view, doc.languageId).then(undefined, () => view);
    await vscode.window.showTextDocument(uri, { preview: false });
    this.decorateVisible();
  }

  /** Whether an inline view of `docUri` is open. */
  isOpen(docUri: string): boolean {
    return vscode.workspace.textDocuments.some((d) => d.uri.scheme === inlineScheme && hunks.sameUri(d.uri.query, docUri));
  }

  /**
   * The proposals of `docUri` were fetched again: lays out its inline view
   * anew from them (no request), if one is open.
   */
  update(docUri: string): void {
    if (!this.isOpen(docUri)) {
      return;
    }
    const { lines, views } = this.source.current(docUri);
    this.layouts.set(docUri, hunks.inlineLayout(lines, views));
    for (const d of vscode.workspace.textDocuments) {
      if (d.uri.scheme === inlineScheme && hunks.sameUri(d.uri.query, docUri)) {
        this.changed.fire(d.uri);
      }
    }
    this.lensesChanged.fire();
    // Decorate once the editors show the new content.
    setTimeout(() => this.decorateVisible(), 50);
  }

  private async relayout(docUri: string): Promise<void> {
    const { lines, views } = await this.source.load(docUri);
    this.layouts.set(docUri, hunks.inlineLayout(lines, views));
  }

  /** TextDocumentContentProvider: the stacked text of the document named in the query. */
  provideTextDocumentContent(uri: vscode.Uri): string {
    const layout = this.layouts.get(uri.query);
    return layout ? layout.rows.map((r) => r.text).join("\n") : "";
  }

  /** The hunk under the cursor of an inline review editor. */
  hunkAt(editor: vscode.TextEditor): hunks.HunkView | undefined {
    const docUri = editor.document.uri.query;
    const layout = this.layouts.get(docUri);
    return layout ? hunks.hunkAtInline(layout, this.source.viewsOf(docUri), editor.selection.active.line) : undefined;
  }

  /** CodeLensProvider: Accept / Reject above each block, naming its run. */
  provideCodeLenses(doc: vscode.TextDocument): vscode.CodeLens[] {
    const layout = this.layouts.get(doc.uri.query);
    if (!layout) {
      return [];
    }
    const out: vscode.CodeLens[] = [];
    for (const v of this.source.viewsOf(doc.uri.query)) {
      const row = layout.starts.get(v.hunkId);
      if (row === undefined) {
        continue;
      }
      const range = new vscode.Range(row, 0, row, 0);
      const args: ext.ReviewArgs = { runId: v.runId, uri: v.uri, hunkId: v.hunkId };
      if (!v.conflicted) {
        out.push(new vscode.CodeLens(range, { title: `$(check) Accept (run ${v.runId})`, command: ext.Commands.accept, arguments: [args] }));
      } else {
        // The server's reason tells the same change from a different one to the same lines.
        const same = (v.reason ?? "").includes("already makes this change");
        const why = v.supersededBy
          ? same
            ? `already made by accepted change ${v.supersededBy}`
            : `overlaps accepted change ${v.supersededBy}: only one can apply`
          : "conflicted: the lines changed since";
        out.push(new vscode.CodeLens(range, { title: `$(warning) ${why} (run ${v.runId})`, command: "" }));
      }
      out.push(new vscode.CodeLens(range, { title: "$(close) Reject", command: ext.Commands.reject, arguments: [args] }));
    }
    return out;
  }

  private decorateVisible(): void {
    for (const editor of vscode.window.visibleTextEditors) {
      if (editor.document.uri.scheme !== inlineScheme) {
        continue;
      }
      const docUri = editor.document.uri.query;
      const layout = this.layouts.get(docUri);
      if (!layout) {
        continue;
      }
      const conflicted = new Set(this.source.viewsOf(docUri).filter((v) => v.conflicted).map((v) => v.hunkId));
      const ranges = { old: [] as vscode.Range[], new: [] as vscode.Range[], bad: [] as vscode.Range[], same: [] as vscode.Range[] };
      layout.rows.forEach((r, i) => {
        if (i >= editor.document.lineCount) {
          return;
        }
        const range = new vscode.Range(i, 0, i, 0);
        if (r.kind === "same") {
          ranges.same.push(range);
        } else if (r.hunkId !== undefined && conflicted.has(r.hunkId)) {
          ranges.bad.push(range);
        } else {
          ranges[r.kind].push(range);
        }
      });
      editor.setDecorations(this.removed, ranges.old);
      editor.setDecorations(this.added, ranges.new);
      editor.setDecorations(this.conflicted, ranges.bad);
      editor.setDecorations(this.same, ranges.same);
    }
  }

  dispose(): void {
    this.disposables.forEach((d) => d.dispose());
  }
}
