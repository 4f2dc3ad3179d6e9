// Which next-edit suggestion the one-key accept takes (nextedit.ts), kept
// free of "vscode" so node's test runner checks it.
import { sameUri } from "./hunks";
import type { Proposal, ReviewArgs } from "./lsp_ext";

/**
 * The agentls.accept arguments that take document `docUri`'s next-edit
 * suggestion whole, wherever it is in the file, or undefined when it has
 * none with a hunk still pending. The server keeps at most one suggestion
 * per file, so its runId and uri name it; a hunk id would take only part
 * of a suggestion that changes several places.
 */
export function nextEditArgs(proposals: readonly Proposal[], docUri: string): ReviewArgs | undefined {
  for (const p of proposals) {
    if (p.source === "next-edit" && sameUri(p.uri, docUri) && p.hunks.some((h) => h.status === "pending")) {
      return { runId: p.runId, uri: p.uri };
    }
  }
  return undefined;
}
