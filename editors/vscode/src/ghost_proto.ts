// The wire side of ghost text (textDocument/inlineCompletion, LSP 3.18),
// kept free of "vscode" so node's test runner checks it. The extension
// does not use vscode-languageclient 9's proposed InlineCompletionItemFeature:
// that one sends VS Code's trigger kinds unchanged (Invoke 0, Automatic 1),
// an older draft of the protocol, while 3.18 and agentls count from 1
// (Invoked 1, Automatic 2). An automatic request sent as 1 would skip the
// server's debounce and ask the model on every keystroke.
import type { Position, Range } from "./lsp_ext";

/** The request method. */
export const inlineCompletionMethod = "textDocument/inlineCompletion";

/** LSP 3.18 InlineCompletionTriggerKind. */
export const TriggerKind = { invoked: 1, automatic: 2 } as const;

/** textDocument/inlineCompletion params. */
export interface InlineCompletionParams {
  textDocument: { uri: string };
  position: Position;
  context: { triggerKind: number };
}

/** One item of the answer; agentls sends plain text, never a snippet. */
export interface InlineCompletionItem {
  insertText: string | { kind: "snippet"; value: string };
  range?: Range;
  filterText?: string;
}

/** The answer: a list or an array of items, or null. */
export type InlineCompletionResult = { items: InlineCompletionItem[] } | InlineCompletionItem[] | null | undefined;

/** The params for the document `uri` at `position`; `invoked` when the user asked (VS Code's Invoke). */
export function inlineParams(uri: string, position: Position, invoked: boolean): InlineCompletionParams {
  return {
    textDocument: { uri },
    position: { line: position.line, character: position.character },
    context: { triggerKind: invoked ? TriggerKind.invoked : TriggerKind.automatic },
  };
}

/** A ghost text to show: the text and, when the server gave one, the range it replaces. */
export interface Ghost {
  text: string;
  range?: Range;
}

/**
 * The ghost texts of an answer, empty ones dropped. A snippet's value is
 * shown as it is (agentls sends none; other servers' placeholders would show
 * literally rather than be lost).
 */
export function ghostsOf(result: InlineCompletionResult): Ghost[] {
  if (!result) {
    return [];
  }
  const items = Array.isArray(result) ? result : (result.items ?? []);
  const out: Ghost[] = [];
  for (const it of items) {
    const text = typeof it.insertText === "string" ? it.insertText : it.insertText?.value;
    if (text) {
      out.push(it.range ? { text, range: it.range } : { text });
    }
  }
  return out;
}
