import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { elicitForm, fields, InputOptions, parse, PickItem, Prompter } from "../elicit";
import type { ElicitParams } from "../lsp_ext";

/** A scripted answer: a label to pick, labels to pick together, text to type, or Esc. */
type Answer = { pick: string } | { pickMany: string[] } | { type: string } | "esc";

/** What a prompt showed. */
interface Shown {
  kind: "pick" | "pickMany" | "input";
  title: string;
  placeHolder?: string;
  labels?: string[];
  descriptions?: (string | undefined)[];
  picked?: string[];
  prompt?: string;
  value?: string;
  /** input only: validate() of the typed text. */
  error?: string;
}

/** A Prompter that answers from a script and records every prompt. */
function scripted(answers: Answer[]): { ui: Prompter; shown: Shown[]; opened: string[]; left: () => number } {
  const shown: Shown[] = [];
  const opened: string[] = [];
  const next = (): Answer => {
    const a = answers.shift();
    if (a === undefined) {
      throw new Error(`no scripted answer left after ${JSON.stringify(shown)}`);
    }
    return a;
  };
  const ui: Prompter = {
    async pick<T>(items: PickItem<T>[], opts: { title: string; placeHolder?: string }) {
      shown.push({ kind: "pick", title: opts.title, placeHolder: opts.placeHolder, labels: items.map((i) => i.label), descriptions: items.map((i) => i.description) });
      const a = next();
      if (a === "esc") return undefined;
      if (!("pick" in a)) throw new Error(`pick answered with ${JSON.stringify(a)}`);
      const it = items.find((i) => i.label === a.pick);
      if (!it) throw new Error(`no item ${a.pick} in ${items.map((i) => i.label).join("|")}`);
      return it;
    },
    async pickMany<T>(items: PickItem<T>[], opts: { title: string; placeHolder?: string }) {
      shown.push({ kind: "pickMany", title: opts.title, placeHolder: opts.placeHolder, labels: items.map((i) => i.label), picked: items.filter((i) => i.picked).map((i) => i.label) });
      const a = next();
      if (a === "esc") return undefined;
      if (!("pickMany" in a)) throw new Error(`pickMany answered with ${JSON.stringify(a)}`);
      return items.filter((i) => a.pickMany.includes(i.label));
    },
    async input(opts: InputOptions) {
      const a = next();
      if (a === "esc") {
        shown.push({ kind: "input", title: opts.title, prompt: opts.prompt, value: opts.value });
        return undefined;
      }
      if (!("type" in a)) throw new Error(`input answered with ${JSON.stringify(a)}`);
      shown.push({ kind: "input", title: opts.title, prompt: opts.prompt, value: opts.value, error: opts.validate(a.type) });
      return a.type;
    },
    async openExternal(url: string) {
      opened.push(url);
    },
  };
  return { ui, shown, opened, left: () => answers.length };
}

const schema = {
  type: "object",
  properties: {
    name: { type: "string", title: "Your name", description: "as on your badge", minLength: 2 },
    age: { type: "integer", title: "Age", minimum: 0, maximum: 150 },
    ratio: { type: "number", maximum: 1, default: 0.5 },
    nick: { type: "string", default: "anon" },
    code: { type: "string", pattern: "^[A-Z]{3}$" },
    subscribe: { type: "boolean", title: "Subscribe", default: true },
    color: { type: "string", title: "Colour", enum: ["red", "green", "blue"], enumNames: ["Red", "Green", "Blue"] },
    size: { type: "string", oneOf: [{ const: "s", title: "Small" }, { const: "l", title: "Large" }] },
    tags: { type: "array", title: "Tags", minItems: 1, items: { anyOf: [{ const: "a", title: "alpha" }, { const: "b", title: "beta" }] }, default: ["b"] },
  },
  required: ["name", "age", "color"],
};

const params = (over: Partial<ElicitParams> = {}): ElicitParams => ({ server: "helper", message: "Who are you?", mode: "form", requestedSchema: schema, ...over });

describe("fields", () => {
  it("keeps the schema's order and reads kinds, titles, required and choices", () => {
    const f = fields(schema);
    assert.deepEqual(f.map((x) => `${x.name}:${x.kind}:${x.required}`), [
      "name:string:true", "age:integer:true", "ratio:number:false", "nick:string:false", "code:string:false",
      "subscribe:boolean:false", "color:enum:true", "size:enum:false", "tags:multi:false",
    ]);
    assert.equal(f[0].title, "Your name");
    assert.equal(f[3].title, "nick");
    assert.deepEqual(f[6].choices, [{ value: "red", label: "Red" }, { value: "green", label: "Green" }, { value: "blue", label: "Blue" }]);
    assert.deepEqual(f[7].choices.map((c) => c.label), ["Small", "Large"]);
    assert.deepEqual(f[8].choices.map((c) => c.value), ["a", "b"]);
    assert.deepEqual(fields(undefined), []);
    assert.deepEqual(fields({ type: "object" }), []);
  });
});

describe("parse", () => {
  const [name, age, ratio, , code] = fields(schema);
  it("checks numbers against type and bounds", () => {
    assert.deepEqual(parse(age, "42"), { value: 42 });
    assert.deepEqual(parse(age, " 7 "), { value: 7 });
    assert.deepEqual(parse(age, "4.5"), { error: "enter a whole number" });
    assert.deepEqual(parse(age, "abc"), { error: "enter a whole number" });
    assert.deepEqual(parse(age, "151"), { error: "must be at most 150" });
    assert.deepEqual(parse(age, "-1"), { error: "must be at least 0" });
    assert.deepEqual(parse(ratio, "0.25"), { value: 0.25 });
    assert.deepEqual(parse(ratio, "Infinity"), { error: "enter a number" });
  });
  it("checks strings against length, pattern and format", () => {
    assert.deepEqual(parse(name, "A"), { error: "at least 2 characters" });
    assert.deepEqual(parse(name, "Åé"), { value: "Åé" });
    assert.deepEqual(parse(code, "abc"), { error: "must match ^[A-Z]{3}$" });
    assert.deepEqual(parse(code, "XYZ"), { value: "XYZ" });
    const [mail] = fields({ properties: { m: { type: "string", format: "email" } } });
    assert.ok("error" in parse(mail, "nobody"));
    assert.deepEqual(parse(mail, "a@b.c"), { value: "a@b.c" });
    const [bad] = fields({ properties: { b: { type: "string", pattern: "([" } } });
    assert.deepEqual(parse(bad, "anything"), { value: "anything" }, "an invalid pattern is left to the server");
  });
});

describe("elicitForm", () => {
  it("asks every field and returns exactly the answers, leaving cleared optional fields to their defaults", async () => {
    const s = scripted([
      { pick: "Answer (9 fields)" },
      { type: "Ada" },
      { type: "42" },
      { type: "0.5" }, // ratio: the default offered, kept
      { type: "" }, // nick: cleared
      { type: "XYZ" },
      { pick: "No" },
      { pick: "Green" },
      { pick: "Leave empty" },
      { pickMany: ["alpha", "beta"] },
    ]);
    const res = await elicitForm(params(), s.ui);
    assert.deepEqual(res, { action: "accept", content: { name: "Ada", age: 42, ratio: 0.5, code: "XYZ", subscribe: false, color: "green", tags: ["a", "b"] } });
    assert.equal(s.left(), 0);
    assert.deepEqual(s.shown[0], { kind: "pick", title: 'MCP server "helper"', placeHolder: "Who are you?", labels: ["Answer (9 fields)", "Decline"], descriptions: [undefined, undefined] });
    assert.equal(s.shown[1].prompt, "Your name: as on your badge");
    assert.equal(s.shown[1].title, 'MCP server "helper" asks: Who are you?');
    assert.equal(s.shown[3].value, "0.5");
    assert.equal(s.shown[4].value, "anon");
    assert.deepEqual(s.shown[6].labels, ["Yes", "No"]);
    assert.deepEqual(s.shown[6].descriptions, ["default", undefined]);
    assert.deepEqual(s.shown[7].labels, ["Red", "Green", "Blue"], "a required enum offers no empty choice");
    assert.deepEqual(s.shown[8].labels, ["Small", "Large", "Leave empty"]);
    assert.deepEqual(s.shown[9].picked, ["beta"], "the default is checked");
  });

  it("validates typed text, shows why, and asks again when a Prompter lets bad text through", async () => {
    const sc = { properties: { name: { type: "string", title: "Name" }, age: { type: "integer", maximum: 150 } }, required: ["name"] };
    const s = scripted([{ pick: "Answer (2 fields)" }, { type: "" }, { type: "Bo" }, { type: "200" }, { type: "3" }]);
    const res = await elicitForm(params({ requestedSchema: sc }), s.ui);
    assert.deepEqual(res, { action: "accept", content: { name: "Bo", age: 3 } });
    assert.deepEqual(s.shown.slice(1).map((x) => x.error), ["Name is required", undefined, "must be at most 150", undefined]);
  });

  it("answers decline for Decline and cancel for Esc at any prompt", async () => {
    assert.deepEqual(await elicitForm(params(), scripted([{ pick: "Decline" }]).ui), { action: "decline" });
    assert.deepEqual(await elicitForm(params(), scripted(["esc"]).ui), { action: "cancel" });
    assert.deepEqual(await elicitForm(params(), scripted([{ pick: "Answer (9 fields)" }, { type: "Ada" }, "esc"]).ui), { action: "cancel" });
    const multiEsc = scripted([{ pick: "Answer (1 field)" }, "esc"]);
    assert.deepEqual(await elicitForm(params({ requestedSchema: { properties: { t: schema.properties.tags } } }), multiEsc.ui), { action: "cancel" });
  });

  it("asks a multi-select again outside minItems", async () => {
    const s = scripted([{ pick: "Answer (1 field)" }, { pickMany: [] }, { pickMany: ["alpha"] }]);
    const res = await elicitForm(params({ requestedSchema: { properties: { t: schema.properties.tags } } }), s.ui);
    assert.deepEqual(res, { action: "accept", content: { t: ["a"] } });
    assert.equal(s.shown[2].placeHolder, "Tags — choose at least 1");
  });

  it("confirms a form without fields and opens a URL-mode request", async () => {
    const c = scripted([{ pick: "Accept" }]);
    assert.deepEqual(await elicitForm(params({ requestedSchema: { type: "object", properties: {} } }), c.ui), { action: "accept", content: {} });
    const u = scripted([{ pick: "Open https://example.test/auth" }]);
    assert.deepEqual(await elicitForm(params({ mode: "url", url: "https://example.test/auth", requestedSchema: undefined }), u.ui), { action: "accept" });
    assert.deepEqual(u.opened, ["https://example.test/auth"]);
    const d = scripted([{ pick: "Decline" }]);
    assert.deepEqual(await elicitForm(params({ mode: "url", url: "https://example.test/auth" }), d.ui), { action: "decline" });
    assert.deepEqual(d.opened, []);
  });
});
