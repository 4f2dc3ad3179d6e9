// Run tracking fed by agentls/runEvent: each run's state, and the lines the
// "agentls runs" output channel shows (the same format as the Neovim
// plugin's run log). No "vscode" import: unit-tested under plain node.
import type { CheckState, RunEvent, Todo } from "./lsp_ext";
import * as usage from "./usage";

/** What the extension knows about one run. */
export interface RunState {
  id: string;
  prompt?: string;
  status: "running" | "finished" | "failed" | "cancelled";
  seq: number;
  tools: number;
  answer?: string;
  error?: string;
  todos?: Todo[];
  /** The run's mode from its started event ("plan": its answer is a plan to approve). */
  mode?: string;
  /** The documents the run proposed changes to (URIs, in first-change order). */
  files?: string[];
  /** The documents the run's changes left problems in, so far (their "no problems left" is news). */
  troubled?: Set<string>;
  /** A Markdown file with the whole answer (a plan, or more than one line), from the finished event. */
  answerUri?: string;
  /** The end event's checks: the latest result of every check that ran. */
  checks?: CheckState[];
  /** The end event's count of problems the run introduced and left (language server). */
  problems?: number;
  /** Tokens (and cost) so far: the sum of its usage events, then its end event's totals. */
  usage?: usage.Usage;
  /** In apply mode: a change of the run landed in the editor (a revert can take it back). */
  applied?: boolean;
}

/** "introduces 2 problems"; "" when there are none (or no language server judged the run). */
export function problemsSummary(n: number | undefined): string {
  return typeof n === "number" && n > 0 ? `introduces ${n} problem${n === 1 ? "" : "s"}` : "";
}

/**
 * A problems event's log lines: the file and each problem its change introduced, or that none are
 * left, once problems had been reported in it (`troubled`, the run's files that had some).
 */
function problemLines(ev: RunEvent, troubled: Set<string>): string[] {
  const name = ev.uri ? basename(ev.uri) : "?";
  const key = ev.uri ?? "?";
  const n = ev.introduced ?? 0;
  if (n === 0) {
    if (ev.outstanding === 0 && troubled.delete(key)) {
      return [`  ✓ ${name}: no problems left`];
    }
    return [];
  }
  troubled.add(key);
  const out = [`  ⚠ ${name} ${problemsSummary(n)}`];
  for (const it of (ev.items ?? []).slice(0, 10)) {
    out.push(`    ${name}:${(it.range?.start?.line ?? 0) + 1}: ${oneLine(it.message, 200)}`);
  }
  if (n > 10) out.push(`      … and ${n - 10} more`);
  return out;
}

/**
 * "checks passed (test, lint)" / "checks failed: test", then "could not run: lint" for checks that
 * neither passed nor failed (their command is not installed); "" when none ran.
 */
export function checksSummary(checks: CheckState[] | undefined): string {
  if (!checks || checks.length === 0) {
    return "";
  }
  const ran = checks.filter((c) => !c.notRun);
  const failed = ran.filter((c) => !c.passed).map((c) => c.name);
  const notRun = checks.filter((c) => c.notRun).map((c) => c.name);
  const parts: string[] = [];
  if (failed.length > 0) {
    parts.push(`checks failed: ${failed.join(", ")}`);
  } else if (ran.length > 0) {
    parts.push(`checks passed (${ran.map((c) => c.name).join(", ")})`);
  }
  if (notRun.length > 0) {
    parts.push(`could not run: ${notRun.join(", ")}`);
  }
  return parts.join("; ");
}

/** Whether the run ended with a check still failing or not run (the user has to act either way). */
export function checksFailed(r: RunState): boolean {
  return (r.checks ?? []).some((c) => !c.passed);
}

/** A check event's log lines: the result, then the output (whole for a failure, the last lines for a pass). */
function checkLines(ev: RunEvent): string[] {
  const secs = typeof ev.seconds === "number" ? ` (${ev.seconds.toFixed(1)}s)` : "";
  const name = ev.name ?? "?";
  const out = (ev.output ?? "").replace(/\n+$/, "");
  let lines = out === "" ? [] : out.split("\n");
  if (ev.notRun) {
    // The output's first line is the reason ("could not run: sh: 1: go: not found"), the rest a hint.
    return [`  ⚠ check ${name} ${lines[0] ?? "could not run"}`, ...lines.slice(1).map((l) => "    │ " + l)];
  }
  const head = ev.passed
    ? `  ✓ check ${name} passed${secs}`
    : ev.exitCode === -1 || ev.exitCode === undefined
      ? `  ✗ check ${name} failed${secs}`
      : `  ✗ check ${name} failed: exit code ${ev.exitCode}${secs}`;
  if (ev.passed) {
    lines = lines.slice(-3);
  }
  return [head, ...lines.map((l) => "    │ " + l)];
}

const todoMarks: Record<string, string> = { pending: "[ ]", in_progress: "[~]", completed: "[x]" };

/**
 * The end-of-run notification's text: what the run did, naming the files
 * it proposed changes to.
 */
export function endMessage(r: RunState, pending?: number): string {
  const extra = [checksSummary(r.checks), problemsSummary(r.problems)].filter((s) => s !== "");
  const msg = endText(r, pending);
  return extra.length > 0 ? `${msg.replace(/\.$/, "")}; ${extra.join("; ")}.` : msg;
}

function endText(r: RunState, pending?: number): string {
  const files = (r.files ?? []).map(basename);
  const named = files.length > 3 ? `${files.slice(0, 3).join(", ")} and ${files.length - 3} more` : files.join(", ");
  switch (r.status) {
    case "failed":
      return `agentls: the run failed: ${oneLine(r.error ?? "unknown error", 300)}`;
    case "cancelled":
      return `agentls: run cancelled${files.length ? `; changes proposed in ${named} are still pending` : ""}.`;
  }
  if (files.length > 0 && pending !== 0) {
    return `agentls: changes proposed in ${named}: review them.`;
  }
  if (r.mode === "plan") {
    return `agentls: plan ready: ${oneLine(planText(r.answer ?? ""), 200)} (Show Plan shows it whole)`;
  }
  const answer = oneLine(r.answer ?? "", 200);
  return `agentls: run finished${answer ? ": " + answer : "."}`;
}

/** The plan's progress text ("2/5 · update the tests"), as $/progress shows it. */
export function planProgress(todos: Todo[] | undefined): string {
  if (!todos || todos.length === 0) {
    return "";
  }
  const done = todos.filter((t) => t.status === "completed").length;
  const current = todos.find((t) => t.status === "in_progress");
  return current ? `${done + 1}/${todos.length} · ${current.content}` : `${done}/${todos.length} done`;
}

/**
 * A plan for a one-line notice: Markdown heading markers go, and a heading or
 * label that only says "Plan" (or "Summary", …) goes entirely, as the server's
 * text.Headline does for its titles.
 */
export function planText(plan: string): string {
  const generic = /^(the |my |proposed |implementation )?(plan|summary|overview|steps|approach|changes|answer)\s*:?$/i;
  return plan
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => {
      const bare = l.replace(/^#+\s*/, "").replace(/^\*\*(.*)\*\*$/, "$1").trim();
      return !((l.startsWith("#") || l.startsWith("**") || bare.endsWith(":")) && generic.test(bare));
    })
    .map((l) => l.replace(/^#+\s*/, ""))
    .join("\n")
    .trim();
}

function oneLine(v: unknown, max: number): string {
  let s = typeof v === "string" ? v : JSON.stringify(v) ?? "";
  s = s.replace(/\s+/g, " ");
  return s.length > max ? s.slice(0, max) + "…" : s;
}

/** The file name of a URI, decoded, for messages. */
export function basename(uri: string): string {
  const i = uri.lastIndexOf("/");
  try {
    return decodeURIComponent(i >= 0 ? uri.slice(i + 1) : uri);
  } catch {
    return uri;
  }
}

/** Tracks runs and turns their events into log lines. */
export class RunTracker {
  private runs = new Map<string, RunState>();
  private order: string[] = [];
  private pendingText = new Map<string, string>();
  private streamed = new Map<string, string>(); // text flushed just before the current event
  private announced = new Set<string>(); // runs whose start (and prompt) is logged
  private usageAfterText = new Set<string>(); // a usage event came right after streamed text

  private get(id: string): RunState {
    let r = this.runs.get(id);
    if (!r) {
      r = { id, status: "running", seq: 0, tools: 0 };
      this.runs.set(id, r);
      this.order.push(id);
    }
    return r;
  }

  /** Records that run `id` was started with `prompt`; returns the line to log. */
  started(id: string, prompt: string, mode?: string): string[] {
    const r = this.get(id);
    r.prompt = prompt;
    if (this.announced.has(id)) {
      return []; // its "started" event came first and was logged
    }
    this.announced.add(id);
    return [`[${id}] started${mode ? ` (${mode})` : ""}: ${oneLine(prompt, 200)}`];
  }

  /**
   * Applies an event and returns the lines to append to the log (possibly
   * none: text is buffered until a line ends or another event arrives, and
   * duplicate or stale events are dropped).
   */
  onEvent(ev: RunEvent): string[] {
    if (!ev || typeof ev.runId !== "string") {
      return [];
    }
    if (typeof ev.parentRunId === "string") {
      if (ev.kind === "usage") {
        // A sub-agent's model calls count in its parent's tokens.
        const parent = this.get(ev.parentRunId);
        parent.usage = usage.add(parent.usage, usage.fromEvent(ev));
        return [];
      }
      return this.subEvent(ev);
    }
    const r = this.get(ev.runId);
    if (typeof ev.seq === "number") {
      if (ev.seq <= r.seq) {
        return [];
      }
      r.seq = ev.seq;
    }
    if (ev.kind === "text") {
      this.pendingText.set(r.id, (this.pendingText.get(r.id) ?? "") + (ev.text ?? ""));
      return [];
    }
    if (ev.kind === "usage") {
      // The figures of the model call whose text just streamed: that text
      // still counts as streamed just before the next event, so the
      // answer is not repeated when the run finishes.
      const out = this.flush(r.id);
      this.usageAfterText.add(r.id);
      const call = usage.fromEvent(ev);
      r.usage = usage.add(r.usage, call);
      out.push(`  Σ turn ${ev.turn ?? "?"}: ${usage.line(call)}`);
      return out;
    }
    if (!this.usageAfterText.delete(r.id)) {
      this.streamed.delete(r.id);
    }
    const out = this.flush(r.id);
    const tag = `[${r.id}]`;
    switch (ev.kind) {
      case "started":
        if (ev.mode) r.mode = ev.mode;
        if (!this.announced.has(r.id)) {
          // The prompt is logged once: here, or by started() when the
          // command's answer came first.
          this.announced.add(r.id);
          out.push(`${tag} started${ev.mode ? ` (${ev.mode})` : ""}${ev.text ? ": " + oneLine(ev.text, 200) : ""}`);
        }
        break;
      case "toolCall":
        if (ev.parentCallId) {
          // A script's own call: indented under it, not counted.
          out.push(`      · ${ev.tool ?? "?"} ${ev.args !== undefined ? oneLine(ev.args, 140) : ""}`);
          break;
        }
        r.tools++;
        out.push(`  → ${ev.tool ?? "?"} ${ev.args !== undefined ? oneLine(ev.args, 160) : ""}`);
        break;
      case "toolResult":
        if (ev.parentCallId) {
          if (ev.isError) out.push(`      ✗ ${ev.tool ?? ""} ${oneLine(ev.summary ?? "", 140)}`);
          break;
        }
        out.push(`  ${ev.isError ? "✗" : "✓"} ${ev.tool ?? ""} ${oneLine(ev.summary ?? ev.error ?? "", 160)}`);
        break;
      case "todo":
        r.todos = ev.todos ?? [];
        out.push(`  ☰ plan ${planProgress(r.todos)}`);
        for (const t of r.todos) {
          out.push(`    ${todoMarks[t.status] ?? "[?]"} ${oneLine(t.content, 160)}`);
        }
        break;
      case "proposal":
        out.push(`  ✎ proposal for ${ev.uri ? basename(ev.uri) : "?"}`);
        if (ev.applied === true) r.applied = true;
        if (ev.uri) {
          r.files = r.files ?? [];
          if (!r.files.includes(ev.uri)) r.files.push(ev.uri);
        }
        break;
      case "check":
        out.push(...checkLines(ev));
        break;
      case "problems":
        r.troubled = r.troubled ?? new Set();
        out.push(...problemLines(ev, r.troubled));
        break;
      case "finished":
        r.status = "finished";
        r.answer = ev.text;
        if (ev.answerUri) r.answerUri = ev.answerUri;
        if (ev.checks) r.checks = ev.checks;
        if (typeof ev.problems === "number") r.problems = ev.problems;
        out.push(
          `${tag} finished` +
            [checksSummary(ev.checks), problemsSummary(ev.problems)]
              .filter((s) => s !== "")
              .map((s) => " · " + s)
              .join(""),
        );
        if ((ev.text ?? "").trim() === (this.streamed.get(r.id) ?? "").trim()) {
          break; // the answer was streamed just before: do not repeat it
        }
        for (const line of (ev.text ?? "").split("\n")) {
          if (line !== "") out.push("  " + line);
        }
        break;
      case "failed":
        r.status = "failed";
        r.error = ev.error ?? ev.summary ?? "unknown error";
        if (ev.checks) r.checks = ev.checks;
        out.push(`${tag} failed: ${oneLine(r.error, 400)}${checksSummary(ev.checks) ? " · " + checksSummary(ev.checks) : ""}`);
        break;
      case "cancelled":
        r.status = "cancelled";
        if (ev.checks) r.checks = ev.checks;
        out.push(`${tag} cancelled${checksSummary(ev.checks) ? " · " + checksSummary(ev.checks) : ""}`);
        break;
      default:
        out.push(`  (${String(ev.kind)}) ${oneLine(ev, 160)}`);
    }
    if (ev.kind === "finished" || ev.kind === "failed" || ev.kind === "cancelled") {
      const totals = usage.fromEnd(ev, r.usage);
      if (totals) r.usage = totals;
      if (r.usage) out.push(`  ↳ ${usage.line(r.usage)}`);
    }
    return out;
  }

  /**
   * A sub-agent's event (task tool): shown indented in the log, never a run
   * of its own; its streamed text is left out (parallel sub-agents would
   * interleave it).
   */
  private subEvent(ev: RunEvent): string[] {
    const tag = `    ⤷ [${ev.runId}]`;
    switch (ev.kind) {
      case "started":
        return [`${tag} sub-agent: ${oneLine(ev.summary ?? ev.text ?? "", 160)}`];
      case "toolCall":
        return [`${tag} → ${ev.tool ?? "?"} ${ev.args !== undefined ? oneLine(ev.args, 140) : ""}`];
      case "finished":
      case "failed":
      case "cancelled":
        return [`${tag} ${ev.kind}`];
    }
    return [];
  }

  private flush(id: string): string[] {
    const text = this.pendingText.get(id);
    if (!text) {
      return [];
    }
    this.pendingText.delete(id);
    this.streamed.set(id, text);
    const lines = text.split("\n").map((l) => "  │ " + l);
    if (lines[lines.length - 1] === "  │ ") {
      lines.pop();
    }
    return lines;
  }

  /** Marks every running run failed (the server went away); returns the log lines. */
  serverStopped(reason: string): string[] {
    const out: string[] = [];
    for (const id of this.order) {
      const r = this.runs.get(id)!;
      if (r.status === "running") {
        r.status = "failed";
        r.error = reason;
        out.push(`[${id}] ${reason}`);
      }
    }
    return out;
  }

  /** The running runs, newest first. */
  running(): RunState[] {
    return this.order
      .map((id) => this.runs.get(id)!)
      .filter((r) => r.status === "running")
      .reverse();
  }

  /** A run by id (a copy), or undefined. */
  run(id: string): RunState | undefined {
    const r = this.runs.get(id);
    return r
      ? {
          ...r,
          ...(r.files ? { files: [...r.files] } : {}),
          ...(r.checks ? { checks: r.checks.map((c) => ({ ...c })) } : {}),
          ...(r.usage ? { usage: { ...r.usage } } : {}),
        }
      : undefined;
  }

  /** Every run (copies), newest first. */
  all(): RunState[] {
    return [...this.order].reverse().map((id) => this.run(id)!);
  }

  /** The status bar text: "" when nothing runs. */
  statusText(): string {
    const running = this.running();
    if (running.length === 0) {
      return "";
    }
    const plan = planProgress(running[0].todos);
    return `agent: ${running.length} running${plan ? " · " + plan : ""}`;
  }
}
