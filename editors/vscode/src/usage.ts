// Tokens and cost of agent runs (docs/protocol.md "Run history and usage"):
// the server sends a runEvent "usage" after every model call and the run's
// totals on its end event. This module adds them up and writes them the
// way the CLI's last line and the Neovim plugin do:
// "3,000 tokens in (1,200 cached) / 150 out · $0.0054". No "vscode"
// import: unit-tested under plain node (src/test/usage.test.ts).
import type { RunEvent, SessionInfo } from "./lsp_ext";

/** A run's (or one call's) figures. */
export interface Usage {
  prompt: number;
  completion: number;
  cached: number;
  /** USD, only when the server prices the model (model.pricing). */
  cost?: number;
  /** Some figures were counted locally: the endpoint reported none. */
  estimated?: boolean;
}

function num(v: unknown): number | undefined {
  return typeof v === "number" && Number.isFinite(v) && v >= 0 ? v : undefined;
}

/** `n` with thousands separators: 1234567 → "1,234,567". */
export function thousands(n: number): string {
  return String(Math.trunc(n)).replace(/\B(?=(\d{3})+(?!\d))/g, ",");
}

/** `n` in few characters, for the status bar: 950, 3.1k, 1.5M. */
export function compact(n: number): string {
  if (n < 1000) {
    return String(Math.trunc(n));
  }
  const [v, unit] = n >= 1e6 ? [n / 1e6, "M"] : [n / 1000, "k"];
  return (v >= 100 ? v.toFixed(0) : v.toFixed(1)).replace(/\.0$/, "") + unit;
}

/** A cost as the CLI and the report show it: "$0.0036". */
export function cost(c: number): string {
  return `$${c.toFixed(4)}`;
}

/** One model call's figures, from a "usage" runEvent. */
export function fromEvent(ev: RunEvent): Usage {
  const u: Usage = { prompt: num(ev.promptTokens) ?? 0, completion: num(ev.completionTokens) ?? 0, cached: num(ev.cachedTokens) ?? 0 };
  const c = num(ev.costUSD);
  if (c !== undefined) u.cost = c;
  if (ev.estimated) u.estimated = true;
  return u;
}

/** `total` plus one call's figures (a new object). */
export function add(total: Usage | undefined, call: Usage): Usage {
  const out: Usage = {
    prompt: (total?.prompt ?? 0) + call.prompt,
    completion: (total?.completion ?? 0) + call.completion,
    cached: (total?.cached ?? 0) + call.cached,
  };
  if (total?.cost !== undefined || call.cost !== undefined) out.cost = (total?.cost ?? 0) + (call.cost ?? 0);
  if (total?.estimated || call.estimated) out.estimated = true;
  return out;
}

/**
 * The run's totals from its end event (usage { promptTokens,
 * completionTokens, cachedTokens? } and costUSD); undefined when the event
 * carries none (the running tally then stands).
 */
export function fromEnd(ev: RunEvent, tally: Usage | undefined): Usage | undefined {
  const t = ev.usage;
  if (!t || (num(t.promptTokens) === undefined && num(t.completionTokens) === undefined)) {
    return undefined;
  }
  const u: Usage = { prompt: num(t.promptTokens) ?? 0, completion: num(t.completionTokens) ?? 0, cached: num(t.cachedTokens) ?? 0 };
  const c = num(ev.costUSD);
  if (c !== undefined) u.cost = c;
  if (tally?.estimated) u.estimated = true;
  return u;
}

/** "3,000 tokens in (1,200 cached) / 150 out · $0.0054". */
export function line(u: Usage): string {
  let s = `${thousands(u.prompt)} tokens in (${thousands(u.cached)} cached) / ${thousands(u.completion)} out`;
  if (u.cost !== undefined) s += ` · ${cost(u.cost)}`;
  if (u.estimated) s += " (estimated)";
  return s;
}

/** For the status bar: "3.1k tok · $0.0054" ("" before any token). */
export function short(u: Usage | undefined): string {
  if (!u || u.prompt + u.completion === 0) {
    return "";
  }
  return `${compact(u.prompt + u.completion)} tok${u.cost !== undefined ? " · " + cost(u.cost) : ""}`;
}

/** A session's total from agentls/sessions: "4,200 tokens · $0.0072 over 2 runs". */
export function sessionLine(s: SessionInfo): string {
  const c = num(s.costUSD);
  return `${thousands(s.tokens ?? 0)} tokens${c !== undefined ? " · " + cost(c) : ""} over ${s.runs} run${s.runs === 1 ? "" : "s"}`;
}
