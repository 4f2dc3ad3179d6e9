import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ModelChoice } from "../models";

describe("ModelChoice", () => {
  it("sends the picked model with new sessions, and with follow-ups only when their session runs on another", () => {
    const m = new ModelChoice();
    assert.deepEqual(m.argsFor({ prompt: "a" }), { prompt: "a" }); // nothing picked
    m.selected = "big";
    const first = m.argsFor({ prompt: "a" });
    assert.deepEqual(first, { prompt: "a", model: "big" });
    m.started("s1", first);
    assert.equal(m.sessionModel("s1"), "big");
    // The session keeps its model on the server: the follow-up sends none.
    assert.deepEqual(m.argsFor({ prompt: "b", sessionId: "s1" }), { prompt: "b", sessionId: "s1" });
    // A session this window knows nothing of (restored) gets the pick.
    assert.deepEqual(m.argsFor({ prompt: "c", sessionId: "s0" }), { prompt: "c", sessionId: "s0", model: "big" });
    // Another pick switches the session.
    m.selected = "small";
    assert.deepEqual(m.argsFor({ prompt: "d", sessionId: "s1" }), { prompt: "d", sessionId: "s1", model: "small" });
    // A model the caller set wins.
    assert.deepEqual(m.argsFor({ prompt: "e", model: "mine" }), { prompt: "e", model: "mine" });
  });

  it("tells model names from garbage", () => {
    assert.ok(ModelChoice.valid("gpt-4.1"));
    assert.ok(!ModelChoice.valid(" "));
    assert.ok(!ModelChoice.valid("a\nb"));
    assert.ok(!ModelChoice.valid("x".repeat(257)));
  });
});
