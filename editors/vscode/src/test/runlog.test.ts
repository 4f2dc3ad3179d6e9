import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { RunEvent } from "../lsp_ext";
import { checksFailed, checksSummary, endMessage, planProgress, planText, problemsSummary, RunTracker } from "../runlog";

describe("RunTracker", () => {
  it("turns run events into log lines and run states", () => {
    const t = new RunTracker();
    const log: string[] = [];
    const feed = (ev: Partial<RunEvent>) => log.push(...t.onEvent(ev as RunEvent));
    log.push(...t.started("r1", "add a greeting", "preview"));
    feed({ runId: "r1", seq: 1, kind: "started", text: "add a greeting" });
    feed({ runId: "r1", seq: 2, kind: "text", text: "Let me " });
    feed({ runId: "r1", seq: 3, kind: "text", text: "look.\nReading now" });
    feed({ runId: "r1", seq: 4, kind: "toolCall", tool: "read_file", args: { path: "a.go" } });
    feed({ runId: "r1", seq: 4, kind: "toolCall", tool: "read_file", args: { path: "DUPLICATE" } });
    feed({ runId: "r1", seq: 5, kind: "toolResult", tool: "read_file", summary: "12 lines" });
    feed({ runId: "r1", seq: 6, kind: "toolResult", tool: "edit_file", summary: "old_string not found", isError: true });
    feed({ runId: "r1", seq: 7, kind: "proposal", uri: "file:///w/my%20file.go" });
    assert.equal(t.statusText(), "agent: 1 running");
    feed({ runId: "r2", seq: 1, kind: "started", text: "second" });
    assert.equal(t.statusText(), "agent: 2 running");
    assert.deepEqual(t.running().map((r) => r.id), ["r2", "r1"]);
    feed({ runId: "r1", seq: 8, kind: "finished", text: "Added the greeting.\nDone." });
    feed({ runId: "r2", seq: 2, kind: "failed", error: "model: 401 invalid_api_key" });
    assert.equal(t.statusText(), "");
    assert.deepEqual(log, [
      "[r1] started (preview): add a greeting",
      "  │ Let me look.",
      "  │ Reading now",
      '  → read_file {"path":"a.go"}',
      "  ✓ read_file 12 lines",
      "  ✗ edit_file old_string not found",
      "  ✎ proposal for my file.go",
      "[r2] started: second",
      "[r1] finished",
      "  Added the greeting.",
      "  Done.",
      "[r2] failed: model: 401 invalid_api_key",
    ]);
    assert.deepEqual(t.run("r1"), {
      id: "r1",
      prompt: "add a greeting",
      status: "finished",
      seq: 8,
      tools: 1,
      answer: "Added the greeting.\nDone.",
      files: ["file:///w/my%20file.go"],
    });
    assert.equal(endMessage(t.run("r1")!, 1), "agentls: changes proposed in my file.go: review them.");
    assert.equal(endMessage(t.run("r1")!, 0), "agentls: run finished: Added the greeting. Done.");
    assert.equal(endMessage(t.run("r2")!), "agentls: the run failed: model: 401 invalid_api_key");
    assert.equal(t.run("r2")?.error, "model: 401 invalid_api_key");
  });

  it("does not repeat a streamed answer when the run finishes", () => {
    const t = new RunTracker();
    t.onEvent({ runId: "r", seq: 1, kind: "started" });
    t.onEvent({ runId: "r", seq: 2, kind: "text", text: "All " });
    t.onEvent({ runId: "r", seq: 3, kind: "text", text: "done.\n" });
    assert.deepEqual(t.onEvent({ runId: "r", seq: 4, kind: "finished", text: "All done." }), ["  │ All done.", "[r] finished"]);
  });

  it("does not log a started run twice when its event came first", () => {
    const t = new RunTracker();
    assert.equal(t.onEvent({ runId: "r1", seq: 1, kind: "started", text: "p" }).length, 1);
    assert.deepEqual(t.started("r1", "p"), []);
  });

  it("fails running runs when the server stops, and only those", () => {
    const t = new RunTracker();
    t.onEvent({ runId: "a", seq: 1, kind: "started" });
    t.onEvent({ runId: "b", seq: 1, kind: "started" });
    t.onEvent({ runId: "b", seq: 2, kind: "cancelled" });
    assert.deepEqual(t.serverStopped("server stopped"), ["[a] server stopped"]);
    assert.equal(t.run("a")?.status, "failed");
    assert.equal(t.run("b")?.status, "cancelled");
  });

  it("ignores malformed events", () => {
    const t = new RunTracker();
    assert.deepEqual(t.onEvent(undefined as unknown as RunEvent), []);
    assert.deepEqual(t.onEvent({ seq: 1 } as unknown as RunEvent), []);
    assert.equal(t.statusText(), "");
  });

  it("shows the plan and sub-agent steps", () => {
    const t = new RunTracker();
    const log: string[] = [];
    const feed = (ev: Partial<RunEvent>) => log.push(...t.onEvent(ev as RunEvent));
    feed({ runId: "r1", seq: 1, kind: "started", text: "long task" });
    feed({
      runId: "r1", seq: 2, kind: "todo", todos: [
        { content: "read the code", status: "completed" },
        { content: "update the tests", status: "in_progress" },
        { content: "run vet", status: "pending" },
      ],
    });
    assert.equal(t.statusText(), "agent: 1 running · 2/3 · update the tests");
    feed({ runId: "s1", seq: 1, kind: "started", parentRunId: "r1", summary: "find callers" });
    feed({ runId: "s1", seq: 2, kind: "text", parentRunId: "r1", text: "hidden" });
    feed({ runId: "s1", seq: 3, kind: "toolCall", parentRunId: "r1", tool: "grep", args: { pattern: "Foo" } });
    feed({ runId: "s1", seq: 4, kind: "finished", parentRunId: "r1", text: "3 callers" });
    assert.equal(t.running().length, 1, "a sub-agent is not a run");
    assert.deepEqual(log, [
      "[r1] started: long task",
      "  ☰ plan 2/3 · update the tests",
      "    [x] read the code",
      "    [~] update the tests",
      "    [ ] run vet",
      "    ⤷ [s1] sub-agent: find callers",
      '    ⤷ [s1] → grep {"pattern":"Foo"}',
      "    ⤷ [s1] finished",
    ]);
    assert.equal(planProgress([]), "");
    assert.equal(planProgress([{ content: "a", status: "completed" }]), "1/1 done");
  });

  it("knows a plan run and says its plan is ready", () => {
    const t = new RunTracker();
    t.onEvent({ runId: "p1", seq: 1, kind: "started", mode: "plan", text: "plan it" } as RunEvent);
    t.onEvent({ runId: "p1", seq: 2, kind: "finished", text: "1. change a.go\n2. test" } as RunEvent);
    const r = t.run("p1")!;
    assert.equal(r.mode, "plan");
    assert.equal(endMessage(r, 0), "agentls: plan ready: 1. change a.go 2. test (Show Plan shows it whole)");
    t.onEvent({ runId: "p2", seq: 1, kind: "started", mode: "plan", text: "plan it" } as RunEvent);
    t.onEvent({ runId: "p2", seq: 2, kind: "finished", text: "## Plan\n\n1. change a.go\n2. test" } as RunEvent);
    assert.equal(endMessage(t.run("p2")!, 0), "agentls: plan ready: 1. change a.go 2. test (Show Plan shows it whole)");
    assert.equal(planText("Plan:\n### Add Div\nthen test"), "Add Div\nthen test");
  });
});

describe("usage", () => {
  it("logs each model call's tokens and the run's totals, and keeps them on the run", () => {
    const t = new RunTracker();
    const log: string[] = [];
    const feed = (ev: Partial<RunEvent>) => log.push(...t.onEvent(ev as RunEvent));
    feed({ runId: "r", seq: 1, kind: "started", text: "shout" });
    feed({ runId: "r", seq: 2, kind: "usage", turn: 1, promptTokens: 1000, cachedTokens: 400, completionTokens: 50, costUSD: 0.0018 });
    feed({ runId: "r", seq: 3, kind: "toolCall", tool: "read_file", args: { path: "a.go" } });
    // A sub-agent's calls count in the parent's tokens, without a line.
    feed({ runId: "s", seq: 1, kind: "usage", parentRunId: "r", turn: 1, promptTokens: 500, completionTokens: 10, costUSD: 0.001 });
    assert.deepEqual(t.run("r")?.usage, { prompt: 1500, completion: 60, cached: 400, cost: 0.0028 });
    feed({ runId: "r", seq: 4, kind: "text", text: "Done." });
    feed({ runId: "r", seq: 5, kind: "usage", turn: 2, promptTokens: 2000, cachedTokens: 800, completionTokens: 100, costUSD: 0.0036 });
    feed({
      runId: "r", seq: 6, kind: "finished", text: "Done.", costUSD: 0.0064,
      usage: { promptTokens: 3500, completionTokens: 160, totalTokens: 3660, cachedTokens: 1200 },
    });
    assert.deepEqual(log, [
      "[r] started: shout",
      "  Σ turn 1: 1,000 tokens in (400 cached) / 50 out · $0.0018",
      '  → read_file {"path":"a.go"}',
      "  │ Done.",
      "  Σ turn 2: 2,000 tokens in (800 cached) / 100 out · $0.0036",
      "[r] finished", // the streamed answer is not repeated after its usage line
      "  ↳ 3,500 tokens in (1,200 cached) / 160 out · $0.0064",
    ]);
    assert.deepEqual(t.run("r")?.usage, { prompt: 3500, completion: 160, cached: 1200, cost: 0.0064 });
    assert.deepEqual(t.all().map((r) => r.id), ["r"], "a sub-agent is not a run");
  });

  it("notes an apply-mode change that landed", () => {
    const t = new RunTracker();
    t.onEvent({ runId: "a", seq: 1, kind: "started", mode: "apply" });
    t.onEvent({ runId: "a", seq: 2, kind: "proposal", uri: "file:///w/a.go", applied: true });
    assert.equal(t.run("a")?.applied, true);
  });
});

describe("checks", () => {
  it("logs each check with its output and says how the checks ended", () => {
    const t = new RunTracker();
    const log: string[] = [];
    const feed = (ev: Partial<RunEvent>) => log.push(...t.onEvent(ev as RunEvent));
    feed({ runId: "r", seq: 1, kind: "started", text: "add Sub" });
    feed({ runId: "r", seq: 2, kind: "proposal", uri: "file:///w/calc.go" });
    feed({ runId: "r", seq: 3, kind: "check", name: "test", passed: false, exitCode: 1, seconds: 2.34, output: "--- FAIL: TestSub\n    calc_test.go:7: Sub(5, 3) = 8, want 2\nFAIL\n" });
    feed({ runId: "r", seq: 4, kind: "check", name: "lint", passed: false, exitCode: -1, seconds: 300, output: "[killed after 5m0s]\n" });
    feed({ runId: "r", seq: 5, kind: "check", name: "test", passed: true, exitCode: 0, seconds: 1.5, output: "a\nb\nc\nok  example.com/calc 0.01s\n" });
    feed({ runId: "r", seq: 6, kind: "finished", text: "Fixed.", checks: [{ name: "test", passed: true }, { name: "lint", passed: false }] });
    assert.deepEqual(log, [
      "[r] started: add Sub",
      "  ✎ proposal for calc.go",
      "  ✗ check test failed: exit code 1 (2.3s)",
      "    │ --- FAIL: TestSub",
      "    │     calc_test.go:7: Sub(5, 3) = 8, want 2",
      "    │ FAIL",
      "  ✗ check lint failed (300.0s)",
      "    │ [killed after 5m0s]",
      "  ✓ check test passed (1.5s)",
      "    │ b",
      "    │ c",
      "    │ ok  example.com/calc 0.01s",
      "[r] finished · checks failed: lint",
      "  Fixed.",
    ]);
    const r = t.run("r")!;
    assert.equal(checksFailed(r), true);
    assert.equal(endMessage(r, 1), "agentls: changes proposed in calc.go: review them; checks failed: lint.");
    assert.equal(endMessage(r, 0), "agentls: run finished: Fixed; checks failed: lint.");
  });

  it("says the checks passed", () => {
    const t = new RunTracker();
    t.onEvent({ runId: "r", seq: 1, kind: "started" } as RunEvent);
    assert.deepEqual(t.onEvent({ runId: "r", seq: 2, kind: "finished", text: "Done", checks: [{ name: "test", passed: true }, { name: "lint", passed: true }] } as RunEvent), [
      "[r] finished · checks passed (test, lint)",
      "  Done",
    ]);
    assert.equal(checksFailed(t.run("r")!), false);
    assert.equal(endMessage(t.run("r")!), "agentls: run finished: Done; checks passed (test, lint).");
    assert.equal(checksSummary(undefined), "");
  });

  it("says a check could not run, apart from failures", () => {
    const t = new RunTracker();
    const log: string[] = [];
    const feed = (ev: Partial<RunEvent>) => log.push(...t.onEvent(ev as RunEvent));
    feed({ runId: "r", seq: 1, kind: "started" });
    feed({ runId: "r", seq: 2, kind: "check", name: "test", passed: false, notRun: true, exitCode: 127, seconds: 0, output: "could not run: sh: 1: go: not found\nNot installed, or not on the PATH the check ran with (PATH=/usr/bin)\n" });
    feed({ runId: "r", seq: 3, kind: "finished", text: "Done", checks: [{ name: "lint", passed: true }, { name: "test", passed: false, notRun: true }] });
    assert.deepEqual(log, [
      "[r] started",
      "  ⚠ check test could not run: sh: 1: go: not found",
      "    │ Not installed, or not on the PATH the check ran with (PATH=/usr/bin)",
      "[r] finished · checks passed (lint); could not run: test",
      "  Done",
    ]);
    assert.equal(checksFailed(t.run("r")!), true);
    assert.equal(endMessage(t.run("r")!), "agentls: run finished: Done; checks passed (lint); could not run: test.");
  });

  it("logs the problems a change introduced and says how many the run left", () => {
    const t = new RunTracker();
    const log: string[] = [];
    const feed = (ev: Partial<RunEvent>) => log.push(...t.onEvent(ev as RunEvent));
    const item = (line: number, message: string) => ({ range: { start: { line, character: 1 }, end: { line, character: 5 } }, severity: 1, message });
    feed({ runId: "r", seq: 1, kind: "started", text: "use x" });
    feed({ runId: "r", seq: 2, kind: "proposal", uri: "file:///w/main.go" });
    feed({ runId: "r", seq: 3, kind: "problems", uri: "file:///w/main.go", introduced: 2, outstanding: 2, items: [item(5, "undefined: x"), item(7, "undefined: y")] });
    feed({ runId: "r", seq: 4, kind: "problems", uri: "file:///w/main.go", introduced: 0, outstanding: 2, items: [] });
    // util.go never had a problem: nothing to say of it; calc.go's are fixed.
    feed({ runId: "r", seq: 5, kind: "problems", uri: "file:///w/util.go", introduced: 0, outstanding: 0, items: [] });
    feed({ runId: "r", seq: 6, kind: "problems", uri: "file:///w/calc.go", introduced: 1, outstanding: 1, items: [item(2, "undefined: z")] });
    feed({ runId: "r", seq: 7, kind: "problems", uri: "file:///w/calc.go", introduced: 0, outstanding: 0, items: [] });
    feed({ runId: "r", seq: 8, kind: "finished", text: "Done.", problems: 2 });
    assert.deepEqual(log, [
      "[r] started: use x",
      "  ✎ proposal for main.go",
      "  ⚠ main.go introduces 2 problems",
      "    main.go:6: undefined: x",
      "    main.go:8: undefined: y",
      "  ⚠ calc.go introduces 1 problem",
      "    calc.go:3: undefined: z",
      "  ✓ calc.go: no problems left",
      "[r] finished · introduces 2 problems",
      "  Done.",
    ]);
    assert.equal(endMessage(t.run("r")!, 1), "agentls: changes proposed in main.go: review them; introduces 2 problems.");
    assert.equal(problemsSummary(1), "introduces 1 problem");
    assert.equal(problemsSummary(0), "");
    assert.equal(problemsSummary(undefined), "");
  });
});
