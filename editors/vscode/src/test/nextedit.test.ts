import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { Hunk, Proposal } from "../lsp_ext";
import { nextEditArgs } from "../nextedit_pick";

const range = { start: { line: 1, character: 0 }, end: { line: 2, character: 0 } };
const hunk = (id: string, status: Hunk["status"] = "pending"): Hunk => ({
  id,
  range,
  oldText: "    return a + 1\n",
  newText: "    return b + 1\n",
  status,
});
const doc = "file:///w/f.py";

describe("next-edit one-key accept", () => {
  it("takes the file's next-edit suggestion whole (runId and uri, no hunk id)", () => {
    const proposals: Proposal[] = [
      { uri: doc, runId: "r1", status: "pending", proposedText: "", hunks: [hunk("h1")] },
      { uri: doc, runId: "next-edit-3", source: "next-edit", status: "pending", proposedText: "", hunks: [hunk("h2"), hunk("h3")] },
    ];
    assert.deepEqual(nextEditArgs(proposals, doc), { runId: "next-edit-3", uri: doc });
  });
  it("matches the server's spelling of the uri", () => {
    const proposals: Proposal[] = [
      { uri: "file:///w/a%20b.py", runId: "next-edit-1", source: "next-edit", status: "pending", proposedText: "", hunks: [hunk("h1")] },
    ];
    assert.deepEqual(nextEditArgs(proposals, "file:///w/a b.py"), { runId: "next-edit-1", uri: "file:///w/a%20b.py" });
  });
  it("has nothing for an agent run's proposal, another file, or no pending hunk", () => {
    assert.equal(nextEditArgs([{ uri: doc, runId: "r1", status: "pending", proposedText: "", hunks: [hunk("h1")] }], doc), undefined);
    assert.equal(
      nextEditArgs([{ uri: "file:///w/g.py", runId: "next-edit-1", source: "next-edit", status: "pending", proposedText: "", hunks: [hunk("h1")] }], doc),
      undefined,
    );
    assert.equal(
      nextEditArgs([{ uri: doc, runId: "next-edit-1", source: "next-edit", status: "conflicted", proposedText: "", hunks: [hunk("h1", "conflicted")] }], doc),
      undefined,
    );
    assert.equal(nextEditArgs([], doc), undefined);
  });
});
