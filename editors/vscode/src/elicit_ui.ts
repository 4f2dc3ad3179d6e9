// VS Code's side of MCP elicitation forms (elicit.ts holds the logic): quick
// picks and input boxes that close when the server withdraws the request.
import * as vscode from "vscode";
import { InputOptions, PickItem, Prompter, PromptOptions } from "./elicit";

/** A Prompter on VS Code's quick pick and input box, ended by `token`. */
export function vscodePrompter(token: vscode.CancellationToken): Prompter {
  return {
    pick<T>(items: PickItem<T>[], opts: PromptOptions) {
      return Promise.resolve(
        vscode.window.showQuickPick(items, { title: opts.title, placeHolder: opts.placeHolder, ignoreFocusOut: true }, token),
      );
    },
    pickMany<T>(items: PickItem<T>[], opts: PromptOptions) {
      return Promise.resolve(
        vscode.window.showQuickPick(
          items,
          { title: opts.title, placeHolder: opts.placeHolder, ignoreFocusOut: true, canPickMany: true },
          token,
        ),
      );
    },
    input(opts: InputOptions) {
      return Promise.resolve(
        vscode.window.showInputBox(
          {
            title: opts.title,
            prompt: opts.prompt,
            placeHolder: opts.placeHolder,
            value: opts.value,
            ignoreFocusOut: true,
            validateInput: (t) => opts.validate(t),
          },
          token,
        ),
      );
    },
    async openExternal(url: string) {
      await vscode.env.openExternal(vscode.Uri.parse(url));
    },
  };
}
