// Pure logic of the proposed-files list (files.ts): the files with
// proposals, from agentls/proposals, and how each is described. No
// "vscode" import: unit-tested under plain node (src/test/filelist.test.ts).
import type * as ext from "./lsp_ext";

/** One file in the list. */
export interface FileEntry {
  uri: string;
  created: boolean;
  hunks: number;
  conflicted: number;
  runs: string[];
}

/** Groups agentls/proposals' answer by file, in the server's order. */
export function fileEntries(proposals: ext.Proposal[]): FileEntry[] {
  const byUri = new Map<string, FileEntry>();
  for (const p of proposals) {
    let e = byUri.get(p.uri);
    if (!e) {
      e = { uri: p.uri, created: false, hunks: 0, conflicted: 0, runs: [] };
      byUri.set(p.uri, e);
    }
    e.created = e.created || p.created === true;
    e.hunks += p.hunks.length;
    e.conflicted += p.hunks.filter((h) => h.status === "conflicted").length;
    if (!e.runs.includes(p.runId)) {
      e.runs.push(p.runId);
    }
  }
  return [...byUri.values()];
}

/** The line that describes an entry ("new file · 1 change", "3 changes, 1 conflicted · 2 runs"). */
export function describe(e: FileEntry): string {
  const parts = [e.created ? "new file" : "", `${e.hunks} change${e.hunks === 1 ? "" : "s"}${e.conflicted ? `, ${e.conflicted} conflicted` : ""}`];
  if (e.runs.length > 1) {
    parts.push(`${e.runs.length} runs`);
  }
  return parts.filter((s) => s).join(" · ");
}

