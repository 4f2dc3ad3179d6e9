import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { RunEvent } from "../lsp_ext";
import * as usage from "../usage";

describe("usage", () => {
  it("formats numbers and costs as the CLI does", () => {
    assert.equal(usage.thousands(0), "0");
    assert.equal(usage.thousands(999), "999");
    assert.equal(usage.thousands(1000), "1,000");
    assert.equal(usage.thousands(1234567), "1,234,567");
    assert.deepEqual([950, 1000, 1050, 3150, 99999, 123456, 2500000].map(usage.compact), ["950", "1k", "1.1k", "3.1k", "100k", "123k", "2.5M"]);
    assert.equal(usage.cost(0.0054), "$0.0054");
    assert.equal(usage.cost(12.5), "$12.5000");
  });

  it("adds up calls, then takes the end event's totals", () => {
    const call = (p: Partial<RunEvent>) => usage.fromEvent({ runId: "r", seq: 1, kind: "usage", ...p } as RunEvent);
    let u = usage.add(undefined, call({ turn: 1, promptTokens: 1000, cachedTokens: 400, completionTokens: 50, costUSD: 0.0018 }));
    u = usage.add(u, call({ turn: 2, promptTokens: 2000, completionTokens: 100, estimated: true }));
    assert.deepEqual(u, { prompt: 3000, completion: 150, cached: 400, cost: 0.0018, estimated: true });
    assert.equal(usage.line(u), "3,000 tokens in (400 cached) / 150 out · $0.0018 (estimated)");
    assert.equal(usage.short(u), "3.1k tok · $0.0018");
    // Garbage is ignored, never negative.
    assert.deepEqual(call({ promptTokens: -5, completionTokens: Number.NaN, costUSD: -1 }), { prompt: 0, completion: 0, cached: 0 });

    const end = { runId: "r", seq: 9, kind: "finished", costUSD: 0.0054, usage: { promptTokens: 3000, completionTokens: 150, totalTokens: 3150, cachedTokens: 1200 } } as RunEvent;
    assert.deepEqual(usage.fromEnd(end, u), { prompt: 3000, completion: 150, cached: 1200, cost: 0.0054, estimated: true });
    assert.equal(usage.fromEnd({ runId: "r", seq: 2, kind: "cancelled" } as RunEvent, u), undefined);
    assert.equal(usage.line({ prompt: 10, completion: 2, cached: 0 }), "10 tokens in (0 cached) / 2 out");
    assert.equal(usage.short(undefined), "");
    assert.equal(usage.short({ prompt: 0, completion: 0, cached: 0 }), "");
  });

  it("writes a session's total", () => {
    const s = { id: "s", title: "t", updated: "", runs: 2, pending: 0, tokens: 4200, costUSD: 0.0072 };
    assert.equal(usage.sessionLine(s), "4,200 tokens · $0.0072 over 2 runs");
    assert.equal(usage.sessionLine({ ...s, runs: 1, costUSD: undefined }), "4,200 tokens over 1 run");
  });
});
