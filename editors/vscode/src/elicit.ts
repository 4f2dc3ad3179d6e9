// MCP elicitation forms: the server→client request agentls/elicit
// (docs/protocol.md). An MCP server asks the user for input; the extension
// declares capabilities.experimental.agentls.elicitationForms, so the whole
// form arrives here and is asked field by field: quick picks for booleans,
// enums and multi-select arrays, input boxes (validated against the schema)
// for strings and numbers.
//
// The flow: the server's message first, with "Answer" and "Decline"; then
// each field in the schema's order. Esc at any prompt cancels the form.
// Properties left out of an accepted form get the schema's default on the
// server side; the prompts offer the default too.
//
// No "vscode" import: the prompts go through a Prompter (main.ts adapts
// VS Code's quick pick and input box), so this runs under plain node in the
// unit tests.
import type { ElicitParams, ElicitResult } from "./lsp_ext";

/** One entry of a quick pick. */
export interface PickItem<T> {
  label: string;
  description?: string;
  detail?: string;
  /** Initially checked (multi-select). */
  picked?: boolean;
  value: T;
}

/** Options shared by every prompt. */
export interface PromptOptions {
  title: string;
  placeHolder?: string;
}

/** Options of a text prompt. */
export interface InputOptions extends PromptOptions {
  prompt?: string;
  value: string;
  /** An error message for the text, or undefined when it fits. */
  validate(text: string): string | undefined;
}

/** The UI a form is asked through; undefined answers mean Esc. */
export interface Prompter {
  pick<T>(items: PickItem<T>[], opts: PromptOptions): Promise<PickItem<T> | undefined>;
  pickMany<T>(items: PickItem<T>[], opts: PromptOptions): Promise<PickItem<T>[] | undefined>;
  input(opts: InputOptions): Promise<string | undefined>;
  /** Opens an address outside the editor (URL-mode elicitation). */
  openExternal(url: string): Promise<void>;
}

/** A value the form can send. */
export type Value = string | number | boolean | (string | number)[];

/** A field of the form, as the prompts need it. */
export interface Field {
  name: string;
  kind: "string" | "number" | "integer" | "boolean" | "enum" | "multi";
  required: boolean;
  title: string;
  description?: string;
  default?: unknown;
  /** enum and multi: the values with their labels. */
  choices: { value: string | number; label: string }[];
  schema: Record<string, unknown>;
}

type Obj = Record<string, unknown>;

function isObj(v: unknown): v is Obj {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function choicesOf(p: Obj): { value: string | number; label: string }[] {
  if (Array.isArray(p.enum)) {
    const names = Array.isArray(p.enumNames) ? p.enumNames : [];
    return p.enum
      .filter((v): v is string | number => typeof v === "string" || typeof v === "number")
      .map((v, i) => ({ value: v, label: typeof names[i] === "string" ? (names[i] as string) : String(v) }));
  }
  const alts = Array.isArray(p.oneOf) ? p.oneOf : Array.isArray(p.anyOf) ? p.anyOf : [];
  const out: { value: string | number; label: string }[] = [];
  for (const alt of alts) {
    if (isObj(alt) && (typeof alt.const === "string" || typeof alt.const === "number")) {
      out.push({ value: alt.const, label: typeof alt.title === "string" ? alt.title : String(alt.const) });
    }
  }
  return out;
}

/** The form's fields in the schema's order. */
export function fields(schema: unknown): Field[] {
  if (!isObj(schema) || !isObj(schema.properties)) {
    return [];
  }
  const required = new Set(Array.isArray(schema.required) ? schema.required : []);
  return Object.entries(schema.properties).map(([name, raw]) => {
    const p = isObj(raw) ? raw : {};
    let kind: Field["kind"] = "string";
    if (p.type === "boolean") {
      kind = "boolean";
    } else if (p.type === "array") {
      kind = "multi";
    } else if (p.enum !== undefined || p.oneOf !== undefined || p.anyOf !== undefined) {
      kind = "enum";
    } else if (p.type === "number" || p.type === "integer") {
      kind = p.type;
    }
    const choices = kind === "enum" ? choicesOf(p) : kind === "multi" ? choicesOf(isObj(p.items) ? p.items : {}) : [];
    return {
      name,
      kind,
      required: required.has(name),
      title: typeof p.title === "string" && p.title !== "" ? p.title : name,
      description: typeof p.description === "string" && p.description !== "" ? p.description : undefined,
      default: p.default ?? undefined,
      choices,
      schema: p,
    };
  });
}

const formats: Record<string, [RegExp, string]> = {
  email: [/^[^@\s]+@[^@\s]+$/, "an email address"],
  uri: [/^[A-Za-z][A-Za-z0-9+.-]*:\S+$/, "an absolute URI (scheme:…)"],
  date: [/^\d{4}-\d{2}-\d{2}$/, "a date (YYYY-MM-DD)"],
  "date-time": [/^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}/, "a date and time (YYYY-MM-DDTHH:MM:SSZ)"],
};

/**
 * Checks the text typed for a string, number or integer field against its
 * schema: the value to send, or why the text does not fit.
 */
export function parse(f: Field, text: string): { value: string | number } | { error: string } {
  const p = f.schema;
  const num = (k: string) => (typeof p[k] === "number" ? (p[k] as number) : undefined);
  if (f.kind === "number" || f.kind === "integer") {
    const t = text.trim();
    const n = t === "" ? NaN : Number(t);
    if (!Number.isFinite(n)) {
      return { error: f.kind === "integer" ? "enter a whole number" : "enter a number" };
    }
    if (f.kind === "integer" && !Number.isInteger(n)) {
      return { error: "enter a whole number" };
    }
    const min = num("minimum"), max = num("maximum"), xmin = num("exclusiveMinimum"), xmax = num("exclusiveMaximum");
    if (min !== undefined && n < min) return { error: `must be at least ${min}` };
    if (max !== undefined && n > max) return { error: `must be at most ${max}` };
    if (xmin !== undefined && n <= xmin) return { error: `must be more than ${xmin}` };
    if (xmax !== undefined && n >= xmax) return { error: `must be less than ${xmax}` };
    return { value: n };
  }
  const len = [...text].length; // code points, as JSON Schema counts
  const minLength = num("minLength"), maxLength = num("maxLength");
  if (minLength !== undefined && len < minLength) return { error: `at least ${minLength} characters` };
  if (maxLength !== undefined && len > maxLength) return { error: `at most ${maxLength} characters` };
  const fmt = typeof p.format === "string" ? formats[p.format] : undefined;
  if (fmt && !fmt[0].test(text)) {
    return { error: `enter ${fmt[1]}` };
  }
  if (typeof p.pattern === "string") {
    let re: RegExp | undefined;
    try {
      re = new RegExp(p.pattern, "u");
    } catch {
      re = undefined; // left to the MCP server to check
    }
    if (re && !re.test(text)) {
      return { error: `must match ${p.pattern}` };
    }
  }
  return { value: text };
}

const skip = Symbol("skip");

/** One field: its value, undefined to leave it out, or null on Esc. */
async function ask(f: Field, header: string, ui: Prompter): Promise<Value | undefined | null> {
  const opts: PromptOptions = { title: header, placeHolder: f.title + (f.required ? " (required)" : "") + (f.description ? ` — ${f.description}` : "") };
  if (f.kind === "boolean" || f.kind === "enum") {
    const items: PickItem<string | number | boolean | typeof skip>[] =
      f.kind === "boolean"
        ? [
            { label: "Yes", value: true },
            { label: "No", value: false },
          ]
        : f.choices.map((c) => ({ label: c.label, value: c.value }));
    for (const it of items) {
      if (f.default !== undefined && it.value === f.default) {
        it.description = "default";
      }
    }
    if (!f.required && f.default === undefined) {
      items.push({ label: "Leave empty", value: skip });
    }
    const got = await ui.pick(items, opts);
    if (!got) {
      return null;
    }
    return got.value === skip ? undefined : (got.value as Value);
  }
  if (f.kind === "multi") {
    const defaults = Array.isArray(f.default) ? f.default : [];
    const items = f.choices.map((c) => ({ label: c.label, value: c.value, picked: defaults.includes(c.value) }));
    const p = f.schema;
    const minItems = typeof p.minItems === "number" ? p.minItems : f.required ? 1 : 0;
    const maxItems = typeof p.maxItems === "number" ? p.maxItems : Infinity;
    let note = "";
    for (;;) {
      const got = await ui.pickMany(items, { ...opts, placeHolder: opts.placeHolder + note });
      if (!got) {
        return null;
      }
      if (got.length >= minItems && got.length <= maxItems) {
        return got.length === 0 ? undefined : got.map((g) => g.value);
      }
      note = got.length < minItems ? ` — choose at least ${minItems}` : ` — choose at most ${maxItems}`;
      for (const it of items) {
        it.picked = got.includes(it);
      }
    }
  }
  const text = await ui.input({
    ...opts,
    prompt: f.description ? `${f.title}: ${f.description}` : f.title,
    value: f.default === undefined ? "" : String(f.default),
    validate: (t) => {
      if (t === "") {
        return f.required ? `${f.title} is required` : undefined;
      }
      const r = parse(f, t);
      return "error" in r ? r.error : undefined;
    },
  });
  if (text === undefined) {
    return null;
  }
  // The input box validates as the user types; text that gets through a
  // Prompter that does not is asked again.
  if (text === "") {
    return f.required ? ask(f, header, ui) : undefined; // the server applies the default, if any
  }
  const r = parse(f, text);
  if ("error" in r) {
    return ask(f, header, ui);
  }
  return r.value;
}

/** Asks the user for an agentls/elicit request and returns the answer. */
export async function elicitForm(params: ElicitParams, ui: Prompter): Promise<ElicitResult> {
  const header = `MCP server "${params.server}" asks: ${params.message}`;
  const start = async (first: string): Promise<ElicitResult | undefined> => {
    const got = await ui.pick(
      [
        { label: first, value: "accept" },
        { label: "Decline", value: "decline" },
      ],
      { title: `MCP server "${params.server}"`, placeHolder: params.message },
    );
    if (!got) {
      return { action: "cancel" };
    }
    return got.value === "decline" ? { action: "decline" } : undefined;
  };
  if (params.mode === "url") {
    const stop = await start(`Open ${params.url ?? ""}`);
    if (stop) {
      return stop;
    }
    await ui.openExternal(params.url ?? "");
    return { action: "accept" };
  }
  const form = fields(params.requestedSchema);
  const stop = await start(form.length === 0 ? "Accept" : `Answer (${form.length} ${form.length === 1 ? "field" : "fields"})`);
  if (stop) {
    return stop;
  }
  const content: Record<string, Value> = {};
  for (const f of form) {
    const v = await ask(f, header, ui);
    if (v === null) {
      return { action: "cancel" };
    }
    if (v !== undefined) {
      content[f.name] = v;
    }
  }
  return { action: "accept", content };
}
