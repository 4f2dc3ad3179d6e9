// Ghost text: VS Code's inline suggestions answered by the server's
// textDocument/inlineCompletion (docs/completions.md). Accepting is VS
// Code's own: Tab takes the whole suggestion, Ctrl+Right
// (editor.action.inlineSuggest.acceptNextWord) a word, and
// editor.action.inlineSuggest.acceptNextLine a line. The request carries
// VS Code's cancellation token, so a suggestion VS Code no longer wants
// becomes $/cancelRequest, which frees the server's model request at once.
// The wire shapes and why this is not vscode-languageclient's own feature:
// ghost_proto.ts.
import * as vscode from "vscode";
import * as lc from "vscode-languageclient/node";
import * as proto from "./ghost_proto";

/**
 * A client feature: it tells the server the editor shows inline
 * completions (so the server offers them as ghost text, not as a
 * completion-list item) and, once the server offers
 * inlineCompletionProvider, registers the provider for the client's
 * documents. A restart of the client registers it again.
 */
export class GhostText implements lc.StaticFeature {
  private registration: vscode.Disposable | undefined;

  constructor(private readonly client: lc.BaseLanguageClient) {}

  fillClientCapabilities(caps: lc.ClientCapabilities): void {
    caps.textDocument = caps.textDocument ?? {};
    (caps.textDocument as Record<string, unknown>).inlineCompletion = { dynamicRegistration: false };
  }

  initialize(caps: lc.ServerCapabilities, selector: lc.DocumentSelector | undefined): void {
    this.clear();
    if (!(caps as Record<string, unknown>).inlineCompletionProvider) {
      return; // no completion model: nothing to ask
    }
    const docs = this.client.protocol2CodeConverter.asDocumentSelector(selector ?? [{ scheme: "file" }, { scheme: "untitled" }]);
    this.registration = vscode.languages.registerInlineCompletionItemProvider(docs, {
      provideInlineCompletionItems: (doc, pos, ctx, token) => this.provide(doc, pos, ctx, token),
    });
  }

  getState(): lc.FeatureState {
    return { kind: "static" };
  }

  clear(): void {
    this.registration?.dispose();
    this.registration = undefined;
  }

  private async provide(
    doc: vscode.TextDocument,
    pos: vscode.Position,
    ctx: vscode.InlineCompletionContext,
    token: vscode.CancellationToken,
  ): Promise<vscode.InlineCompletionItem[] | undefined> {
    const c = this.client;
    const params = proto.inlineParams(
      c.code2ProtocolConverter.asUri(doc.uri),
      { line: pos.line, character: pos.character },
      ctx.triggerKind === vscode.InlineCompletionTriggerKind.Invoke,
    );
    let result: proto.InlineCompletionResult;
    try {
      result = await c.sendRequest<proto.InlineCompletionResult>(proto.inlineCompletionMethod, params, token);
    } catch (err) {
      // Cancelled (-32800) or outdated is the normal end of a suggestion
      // typed past; anything else is logged, never shown: ghost text that
      // fails simply does not appear.
      if (!token.isCancellationRequested && !(err instanceof lc.ResponseError && err.code === lc.LSPErrorCodes.RequestCancelled)) {
        c.outputChannel.appendLine(`agentls: inline completion: ${String(err)}`);
      }
      return undefined;
    }
    if (token.isCancellationRequested) {
      return undefined;
    }
    return proto.ghostsOf(result).map(
      (g) => new vscode.InlineCompletionItem(g.text, g.range ? c.protocol2CodeConverter.asRange(g.range) : undefined),
    );
  }
}
