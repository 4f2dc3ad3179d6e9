// Plans awaiting approval, as the extension offers them: the palette's
// "agentls: Approve Plan" (which plan, when several wait), the Approve
// Plan lens and title button of a plan's document (the server writes each
// plan to answers/<run>.md), and the run list. A plan never depends on the
// end-of-run notification still being on screen. No "vscode" import:
// unit-tested under plain node (src/test/plans.test.ts).
import type { PlanInfo } from "./lsp_ext";

/** The plan run whose document is at `path` (…/answers/<run>.md), else undefined. */
export function planRunOfPath(path: string): string | undefined {
  const m = /[\\/]answers[\\/]([0-9a-f]{1,64})\.md$/.exec(path);
  return m?.[1];
}

/**
 * The run id agentls.approvePlan is invoked with: a plain `{ runId }`
 * argument, or the document a title button passes (a plan's file), else
 * undefined (the caller asks which plan).
 */
export function planRunOfArg(arg: unknown): string | undefined {
  if (!arg || typeof arg !== "object") {
    return undefined;
  }
  const a = arg as { runId?: unknown; path?: unknown; fsPath?: unknown; scheme?: unknown };
  if (typeof a.runId === "string" && a.runId !== "") {
    return a.runId;
  }
  if (typeof a.scheme === "string" && typeof a.path === "string") {
    return planRunOfPath(a.path);
  }
  return undefined;
}

/** What to do with the plans awaiting approval: none, the only one, or ask. */
export function choosePlan(plans: PlanInfo[]): { kind: "none" } | { kind: "one"; runId: string } | { kind: "ask" } {
  if (plans.length === 0) {
    return { kind: "none" };
  }
  if (plans.length === 1) {
    return { kind: "one", runId: plans[0].runId };
  }
  return { kind: "ask" };
}

/** A picker row for a plan: its headline, and its run. */
export function planItem(p: PlanInfo): { label: string; description: string; runId: string } {
  const title = p.title.replace(/^#+\s*/, "").trim() || "(untitled plan)";
  return { label: title, description: `run ${p.runId}`, runId: p.runId };
}
