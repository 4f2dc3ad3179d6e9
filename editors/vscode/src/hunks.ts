// Pure logic of the inline diff preview: where each proposed hunk shows in a
// document (which lines it replaces, which lines it produces, where those
// hang), finding the hunk under the cursor, and moving between hunks. No
// "vscode" import: unit-tested under plain node (src/test/hunks.test.ts).
//
// Positions are UTF-16, like JavaScript string indices, so a hunk's
// `character` indexes a line string directly.
import type { Hunk, Proposal } from "./lsp_ext";

/** How one hunk shows in the document. */
export interface HunkView {
  hunkId: string;
  runId: string;
  /** The proposal's URI as the server sent it (use it in accept/reject). */
  uri: string;
  conflicted: boolean;
  /** Why the hunk is conflicted, when the server says. */
  reason?: string;
  /** Why the last accept of the hunk failed, if it did. */
  lastError?: string;
  /** First replaced line (0-based); undefined for a pure insertion of whole lines. */
  first?: number;
  /** Last replaced line (inclusive). */
  last?: number;
  /** The line the added lines hang from. */
  anchor: number;
  /** Whether the added lines go above the anchor (pure insertions) rather than below. */
  above: boolean;
  /** The lines the hunk produces in place of first..last. */
  added: string[];
  oldText: string;
  newText: string;
}

function splitLines(text: string): string[] {
  return text.split(/\r?\n/);
}

function stripNewline(text: string): string {
  return text.replace(/\r?\n$/, "");
}

/**
 * Lays hunk `h` out over a document holding `lines` (without line endings).
 * Mirrors the Neovim plugin's preview.layout so both editors show the same
 * thing: whole-line replacements show the new lines under the old ones,
 * intra-line edits show the whole resulting line, insertions at a line start
 * show above that line, insertions past the end below the last line.
 */
export function layout(lines: string[], h: Hunk): Omit<HunkView, "hunkId" | "runId" | "uri" | "conflicted" | "reason" | "lastError"> {
  const n = lines.length;
  const s = h.range.start;
  const e = h.range.end;
  const text = h.newText ?? "";
  const col = (row: number, ch: number) => (row < n ? Math.max(0, Math.min(ch, lines[row].length)) : 0);
  const sr = Math.min(s.line, n);
  const er = Math.min(e.line, n);
  const sc = col(sr, s.character);
  const ec = col(er, e.character);
  const base = { oldText: h.oldText ?? "", newText: text };
  if (sr === n || (sr === er && sc === ec && sc === 0 && /\n$/.test(text))) {
    const added = splitLines(stripNewline(text));
    if (sr === n) {
      return { ...base, anchor: Math.max(n - 1, 0), above: false, added };
    }
    return { ...base, anchor: sr, above: true, added };
  }
  let last = er;
  if (er === n || (ec === 0 && er > sr)) {
    last = er - 1; // the range ends at a line start: that line is untouched
  }
  let block = lines[sr].slice(0, sc) + text;
  if (last === er) {
    block += lines[er].slice(ec);
  }
  let added: string[];
  if (last !== er) {
    added = block === "" ? [] : splitLines(stripNewline(block));
  } else {
    added = splitLines(block);
  }
  return { ...base, first: sr, last, anchor: last, above: false, added };
}

/** Whether the server's `uri` names the document whose URI string is `docUri`. */
export function sameUri(uri: string, docUri: string): boolean {
  if (uri === docUri) {
    return true;
  }
  try {
    return decodeURIComponent(uri) === decodeURIComponent(docUri);
  } catch {
    return false;
  }
}

/** The views of every hunk of `proposals` that belong to document `docUri`. */
export function hunkViews(proposals: Proposal[], docUri: string, lines: string[]): HunkView[] {
  const out: HunkView[] = [];
  for (const p of proposals) {
    if (!sameUri(p.uri, docUri)) {
      continue;
    }
    for (const h of p.hunks ?? []) {
      out.push({
        hunkId: h.id,
        runId: p.runId,
        uri: p.uri,
        conflicted: (h.status ?? p.status) === "conflicted",
        reason: h.reason,
        lastError: h.lastError,
        ...layout(lines, h),
      });
    }
  }
  return out;
}

/** The rows a view occupies: its replaced lines, or its anchor line. */
export function span(v: HunkView): { first: number; last: number } {
  return v.first === undefined ? { first: v.anchor, last: v.anchor } : { first: v.first, last: v.last ?? v.first };
}

/** The hunk whose rows contain `line` (the smallest when several do). */
export function hunkAt(views: HunkView[], line: number): HunkView | undefined {
  let best: HunkView | undefined;
  let bestSize = Infinity;
  for (const v of views) {
    const { first, last } = span(v);
    if (first <= line && line <= last && last - first < bestSize) {
      best = v;
      bestSize = last - first;
    }
  }
  return best;
}

/** The next (or previous) hunk from `line`, wrapping around; undefined if none. */
export function step(views: HunkView[], line: number, forward: boolean): HunkView | undefined {
  const sorted = [...views].sort((a, b) => span(a).first - span(b).first);
  if (sorted.length === 0) {
    return undefined;
  }
  if (forward) {
    return sorted.find((v) => span(v).first > line) ?? sorted[0];
  }
  for (let i = sorted.length - 1; i >= 0; i--) {
    if (span(sorted[i]).first < line) {
      return sorted[i];
    }
  }
  return sorted[sorted.length - 1];
}

/** A one-line summary of a view's added lines, for an after-text decoration. */
export function summary(v: HunkView, max = 80): string {
  if (v.added.length === 0) {
    return "delete";
  }
  let first = v.added[0].trim();
  if (first.length > max) {
    first = first.slice(0, max - 1) + "…";
  }
  const more = v.added.length > 1 ? ` (+${v.added.length - 1} more line${v.added.length > 2 ? "s" : ""})` : "";
  return first + more;
}

/** A fenced unified diff of a view: the replaced lines (from `lines`) against the added ones. */
export function diffMarkdown(v: HunkView, lines: string[]): string {
  const out: string[] = [];
  if (v.first !== undefined) {
    for (let i = v.first; i <= (v.last ?? v.first); i++) {
      out.push("- " + (lines[i] ?? ""));
    }
  }
  for (const l of v.added) {
    out.push("+ " + l);
  }
  const fence = out.some((l) => l.includes("```")) ? "~~~~" : "```";
  return `${fence}diff\n${out.join("\n")}\n${fence}`;
}
