import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { argsFromInvocation, maxNoteBytes, normalizeNote, noteArgs, rememberMessage, validateNote } from "../remember";

describe("agentls: Remember…", () => {
  it("sends what the user typed, and nothing for a blank or dismissed box", () => {
    assert.deepEqual(noteArgs("  we wrap errors with %w \n"), { note: "we wrap errors with %w" });
    assert.equal(noteArgs(undefined), undefined); // Escape
    assert.equal(noteArgs("   "), undefined);
    assert.equal(noteArgs("- "), undefined); // only a list marker
  });

  it("takes a note the invocation carries, else asks", () => {
    assert.deepEqual(argsFromInvocation(["tests use t.TempDir"]), { note: "tests use t.TempDir" });
    assert.deepEqual(argsFromInvocation([{ note: " x " }]), { note: "x" });
    // The scope goes through: the server answers "user" with the CLI to use.
    assert.deepEqual(argsFromInvocation([{ note: "x", scope: "user" }]), { note: "x", scope: "user" });
    assert.equal(argsFromInvocation([]), undefined); // command palette
    assert.equal(argsFromInvocation([null]), undefined);
    assert.equal(argsFromInvocation([{ note: "" }]), undefined);
    assert.equal(argsFromInvocation([{ runId: "r1" }]), undefined);
  });

  it("bounds the note as the server stores it", () => {
    assert.equal(normalizeNote("- wrap\n  errors\twith %w"), "wrap errors with %w");
    assert.equal(validateNote(""), undefined);
    assert.equal(validateNote("x".repeat(maxNoteBytes)), undefined);
    // Collapsed whitespace does not count against the bound.
    assert.equal(validateNote("x ".repeat(250) + "   \n\n   "), undefined);
    assert.match(validateNote("x".repeat(maxNoteBytes + 1)) ?? "", /501 bytes, more than 500/);
    // Bytes, not characters: 200 × "é" is 400 bytes, 300 × is 600.
    assert.equal(validateNote("é".repeat(200)), undefined);
    assert.match(validateNote("é".repeat(300)) ?? "", /600 bytes/);
  });

  it("says what happened", () => {
    assert.equal(rememberMessage({ runId: "remember-1", uri: "file:///w/AGENTS.md" }), "agentls: proposed for AGENTS.md — review it like any change.");
    assert.equal(rememberMessage({ uri: "file:///w/AGENTS.md", unchanged: true }), "agentls: already remembered: AGENTS.md holds this rule.");
  });
});
