import assert from "node:assert/strict";
import { describe as suite, it } from "node:test";
import { describe, fileEntries } from "../filelist";
import type { Proposal } from "../lsp_ext";

const rng = { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } };

suite("fileEntries", () => {
  it("lists every file once, new files marked, counting hunks, conflicts and runs", () => {
    const ps: Proposal[] = [
      { uri: "file:///w/a.go", runId: "r1", status: "pending", proposedText: "", hunks: [{ id: "r1#1", range: rng, oldText: "", newText: "x\n", status: "pending" }] },
      { uri: "file:///w/test_a.py", runId: "r1", status: "pending", proposedText: "t\n", created: true, hunks: [{ id: "r1#2", range: rng, oldText: "", newText: "t\n", status: "pending" }] },
      {
        uri: "file:///w/a.go",
        runId: "r2",
        status: "conflicted",
        proposedText: "",
        hunks: [
          { id: "r2#3", range: rng, oldText: "", newText: "x\n", status: "conflicted", supersededBy: "r1#1" },
          { id: "r2#4", range: rng, oldText: "", newText: "y\n", status: "pending" },
        ],
      },
    ];
    const es = fileEntries(ps);
    assert.deepEqual(
      es.map((e) => [e.uri, e.created, e.hunks, e.conflicted, e.runs.join(",")]),
      [
        ["file:///w/a.go", false, 3, 1, "r1,r2"],
        ["file:///w/test_a.py", true, 1, 0, "r1"],
      ],
    );
    assert.equal(describe(es[0]), "3 changes, 1 conflicted · 2 runs");
    assert.equal(describe(es[1]), "new file · 1 change");
  });
});
