import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ResponseError } from "vscode-languageserver-protocol";
import { errorMessage, isRunEndMessage, missingBinaryMessage } from "../messages";

describe("errorMessage", () => {
  it("is the server's own text for a failed request", () => {
    const err = new ResponseError(-32602, 'no pending change with hunkId "h3" (it was accepted, rejected, or never existed)');
    assert.equal(errorMessage(err), 'no pending change with hunkId "h3" (it was accepted, rejected, or never existed)');
    assert.equal(errorMessage({ message: "plain object" }), "plain object");
    assert.equal(errorMessage("text"), "text");
  });
});

describe("isRunEndMessage", () => {
  it("matches the server's end-of-run messages only", () => {
    assert.ok(isRunEndMessage("Agent run 74f86fe14eac finished: Done; 1 changed file pending review"));
    assert.ok(isRunEndMessage("Agent run r1 failed: model: 401"));
    assert.ok(isRunEndMessage("Agent run r1 cancelled"));
    assert.ok(!isRunEndMessage("agentls cannot start an agent run: no model configured"));
    assert.ok(!isRunEndMessage("Agent run r1 wants to use run_command"));
  });
});

describe("missingBinaryMessage", () => {
  it("gives the README's install (from a clone), never the unpublished module's @latest", () => {
    const m = missingBinaryMessage("agentls");
    assert.match(m, /"agentls"/);
    assert.match(m, /go install \.\/cmd\/agentls/);
    assert.doesNotMatch(m, /@latest/);
    assert.match(m, /agentls\.path/);
    assert.match(m, /GOPATH\)\/bin/);
  });
});
