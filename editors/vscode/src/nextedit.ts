// The one-key accept of next edits ("agentls: Accept Next Edit", Alt+N):
// a next-edit suggestion (completion.nextEdit) is worth taking only if it
// costs less than making the edit, so the key takes the active file's
// suggestion from anywhere in it, not only with the cursor on its lines
// (agentls.acceptHunk does that). The context key agentls.hasNextEdit
// keeps the key free in files without one.
import * as vscode from "vscode";
import type { Ctx } from "./ctx";
import * as ext from "./lsp_ext";
import { nextEditArgs } from "./nextedit_pick";
import type { Preview } from "./preview";

export const acceptNextEditCommand = "agentls.acceptNextEdit";
const contextKey = "agentls.hasNextEdit";

/** Registers the command and keeps its context key current. */
export function registerNextEdit(context: vscode.ExtensionContext, c: Ctx, preview: Preview): void {
  const current = (): ext.ReviewArgs | undefined => {
    const doc = vscode.window.activeTextEditor?.document;
    return doc ? nextEditArgs(preview.proposalsOf(doc.uri.toString()), doc.uri.toString()) : undefined;
  };
  let shown: boolean | undefined;
  const update = () => {
    const has = current() !== undefined;
    if (has !== shown) {
      shown = has;
      void vscode.commands.executeCommand("setContext", contextKey, has);
    }
  };
  // Proposals reach the preview on agentls/proposalsChanged; follow its
  // refreshes as main.ts's other listeners do.
  const prev = preview.onRefreshed;
  preview.onRefreshed = (docUri) => {
    prev?.(docUri);
    update();
  };
  context.subscriptions.push(
    vscode.window.onDidChangeActiveTextEditor(() => update()),
    vscode.commands.registerCommand(acceptNextEditCommand, async () => {
      const args = current();
      if (!args) {
        void vscode.window.showInformationMessage("agentls: no next-edit suggestion in this file.");
        return;
      }
      await c.execute(ext.Commands.accept, args);
    }),
  );
}
