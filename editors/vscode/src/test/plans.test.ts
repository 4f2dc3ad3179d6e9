import { strict as assert } from "node:assert";
import { test } from "node:test";
import { choosePlan, planItem, planRunOfArg, planRunOfPath } from "../plans";

test("a plan's document names its run", () => {
  assert.equal(planRunOfPath("/home/u/.local/state/agentls/answers/3fa9c0.md"), "3fa9c0");
  assert.equal(planRunOfPath("C:\\state\\agentls\\answers\\ab12.md"), "ab12");
  assert.equal(planRunOfPath("/ws/answers/notes.md"), undefined);
  assert.equal(planRunOfPath("/ws/answers/3fa9c0.md.bak"), undefined);
});

test("approvePlan's argument: a runId, a plan document, or nothing (ask)", () => {
  assert.equal(planRunOfArg({ runId: "abc" }), "abc");
  assert.equal(planRunOfArg({ scheme: "file", path: "/s/agentls/answers/0a1b.md", fsPath: "/s/agentls/answers/0a1b.md" }), "0a1b");
  assert.equal(planRunOfArg({ scheme: "file", path: "/ws/main.go" }), undefined);
  assert.equal(planRunOfArg(undefined), undefined);
  assert.equal(planRunOfArg({ runId: "" }), undefined);
  assert.equal(planRunOfArg("abc"), undefined);
});

test("the plan to approve: none, the only one, or the user's pick", () => {
  assert.deepEqual(choosePlan([]), { kind: "none" });
  assert.deepEqual(choosePlan([{ runId: "a1", sessionId: "s", title: "x" }]), { kind: "one", runId: "a1" });
  assert.deepEqual(choosePlan([{ runId: "a1", sessionId: "s", title: "x" }, { runId: "b2", sessionId: "s", title: "y" }]), { kind: "ask" });
});

test("a plan's picker row drops the Markdown heading marks", () => {
  assert.deepEqual(planItem({ runId: "a1", sessionId: "s", title: "## Plan: whisper" }), { label: "Plan: whisper", description: "run a1", runId: "a1" });
  assert.equal(planItem({ runId: "a1", sessionId: "s", title: "##" }).label, "(untitled plan)");
});
