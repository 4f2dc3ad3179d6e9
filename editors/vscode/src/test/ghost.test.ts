import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ghostsOf, inlineParams } from "../ghost_proto";

describe("ghost text wire", () => {
  it("sends LSP 3.18 trigger kinds (Invoked 1, Automatic 2), not VS Code's (0, 1)", () => {
    const pos = { line: 9, character: 4 };
    assert.deepEqual(inlineParams("file:///w/greet.py", pos, false), {
      textDocument: { uri: "file:///w/greet.py" },
      position: { line: 9, character: 4 },
      context: { triggerKind: 2 },
    });
    assert.equal(inlineParams("file:///w/greet.py", pos, true).context.triggerKind, 1);
  });
  it("reads items from a list or an array, drops empty ones, keeps ranges", () => {
    const range = { start: { line: 9, character: 4 }, end: { line: 9, character: 4 } };
    assert.deepEqual(ghostsOf({ items: [{ insertText: 'return "Goodbye, " + name + "!"', range }] }), [
      { text: 'return "Goodbye, " + name + "!"', range },
    ]);
    assert.deepEqual(ghostsOf([{ insertText: "x" }, { insertText: "" }]), [{ text: "x" }]);
    assert.deepEqual(ghostsOf({ items: [{ insertText: { kind: "snippet", value: "y" } }] }), [{ text: "y" }]);
    assert.deepEqual(ghostsOf({ items: [] }), []);
    assert.deepEqual(ghostsOf(null), []);
  });
});
