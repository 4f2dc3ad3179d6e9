// agentls: Remember… (docs/memory.md): a rule the user types becomes
// agentls.remember's argument, a proposal on the project's AGENTS.md that
// is reviewed like any change, and the result one message. No "vscode"
// import: unit-tested under plain node (src/test/remember.test.ts).
import type { RememberArgs, RememberResult } from "./lsp_ext";

/** The server's bound on a note (tools.MaxNoteBytes). */
export const maxNoteBytes = 500;

/**
 * The note as the server will store it: whitespace collapsed, a leading
 * list marker dropped (tools.NormalizeNote). The input box checks this
 * form, so the length it reports is the one the server applies.
 */
export function normalizeNote(text: string): string {
  let n = text.split(/\s+/).filter((w) => w !== "").join(" ");
  for (const m of ["- ", "* ", "+ "]) {
    if (n.startsWith(m)) {
      n = n.slice(m.length);
    }
  }
  n = n.trim();
  return n === "-" || n === "*" || n === "+" ? "" : n;
}

/**
 * The input box's validation: why `text` cannot be sent yet, or undefined
 * when it can. Empty input is not an error (Enter on it cancels).
 */
export function validateNote(text: string): string | undefined {
  const n = normalizeNote(text);
  const bytes = Buffer.byteLength(n, "utf8");
  if (bytes > maxNoteBytes) {
    return `${bytes} bytes, more than ${maxNoteBytes}: keep it to one short rule`;
  }
  return undefined;
}

/** agentls.remember's argument for what the user typed; undefined when there is nothing to send. */
export function noteArgs(text: string | undefined): RememberArgs | undefined {
  if (text === undefined || normalizeNote(text) === "") {
    return undefined;
  }
  return { note: text.trim() };
}

/**
 * The argument a command invocation already carries: RememberArgs (a code
 * action, another extension) or a bare note (a keybinding's "args").
 * Undefined: nothing usable, so the user is asked.
 */
export function argsFromInvocation(args: unknown[]): RememberArgs | undefined {
  const a = args[0];
  if (typeof a === "string") {
    return noteArgs(a);
  }
  if (a && typeof a === "object" && typeof (a as RememberArgs).note === "string") {
    const given = a as RememberArgs;
    const out = noteArgs(given.note);
    if (out && given.scope !== undefined) {
      out.scope = given.scope; // the server answers "user" with how to do it instead
    }
    return out;
  }
  return undefined;
}

/** The information message for agentls.remember's result. */
export function rememberMessage(result: RememberResult | undefined): string {
  if (result?.unchanged) {
    return "agentls: already remembered: AGENTS.md holds this rule.";
  }
  return "agentls: proposed for AGENTS.md — review it like any change.";
}
