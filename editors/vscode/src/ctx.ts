// The language client's lifecycle: find the server, start it with the
// settings, route the agentls notifications, keep the settings in sync, and
// restart when agentls.path changes.
//
// The server lists agentls.run / cancel / accept / reject as
// executeCommandProvider commands, so vscode-languageclient registers VS Code
// commands with those ids itself. The executeCommand middleware below is
// where the extension adds its UI to them: agentls.run invoked without
// arguments (command palette, keybinding) asks for a prompt, agentls.cancel
// without arguments asks which run, agentls.remember without a note asks
// for one, and every result is reported back (run ids for the run log,
// accept failures, preview refreshes).
import * as vscode from "vscode";
import * as lc from "vscode-languageclient/node";
import { AgentlsSettings, buildSettings, findExecutable } from "./config";
import { editorToolDefs, invokeEditorTool } from "./editor_tools";
import { elicitForm } from "./elicit";
import { vscodePrompter } from "./elicit_ui";
import * as ext from "./lsp_ext";
import { GhostText } from "./ghost";
import { errorMessage, isRunEndMessage, missingBinaryMessage } from "./messages";
import { planRunOfArg } from "./plans";
import { argsFromInvocation } from "./remember";

/** LSP RequestFailed: agentls.run's answer when a run cannot start. */
const runNotStarted = -32803;

/** What the rest of the extension plugs into the client. */
export interface CtxHooks {
  onRunEvent(ev: ext.RunEvent): void;
  onProposalsChanged(p: ext.ProposalsChangedParams): void;
  /** Called after every agentls.* command with its arguments and result. */
  onCommandResult(command: string, args: unknown[], result: unknown): void;
  /** Asks the user for agentls.run arguments; undefined when dismissed. */
  promptRun(): Promise<ext.RunArgs | undefined>;
  /** Asks which run to cancel; undefined when dismissed or none runs. */
  pickRun(): Promise<string | undefined>;
  /** Asks which plan awaiting approval to approve; undefined when dismissed or none waits. */
  pickPlan(): Promise<string | undefined>;
  /** Asks for a rule to remember (agentls.remember); undefined when dismissed. */
  promptRemember(): Promise<ext.RememberArgs | undefined>;
  /** agentls.run's arguments as sent (the picked model added when due). */
  prepareRun(args: ext.RunArgs): ext.RunArgs;
  /** Takes a window/showDocument of the server (a run report); false: the default handling. */
  showDocument(params: { uri: string; external?: boolean }): boolean;
  onStarted(): void;
  onStopped(reason: string): void;
}

type Next = (command: string, args: unknown[]) => vscode.ProviderResult<unknown>;

/** Owns the LanguageClient. */
export class Ctx implements vscode.Disposable {
  readonly output = vscode.window.createOutputChannel("agentls");
  private lc: lc.LanguageClient | undefined;
  private fallbacks: vscode.Disposable[] = [];
  /** Why the server is not running (it failed to start), shown by every command until it runs. */
  private failure: string | undefined;
  private downCommands: vscode.Disposable[] = [];
  private readonly downItem = vscode.window.createStatusBarItem(vscode.StatusBarAlignment.Left, 10);
  private starting: Promise<void> | undefined;
  private readonly disposables: vscode.Disposable[] = [];

  constructor(private readonly hooks: CtxHooks) {
    this.downItem.text = "$(error) agentls";
    this.downItem.command = "agentls.restartServer";
    this.disposables.push(
      this.output,
      this.downItem,
      vscode.workspace.onDidChangeConfiguration((e) => {
        // A start that failed is tried again on any agentls setting: on a
        // fresh profile the settings may load after activation, and a
        // reload must never be the only way out.
        if (e.affectsConfiguration("agentls.path") || (this.failure !== undefined && e.affectsConfiguration("agentls"))) {
          void this.restart();
        } else if (e.affectsConfiguration("agentls")) {
          void this.sendSettings();
        }
      }),
    );
  }

  /** Why the server is not running after a failed start, else undefined. */
  get startFailure(): string | undefined {
    return this.failure;
  }

  // The server failed to start: every agentls.* command the server would
  // have registered says why and offers Retry (not "command not found"),
  // and a status bar item stays until it runs.
  private failed(reason: string): void {
    // The same failure again (a settings change retried) is not shown
    // twice; the status bar item and the commands still say it.
    const again = this.failure === reason;
    this.failure = reason;
    this.output.appendLine(reason);
    this.downItem.tooltip = `${reason}\nClick to try again.`;
    this.downItem.show();
    this.registerDown();
    if (!again) {
      void this.explainFailure();
    }
  }

  private registerDown(): void {
    this.downCommands.forEach((d) => d.dispose());
    this.downCommands = Object.values(ext.Commands).map((command) =>
      vscode.commands.registerCommand(command, () => this.explainFailure()),
    );
  }

  private async explainFailure(): Promise<void> {
    const reason = this.failure;
    if (reason === undefined) {
      return;
    }
    const pick = await vscode.window.showErrorMessage(reason, "Retry", "Open Settings", "Show Log");
    if (pick === "Retry") {
      await this.restart();
      if (this.failure === reason) {
        void this.explainFailure(); // still the same: say so
      }
    } else if (pick === "Open Settings") {
      await vscode.commands.executeCommand("workbench.action.openSettings", "agentls.path");
    } else if (pick === "Show Log") {
      this.output.show(true);
    }
  }

  private recovered(): void {
    this.failure = undefined;
    this.downItem.hide();
    this.downCommands.forEach((d) => d.dispose());
    this.downCommands = [];
  }

  /** The running client, or undefined. */
  get client(): lc.LanguageClient | undefined {
    return this.lc?.isRunning() ? this.lc : undefined;
  }

  /** The settings object sent to the server. */
  settings(): AgentlsSettings {
    const cfg = vscode.workspace.getConfiguration("agentls");
    // The extension draws proposals itself (preview.ts): the server's
    // preview diagnostics would show every hunk a second time.
    return { ...buildSettings((key) => cfg.get(key)), preview: { diagnostics: false } };
  }

  /**
   * Starts the server; a missing binary or a failed start is reported with
   * a way to fix it, without waiting for the user (activation ends).
   */
  async start(): Promise<void> {
    if (this.lc) {
      return;
    }
    if (this.starting) {
      return this.starting;
    }
    this.starting = this.startOnce().finally(() => {
      this.starting = undefined;
    });
    return this.starting;
  }

  private async startOnce(): Promise<void> {
    const configured = vscode.workspace.getConfiguration("agentls").get<string>("path") || "agentls";
    const command = findExecutable(configured);
    if (!command) {
      this.failed(missingBinaryMessage(configured));
      return;
    }
    // The server registers its commands itself (executeCommandProvider):
    // the stand-ins of a failed start must be gone first.
    this.downCommands.forEach((d) => d.dispose());
    this.downCommands = [];
    // No `transport`: with TransportKind.stdio the client appends "--stdio"
    // to the arguments, which agentls does not take; stdio is the default.
    const serverOptions: lc.ServerOptions = { command, args: ["serve"] };
    const clientOptions: lc.LanguageClientOptions = {
      documentSelector: [{ scheme: "file" }, { scheme: "untitled" }],
      initializationOptions: this.settings(),
      outputChannel: this.output,
      middleware: {
        executeCommand: (command, args, next) => this.executeMiddleware(command, args, next),
        // The server's hover shows a hunk's diff for plugin-less clients;
        // the decorations' own hovers (preview.ts) already do, with links.
        provideHover: () => undefined,
        // agentls.openReport asks the editor to open the report it wrote
        // (external): the extension shows it in a webview (history.ts),
        // which works in remote windows and code-server too.
        window: {
          showDocument: async (params, next) => {
            if (this.hooks.showDocument(params)) {
              return { success: true };
            }
            // vscode-languageclient passes its own handler, which answers a result.
            return (await next(params, new vscode.CancellationTokenSource().token)) as lc.ShowDocumentResult;
          },
        },
        workspace: {
          configuration: async (params, token, next) => {
            const res = await next(params, token);
            if (!Array.isArray(res)) {
              return res;
            }
            return params.items.map((item, i) => (item.section === "agentls" ? this.settings() : res[i]));
          },
        },
      },
    };
    const client = new lc.LanguageClient("agentls", "agentls", serverOptions, clientOptions);
    client.onNotification(ext.runEvent, (ev) => this.hooks.onRunEvent(ev));
    client.onNotification(ext.proposalsChanged, (p) => this.hooks.onProposalsChanged(p));
    // MCP servers' forms arrive whole (elicit.ts) rather than as
    // window/showMessageRequest, which fits only one choice.
    client.registerFeature({
      fillClientCapabilities: (caps) => {
        caps.experimental = { ...(caps.experimental as object | undefined), ...ext.experimentalCapabilities };
      },
      initialize: () => undefined,
      getState: () => ({ kind: "static" }),
      clear: () => undefined,
    });
    client.registerFeature(new GhostText(client)); // ghost text (ghost.ts)
    client.onRequest(ext.elicit, (params, token) => elicitForm(params, vscodePrompter(token)));
    // The model calling one of this editor's tools (editor_tools.ts).
    client.onRequest(ext.invokeClientTool, (params) => invokeEditorTool(params));
    client.onDidChangeState((e) => {
      if (e.newState === lc.State.Stopped) {
        this.hooks.onStopped("server stopped");
      }
    });
    this.lc = client;
    try {
      await client.start();
    } catch (err) {
      this.lc = undefined;
      await client.dispose().catch(() => undefined); // stops its restart attempts
      this.failed(`agentls: the server (${command}) did not start: ${errorMessage(err)}`);
      return;
    }
    this.recovered();
    this.registerFallbacks(client);
    // Give the agent this editor's tools; an older server without the
    // method answers with an error, which is only logged.
    client.sendRequest(ext.registerTools, { tools: editorToolDefs() }).catch((err: unknown) => {
      this.output.appendLine(`agentls/registerTools: ${String(err)}`);
    });
    // The server ends each run with window/showMessage for plugin-less
    // clients; the extension shows its own notification (runs.ts, with the
    // files and actions), so those are dropped here and the rest shown as
    // vscode-languageclient would.
    client.onNotification(lc.ShowMessageNotification.type, (m) => {
      if (isRunEndMessage(m.message)) {
        this.output.appendLine(m.message);
        return;
      }
      const show =
        m.type === lc.MessageType.Error
          ? vscode.window.showErrorMessage
          : m.type === lc.MessageType.Warning
            ? vscode.window.showWarningMessage
            : vscode.window.showInformationMessage;
      void show(m.message);
    });
    this.hooks.onStarted();
  }

  /** Stops the server (waits for shutdown). */
  async stop(): Promise<void> {
    const client = this.lc;
    this.lc = undefined;
    this.fallbacks.forEach((d) => d.dispose());
    this.fallbacks = [];
    if (client) {
      // stop() throws when the client is not running (it failed to start or
      // is between restarts): there is nothing left to stop then.
      await client.stop().catch((err: unknown) => this.output.appendLine(`stop: ${String(err)}`));
    }
  }

  /** Restarts the server (after agentls.path changed, or on request). */
  async restart(): Promise<void> {
    await this.stop();
    await this.start();
  }

  /** Sends the current settings (workspace/didChangeConfiguration). */
  async sendSettings(): Promise<void> {
    await this.client?.sendNotification(lc.DidChangeConfigurationNotification.type, {
      settings: { agentls: this.settings() },
    });
  }

  /** Sends a request to the running server; rejects when none runs. */
  async request<P, R>(type: lc.RequestType<P, R, void>, params: P): Promise<R> {
    const client = this.client;
    if (!client) {
      throw new Error("the agentls server is not running");
    }
    return client.sendRequest(type, params);
  }

  /**
   * Runs an agentls.* command with `arg` through the same path as a command
   * invoked from a code action or lens (so results are reported the same).
   */
  async execute<R>(command: string, arg: unknown): Promise<R | undefined> {
    return (await this.executeMiddleware(command, [arg], (c, a) => this.sendExecute(c, a))) as R | undefined;
  }

  private sendExecute(command: string, args: unknown[]): Promise<unknown> {
    return this.request(lc.ExecuteCommandRequest.type, { command, arguments: args });
  }

  private async executeMiddleware(command: string, args: unknown[], next: Next): Promise<unknown> {
    if (command === ext.Commands.run && (args.length === 0 || args[0] == null)) {
      const runArgs = await this.hooks.promptRun();
      if (!runArgs) {
        return undefined;
      }
      args = [runArgs];
    } else if (command === ext.Commands.cancel && (args.length === 0 || args[0] == null)) {
      const runId = await this.hooks.pickRun();
      if (!runId) {
        return undefined;
      }
      args = [{ runId } satisfies ext.CancelArgs];
    } else if (command === ext.Commands.approvePlan && !planRunOfArg(args[0])) {
      // The palette (no argument) or a title button of another file: which plan?
      const runId = await this.hooks.pickPlan();
      if (!runId) {
        return undefined;
      }
      args = [{ runId } satisfies ext.ApprovePlanArgs];
    } else if (command === ext.Commands.approvePlan) {
      // A plan document's title button passes the document.
      args = [{ runId: planRunOfArg(args[0]) } satisfies ext.ApprovePlanArgs];
    } else if (command === ext.Commands.remember) {
      const rememberArgs = argsFromInvocation(args) ?? (await this.hooks.promptRemember());
      if (!rememberArgs) {
        return undefined;
      }
      args = [rememberArgs];
    }
    if (command === ext.Commands.run && args[0] && typeof args[0] === "object") {
      args = [this.hooks.prepareRun(args[0] as ext.RunArgs), ...args.slice(1)];
    }
    // Not `next`: vscode-languageclient answers a failed command with
    // "Request workspace/executeCommand failed." and hides the server's
    // reason in the output channel. The server's message is what the user
    // needs ("the hunk was already accepted", "no model configured").
    void next;
    let result: unknown;
    try {
      result = await this.sendExecute(command, args);
    } catch (err) {
      const msg = errorMessage(err);
      this.output.appendLine(`${command} failed: ${msg}`);
      // A run that cannot start (no model configured) is already shown by
      // the server (window/showMessage) with the same text.
      if (!(command === ext.Commands.run && (err as { code?: unknown })?.code === runNotStarted)) {
        void vscode.window.showErrorMessage(`agentls: ${msg}`);
      }
      this.hooks.onCommandResult(command, args, undefined);
      return undefined;
    }
    this.hooks.onCommandResult(command, args, result);
    return result;
  }

  // Registers the agentls.* commands the server did not list, so the
  // contributed palette entries always work while the client runs.
  private registerFallbacks(client: lc.LanguageClient): void {
    const listed = client.initializeResult?.capabilities.executeCommandProvider?.commands ?? [];
    for (const command of Object.values(ext.Commands)) {
      if (!listed.includes(command)) {
        this.fallbacks.push(
          vscode.commands.registerCommand(command, (...args: unknown[]) =>
            this.executeMiddleware(command, args, (c, a) => this.sendExecute(c, a)),
          ),
        );
      }
    }
  }

  dispose(): void {
    void this.stop();
    this.downCommands.forEach((d) => d.dispose());
    this.disposables.forEach((d) => d.dispose());
  }
}

