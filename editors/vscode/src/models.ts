// The model of the next runs (agentls.run's `model`, docs/protocol.md "Run
// history and usage"). The user picks one; it goes with every run that
// starts a session, and with a follow-up only when its session does not
// run on it already (the server keeps a session's model, so follow-ups
// need not send it). No "vscode" import: unit-tested under plain node.
import type { RunArgs } from "./lsp_ext";

/** The picked model and what each session of this window runs on. */
export class ModelChoice {
  /** The picked model; undefined: the session's or the configured one. */
  selected: string | undefined;
  private readonly sessions = new Map<string, string>();

  /** Whether `name` can be a model name (the server refuses control characters and long names). */
  static valid(name: string): boolean {
    return name.trim() !== "" && name.length <= 256 && !/[\u0000-\u001f\u007f]/.test(name);
  }

  /** `args` with `model` set when it is due (a copy; unchanged when not). */
  argsFor(args: RunArgs): RunArgs {
    if (args.model || !this.selected) {
      return args;
    }
    if (args.sessionId && this.sessions.get(args.sessionId) === this.selected) {
      return args;
    }
    return { ...args, model: this.selected };
  }

  /** Notes that a run of `sessionId` was started with `args`. */
  started(sessionId: string | undefined, args: RunArgs | undefined): void {
    if (sessionId && args?.model) {
      this.sessions.set(sessionId, args.model);
    }
  }

  /** The model this window last sent for `sessionId`, if any. */
  sessionModel(sessionId: string | undefined): string | undefined {
    return sessionId ? this.sessions.get(sessionId) : undefined;
  }
}
