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
  /** The accepted hunk of another run that made this one moot (it never applies). */
  supersededBy?: string;
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
  /** On a proposal's first hunk: what its language server found ("⚠ introduces 1 problem (line 6: …)"). */
  problems?: string;
}

/** "⚠ introduces N problem(s) (line L: first message)" for a proposal with problems, else undefined. */
export function problemsNote(p: Proposal): string | undefined {
  const ps = p.problems ?? [];
  if (ps.length === 0) {
    return undefined;
  }
  const first = ps[0];
  const msg = (first.message ?? "").split("\n")[0];
  return `⚠ introduces ${ps.length} problem${ps.length === 1 ? "" : "s"} (line ${(first.range?.start?.line ?? 0) + 1}: ${msg})`;
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
export function layout(
  lines: string[],
  h: Hunk,
): Omit<HunkView, "hunkId" | "runId" | "uri" | "conflicted" | "reason" | "lastError" | "supersededBy"> {
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
  if (n === 1 && lines[0] === "" && sr === 0 && sc === 0) {
    // An empty document (a new file the agent proposes): the whole text,
    // below its only line.
    return { ...base, anchor: 0, above: false, added: text === "" ? [] : splitLines(stripNewline(text)) };
  }
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
    const note = problemsNote(p);
    for (const [i, h] of (p.hunks ?? []).entries()) {
      out.push({
        problems: i === 0 ? note : undefined,
        hunkId: h.id,
        runId: p.runId,
        uri: p.uri,
        conflicted: h.status === "conflicted",
        reason: h.reason,
        lastError: h.lastError,
        supersededBy: h.supersededBy,
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

/**
 * Where each pending hunk's new lines sit in the proposed text (the right
 * side of the diff view, which holds the document with every pending hunk
 * applied; conflicted hunks are left out of it): hunkId → rows, inclusive.
 * A hunk that only deletes lines gets the row its lines were removed at,
 * with last < first.
 */
export function proposedRows(views: HunkView[]): Map<string, { first: number; last: number }> {
  const rows = new Map<string, { first: number; last: number }>();
  const pending = views.filter((v) => !v.conflicted);
  const start = (v: HunkView) => (v.first !== undefined ? v.first : v.above ? v.anchor : v.anchor + 1);
  pending.sort((a, b) => start(a) - start(b));
  let delta = 0;
  for (const v of pending) {
    const old = v.first === undefined ? 0 : (v.last ?? v.first) - v.first + 1;
    const first = start(v) + delta;
    rows.set(v.hunkId, { first, last: first + v.added.length - 1 });
    delta += v.added.length - old;
  }
  return rows;
}

/** The pending hunk at `line` of the proposed text (see proposedRows). */
export function hunkAtProposed(views: HunkView[], line: number): HunkView | undefined {
  const rows = proposedRows(views);
  return views.find((v) => {
    const r = rows.get(v.hunkId);
    return r !== undefined && r.first <= line && line <= Math.max(r.last, r.first);
  });
}

/** One row of a hunk's inline block: text shown after document row `row`. */
export interface BlockRow {
  row: number;
  text: string;
  /** The block's first row (it carries the marker). */
  first?: boolean;
  /** Left margin in character widths, so the block's rows line up. */
  margin: number;
}

const nbsp = "\u00a0";

/** The width of `s` on screen, tabs expanded to `tabSize` columns. */
function visualWidth(s: string, tabSize: number): number {
  let w = 0;
  for (const ch of s) {
    w = ch === "\t" ? w + tabSize - (w % tabSize) : w + 1;
  }
  return w;
}

/**
 * A line for CSS generated content, which collapses runs of white space:
 * tabs are expanded and every blank made non-breaking, so indentation shows.
 */
function visibleLine(s: string, tabSize: number, max: number): string {
  let out = "";
  let w = 0;
  for (const ch of s) {
    if (ch === "\t") {
      const n = tabSize - (w % tabSize);
      out += nbsp.repeat(n);
      w += n;
    } else {
      out += ch === " " ? nbsp : ch;
      w++;
    }
  }
  return out.length > max ? out.slice(0, max - 1) + "…" : out;
}

/**
 * Lays a hunk's whole replacement out as a block beside the document: new
 * line k shows after document row start+k, all rows starting at one
 * column right of the widest of those rows, so the new lines read as a
 * block next to the old ones (VS Code decorations cannot add lines). The
 * first row carries the marker (⟶ replaces, ⤒ inserts above, ⤓ inserts
 * below); a hunk that only deletes shows "⟶ delete". New lines that would
 * fall past the document's end are joined onto its last row.
 */
export function blockRows(v: HunkView, lines: string[], tabSize = 4, max = 120): BlockRow[] {
  const marker = v.above ? "⤒ " : v.first === undefined ? "⤓ " : "⟶ ";
  const start = v.first ?? v.anchor;
  const lastRow = Math.max(lines.length - 1, 0);
  if (v.added.length === 0) {
    return [{ row: start, text: marker + "delete", margin: 2, first: true }];
  }
  const texts = v.added.map((l) => visibleLine(l, tabSize, max));
  const rows: { row: number; text: string }[] = [];
  texts.forEach((t, k) => {
    const row = Math.min(start + k, lastRow);
    if (rows.length > 0 && rows[rows.length - 1].row === row) {
      rows[rows.length - 1].text += " ⏎ " + t;
    } else {
      rows.push({ row, text: t });
    }
  });
  rows[0].text = marker + rows[0].text;
  for (let i = 1; i < rows.length; i++) {
    rows[i].text = nbsp + nbsp + rows[i].text; // under the first row's text, past its marker
  }
  const column = Math.max(...rows.map((r) => visualWidth(lines[r.row] ?? "", tabSize))) + 3;
  return rows.map((r, i) => ({ ...r, first: i === 0, margin: column - visualWidth(lines[r.row] ?? "", tabSize) }));
}

/** One line of the inline review document (see inlineLayout). */
export interface InlineRow {
  /** "same": a line of the document no hunk touches; "old": a line a hunk replaces; "new": a line a hunk produces. */
  kind: "same" | "old" | "new";
  text: string;
  /** The hunk an "old" or "new" line belongs to. */
  hunkId?: string;
}

/** The inline review document of a file: its rows, and where each hunk's block starts. */
export interface InlineLayout {
  rows: InlineRow[];
  /** hunkId → the row its block (old lines, then new lines) starts at. */
  starts: Map<string, number>;
}

/**
 * Lays the document out as the inline review document shows it: every
 * line of the document in order, and under the lines each hunk replaces,
 * the lines it produces, as whole lines (VS Code decorations cannot add
 * lines to an editor; a read-only document of its own can). A pure
 * insertion's lines sit before the line they go before. When hunks of
 * two runs touch the same lines, the old lines show once, under the
 * first, and each hunk's new lines follow in turn, so the two blocks stay
 * apart. A superseded hunk (another run's accepted change already made
 * it) shows no new lines: they would read as the same block twice.
 */
export function inlineLayout(lines: string[], views: HunkView[]): InlineLayout {
  const start = (v: HunkView) => (v.first !== undefined ? v.first : v.above ? v.anchor : Math.min(v.anchor + 1, lines.length));
  const end = (v: HunkView) => (v.first !== undefined ? (v.last ?? v.first) + 1 : start(v));
  const sorted = [...views].sort((a, b) => start(a) - start(b) || end(a) - end(b));
  const rows: InlineRow[] = [];
  const starts = new Map<string, number>();
  let row = 0;
  for (const v of sorted) {
    const s = start(v);
    const e = end(v);
    for (; row < s; row++) {
      rows.push({ kind: "same", text: lines[row] });
    }
    starts.set(v.hunkId, rows.length);
    for (; row < e; row++) {
      rows.push({ kind: "old", text: lines[row], hunkId: v.hunkId });
    }
    if (!v.supersededBy) {
      for (const t of v.added) {
        rows.push({ kind: "new", text: t, hunkId: v.hunkId });
      }
    }
    if (rows.length === starts.get(v.hunkId)) {
      // Nothing of its own to show (a superseded insertion): a marker row.
      rows.push({ kind: "new", text: "", hunkId: v.hunkId });
    }
  }
  for (; row < lines.length; row++) {
    rows.push({ kind: "same", text: lines[row] });
  }
  return { rows, starts };
}

/** The hunk whose block holds `row` of the inline review document. */
export function hunkAtInline(layout: InlineLayout, views: HunkView[], row: number): HunkView | undefined {
  const id = layout.rows[row]?.hunkId;
  return id === undefined ? undefined : views.find((v) => v.hunkId === id);
}

/**
 * Where a pure insertion's lines show as a block of whole lines (a comment
 * thread's zone, which VS Code draws between two lines): after document
 * row `row`, i.e. exactly where the lines go. undefined when the hunk
 * replaces lines (its block stands beside them, blockRows), adds nothing,
 * is superseded, or goes above the first line (no row to hang it from).
 */
export function insertionRow(v: HunkView): number | undefined {
  if (v.first !== undefined || v.supersededBy || v.added.length === 0) {
    return undefined;
  }
  if (v.above) {
    return v.anchor > 0 ? v.anchor - 1 : undefined;
  }
  return v.anchor;
}

/** The Markdown of an insertion's block: its lines, fenced, in the file's language. */
export function insertionMarkdown(v: HunkView, languageId = ""): string {
  const fence = v.added.some((l) => l.includes("```")) ? "~~~~" : "```";
  return `${fence}${languageId}\n${v.added.join("\n")}\n${fence}`;
}

/**
 * Places several hunks' blocks that share rows side by side, each whole:
 * a later block starts 3 columns right of where the earlier ones end on
 * any of its rows. Decorations on one row follow each other, so a later
 * block's margin counts from the end of the earlier block's text on that
 * row (or from the line's end where no earlier block is).
 */
export function stackBlocks(blocks: BlockRow[][], lines: string[], tabSize = 4): BlockRow[][] {
  const ends = new Map<number, number>(); // row → visual column where its last block ends
  return blocks.map((rows) => {
    const startOf = (r: BlockRow) => visualWidth(lines[r.row] ?? "", tabSize) + r.margin;
    let start = Math.max(...rows.map(startOf));
    for (const r of rows) {
      const end = ends.get(r.row);
      if (end !== undefined) start = Math.max(start, end + 3);
    }
    return rows.map((r) => {
      const from = ends.get(r.row) ?? visualWidth(lines[r.row] ?? "", tabSize);
      ends.set(r.row, start + [...r.text].length);
      return { ...r, margin: start - from };
    });
  });
}
