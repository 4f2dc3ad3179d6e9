// The files with proposed changes, where the user looks before accepting:
// the "Agent Proposals" view in the Explorer (every file with pending or
// conflicted hunks, new files marked, from agentls/proposals), and the
// quick pick that "Review" opens when a run changed several files. A
// proposed new file is listed like any other, so it is seen before it is
// accepted.
import * as vscode from "vscode";
import type { Ctx } from "./ctx";
import { describe, type FileEntry, fileEntries } from "./filelist";
import * as ext from "./lsp_ext";

/** Owns the "Agent Proposals" view; opens files for review through `open`. */
export class ProposedFiles implements vscode.Disposable, vscode.TreeDataProvider<FileEntry> {
  private entries: FileEntry[] = [];
  private readonly changed = new vscode.EventEmitter<void>();
  private readonly disposables: vscode.Disposable[] = [];
  private timer: NodeJS.Timeout | undefined;

  readonly onDidChangeTreeData = this.changed.event;

  constructor(
    private readonly ctx: Ctx,
    private readonly open: (uri: string) => Promise<void>,
  ) {
    this.disposables.push(this.changed, vscode.window.registerTreeDataProvider("agentls.proposals", this));
  }

  /** Fetches the list again (soon: changes come in bursts). */
  refresh(): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.load(), 100);
  }

  private async load(): Promise<FileEntry[]> {
    try {
      this.entries = fileEntries((await this.ctx.request(ext.proposals, {})).proposals ?? []);
    } catch {
      this.entries = [];
    }
    void vscode.commands.executeCommand("setContext", "agentls.hasProposedFiles", this.entries.length > 0);
    this.changed.fire();
    return this.entries;
  }

  /** Whether `uri` was listed as a new file the agent proposes. */
  isNewFile(uri: vscode.Uri): boolean {
    return this.entries.some((e) => e.created && vscode.Uri.parse(e.uri).toString() === uri.toString());
  }

  getTreeItem(e: FileEntry): vscode.TreeItem {
    const uri = vscode.Uri.parse(e.uri);
    const item = new vscode.TreeItem(uri, vscode.TreeItemCollapsibleState.None);
    item.description = describe(e);
    item.tooltip = `${vscode.workspace.asRelativePath(uri)}: ${describe(e)}`;
    item.command = { title: "Review", command: "agentls.reviewFile", arguments: [e.uri] };
    item.contextValue = e.created ? "agentls.newFile" : "agentls.file";
    return item;
  }

  getChildren(e?: FileEntry): FileEntry[] {
    return e ? [] : this.entries;
  }

  /**
   * Review: one file opens at once; several are offered in a quick pick
   * listing every file (`only`: those URIs, e.g. a run's files).
   */
  async pick(only?: string[]): Promise<void> {
    let entries = await this.load();
    if (only && only.length > 0) {
      entries = entries.filter((e) => only.some((u) => sameFile(u, e.uri)));
    }
    if (entries.length === 0) {
      void vscode.window.showInformationMessage("agentls: no proposed changes to review.");
      return;
    }
    if (entries.length === 1) {
      return this.open(entries[0].uri);
    }
    const choice = await vscode.window.showQuickPick(
      entries.map((e) => ({
        label: vscode.workspace.asRelativePath(vscode.Uri.parse(e.uri)),
        description: describe(e),
        uri: e.uri,
      })),
      { title: `agentls: Review proposed changes (${entries.length} files)`, placeHolder: "Pick a file to review" },
    );
    if (choice) {
      await this.open(choice.uri);
    }
  }

  dispose(): void {
    clearTimeout(this.timer);
    this.disposables.forEach((d) => d.dispose());
  }
}

function sameFile(a: string, b: string): boolean {
  try {
    return a === b || decodeURIComponent(a) === decodeURIComponent(b);
  } catch {
    return false;
  }
}
