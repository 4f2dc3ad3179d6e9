import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { diffMarkdown, hunkAt, hunkViews, layout, sameUri, span, step } from "../hunks";
import * as hunks from "../hunks";
import type { Hunk, Proposal } from "../lsp_ext";

const rng = (sl: number, sc: number, el: number, ec: number) => ({
  start: { line: sl, character: sc },
  end: { line: el, character: ec },
});
const hunk = (id: string, r: ReturnType<typeof rng>, newText: string, oldText = ""): Hunk => ({ id, range: r, oldText, newText, status: "pending" });

// The same document and hunks as the Neovim plugin's preview test, so both
// clients are held to one behaviour. VS Code counts the empty line after
// the final newline, hence the trailing "".
const lines = ["package main", "func a() {}", 'x := "😀 emoji" // end', "\tindented", "last", ""];

describe("layout", () => {
  it("shows whole-line replacements under the replaced lines", () => {
    const l = layout(lines, hunk("h1", rng(1, 0, 2, 0), "func a() { return }\nfunc b() {}\n"));
    assert.deepEqual([l.first, l.last, l.anchor, l.above], [1, 1, 1, false]);
    assert.deepEqual(l.added, ["func a() { return }", "func b() {}"]);
  });

  it("maps UTF-16 offsets past an emoji and shows the whole new line", () => {
    // "emoji" starts at UTF-16 offset 9: the emoji is a surrogate pair.
    const l = layout(lines, hunk("h2", rng(2, 9, 2, 14), "EMOJI", "emoji"));
    assert.deepEqual([l.first, l.last], [2, 2]);
    assert.deepEqual(l.added, ['x := "😀 EMOJI" // end']);
  });

  it("puts pure insertions at a line start above that line", () => {
    const l = layout(lines, hunk("h3", rng(3, 0, 3, 0), "// inserted\n// twice\n"));
    assert.equal(l.first, undefined);
    assert.deepEqual([l.anchor, l.above], [3, true]);
    assert.deepEqual(l.added, ["// inserted", "// twice"]);
  });

  it("shows pure deletions with nothing added", () => {
    const l = layout(lines, hunk("h4", rng(4, 0, 5, 0), "", "last\n"));
    assert.deepEqual([l.first, l.last], [4, 4]);
    assert.deepEqual(l.added, []);
  });

  it("keeps a line that becomes empty as an empty added line", () => {
    const l = layout(lines, hunk("h5", rng(3, 0, 3, 9), ""));
    assert.deepEqual([l.first, l.last], [3, 3]);
    assert.deepEqual(l.added, [""]);
  });

  it("puts insertions past the end below the last line", () => {
    const l = layout(["a", "b"], hunk("e", rng(2, 0, 2, 0), "c\n"));
    assert.deepEqual([l.first, l.anchor, l.above], [undefined, 1, false]);
    assert.deepEqual(l.added, ["c"]);
  });

  it("clamps ranges past the end of a line or the document", () => {
    const l = layout(["abc"], hunk("c", rng(0, 1, 0, 99), "X"));
    assert.deepEqual(l.added, ["aX"]);
    const d = layout(["abc", "def"], hunk("d", rng(1, 0, 9, 0), ""));
    assert.deepEqual([d.first, d.last, d.added.length], [1, 1, 0]);
  });

  it("handles CRLF in new text and multi-line intra-line edits", () => {
    const l = layout(["one two", "three"], hunk("m", rng(0, 4, 1, 2), "2\r\nTH"));
    assert.deepEqual([l.first, l.last], [0, 1]);
    assert.deepEqual(l.added, ["one 2", "THree"]);
  });
});

describe("hunkViews and navigation", () => {
  const uri = "file:///w/main.go";
  const proposals: Proposal[] = [
    {
      uri, runId: "r1", status: "pending", proposedText: "",
      hunks: [
        hunk("h1", rng(1, 0, 2, 0), "func a() { return }\n"),
        hunk("h2", rng(2, 9, 2, 14), "EMOJI"),
        hunk("h3", rng(3, 0, 3, 0), "// inserted\n"),
        hunk("h4", rng(4, 0, 5, 0), ""),
      ],
    },
    { uri, runId: "r2", status: "conflicted", proposedText: "", hunks: [{ ...hunk("c1", rng(3, 1, 3, 9), "INDENTED"), status: "conflicted" }] },
    { uri: "file:///w/other.go", runId: "r1", status: "pending", proposedText: "", hunks: [hunk("o1", rng(0, 0, 0, 0), "x\n")] },
  ];
  const views = hunkViews(proposals, uri, lines);

  it("keeps only the document's hunks, with run, uri and conflict state", () => {
    assert.deepEqual(views.map((v) => v.hunkId), ["h1", "h2", "h3", "h4", "c1"]);
    assert.equal(views[4].conflicted, true);
    assert.equal(views[0].conflicted, false);
    assert.equal(views[4].runId, "r2");
    assert.deepEqual(views[4].added, ["\tINDENTED"]);
  });

  it("lets a hunk's own status and reason override the proposal's", () => {
    const own = hunkViews(
      [{ uri, runId: "r3", status: "pending", proposedText: "",
         hunks: [{ ...hunk("x", rng(0, 0, 0, 3), "y"), status: "conflicted", reason: "you edited it" },
                 { ...hunk("z", rng(1, 0, 1, 1), "q"), lastError: "buffer changed" }] }],
      uri, lines);
    assert.deepEqual(own.map((v) => [v.hunkId, v.conflicted, v.reason, v.lastError]),
      [["x", true, "you edited it", undefined], ["z", false, undefined, "buffer changed"]]);
  });

  it("finds the hunk under the cursor", () => {
    assert.deepEqual([0, 1, 2, 3, 4].map((l) => hunkAt(views, l)?.hunkId), [undefined, "h1", "h2", "h3", "h4"]);
  });

  it("prefers the smallest hunk when hunks overlap", () => {
    const big = { ...views[0], hunkId: "big", first: 0, last: 4 };
    assert.equal(hunkAt([big, views[1]], 2)?.hunkId, "h2");
  });

  it("steps forward and back with wrap-around", () => {
    const fwd: number[] = [];
    let line = 0;
    for (let i = 0; i < 5; i++) {
      line = span(step(views, line, true)!).first;
      fwd.push(line);
    }
    assert.deepEqual(fwd, [1, 2, 3, 4, 1]);
    assert.equal(span(step(views, 1, false)!).first, 4);
    assert.equal(span(step(views, 4, false)!).first, 3);
    assert.equal(step([], 0, true), undefined);
  });

  it("matches URIs re-encoded by the server", () => {
    assert.ok(sameUri("file:///w/a%40b.go", "file:///w/a@b.go"));
    assert.ok(sameUri("file:///c%3A/x.go", "file:///c:/x.go"));
    assert.ok(!sameUri("file:///w/a.go", "file:///w/b.go"));
    assert.ok(!sameUri("file:///w/%E0%A4%A", "file:///w/x"));
  });

  it("renders a hunk as a diff", () => {
    assert.equal(diffMarkdown(views[0], lines), "```diff\n- func a() {}\n+ func a() { return }\n```");
    assert.equal(diffMarkdown(views[2], lines), "```diff\n+ // inserted\n```");
  });
});

describe("proposedRows", () => {
  it("places each pending hunk's new lines in the proposed text", () => {
    const lines = ["a", "b", "c", "d", "e"];
    const views = hunks.hunkViews(
      [
        {
          uri: "file:///x",
          runId: "r",
          status: "pending",
          proposedText: "",
          hunks: [
            // b → b1, b2 (one line becomes two)
            { id: "h1", range: { start: { line: 1, character: 0 }, end: { line: 2, character: 0 } }, oldText: "b\n", newText: "b1\nb2\n", status: "pending" },
            // d deleted
            { id: "h2", range: { start: { line: 3, character: 0 }, end: { line: 4, character: 0 } }, oldText: "d\n", newText: "", status: "pending" },
            // x inserted above e
            { id: "h3", range: { start: { line: 4, character: 0 }, end: { line: 4, character: 0 } }, oldText: "", newText: "x\n", status: "pending" },
          ],
        },
      ],
      "file:///x",
      lines,
    );
    const rows = hunks.proposedRows(views);
    // proposed: a, b1, b2, c, x, e
    assert.deepEqual(rows.get("h1"), { first: 1, last: 2 });
    assert.deepEqual(rows.get("h2"), { first: 4, last: 3 });
    assert.deepEqual(rows.get("h3"), { first: 4, last: 4 });
    assert.equal(hunks.hunkAtProposed(views, 2)?.hunkId, "h1");
    assert.equal(hunks.hunkAtProposed(views, 3), undefined);
  });
});

describe("blockRows", () => {
  it("shows every new line of a multi-line hunk as a block beside the old ones", () => {
    const lines = ["func bye() string {", '\treturn "bye"', "}", ""];
    const [v] = hunks.hunkViews(
      [
        {
          uri: "file:///x",
          runId: "r",
          status: "pending",
          proposedText: "",
          hunks: [
            {
              id: "h",
              range: { start: { line: 1, character: 0 }, end: { line: 2, character: 0 } },
              oldText: '\treturn "bye"\n',
              newText: '\t// say goodbye politely\n\treturn "goodbye"\n',
              status: "pending",
            },
          ],
        },
      ],
      "file:///x",
      lines,
    );
    const rows = hunks.blockRows(v, lines, 4);
    const nb = "\u00a0";
    assert.deepEqual(
      rows.map((r) => [r.row, r.text]),
      [
        [1, `⟶ ${nb.repeat(4)}//${nb}say${nb}goodbye${nb}politely`],
        [2, `${nb.repeat(2)}${nb.repeat(4)}return${nb}"goodbye"`],
      ],
    );
    // Both rows start at the same column: 3 past the wider of the two rows.
    const widths = [4 + 'return "bye"'.length, 1];
    assert.deepEqual(
      rows.map((r, i) => r.margin + widths[i]),
      [widths[0] + 3, widths[0] + 3],
    );
  });
  it("marks deletions and joins rows past the end", () => {
    const lines = ["a", "b"];
    const del = hunks.layout(lines, { id: "d", range: rng(1, 0, 2, 0), oldText: "b\n", newText: "", status: "pending" });
    assert.deepEqual(
      hunks.blockRows({ ...del, hunkId: "d", runId: "r", uri: "u", conflicted: false }, lines).map((r) => r.text),
      ["⟶ delete"],
    );
    const long = hunks.layout(lines, { id: "l", range: rng(1, 0, 2, 0), oldText: "b\n", newText: "x\ny\nz\n", status: "pending" });
    assert.deepEqual(
      hunks.blockRows({ ...long, hunkId: "l", runId: "r", uri: "u", conflicted: false }, lines).map((r) => r.text),
      ["⟶ x ⏎ y ⏎ z"],
    );
  });
});

describe("inlineLayout", () => {
  const doc = ["package p", "", "func b() int { return 2 }", "x := 1", ""];
  const view = (id: string, run: string, h: Hunk, extra: Partial<hunks.HunkView> = {}): hunks.HunkView => ({
    hunkId: id,
    runId: run,
    uri: "file:///w/p.go",
    conflicted: false,
    ...layout(doc, h),
    ...extra,
  });

  it("stacks a hunk's new lines under the lines it replaces", () => {
    const v = view("r1#1", "r1", hunk("r1#1", rng(3, 0, 4, 0), "x := 2\ny := 3\n", "x := 1\n"));
    const l = hunks.inlineLayout(doc, [v]);
    assert.deepEqual(
      l.rows.map((r) => [r.kind, r.text]),
      [
        ["same", "package p"],
        ["same", ""],
        ["same", "func b() int { return 2 }"],
        ["old", "x := 1"],
        ["new", "x := 2"],
        ["new", "y := 3"],
        ["same", ""],
      ],
    );
    assert.equal(l.starts.get("r1#1"), 3);
    assert.equal(hunks.hunkAtInline(l, [v], 5)?.hunkId, "r1#1");
    assert.equal(hunks.hunkAtInline(l, [v], 2), undefined);
  });

  it("keeps two runs' same insertion apart, and draws a superseded one without its lines", () => {
    const block = "func helper() {}\n\n";
    const a = view("r1#1", "r1", hunk("r1#1", rng(2, 0, 2, 0), block));
    const b = view("r2#2", "r2", hunk("r2#2", rng(2, 0, 2, 0), block));
    let l = hunks.inlineLayout(doc, [a, b]);
    assert.deepEqual(
      l.rows.slice(2, 7).map((r) => [r.kind, r.text, r.hunkId]),
      [
        ["new", "func helper() {}", "r1#1"],
        ["new", "", "r1#1"],
        ["new", "func helper() {}", "r2#2"],
        ["new", "", "r2#2"],
        ["same", "func b() int { return 2 }", undefined],
      ],
    );
    assert.deepEqual([l.starts.get("r1#1"), l.starts.get("r2#2")], [2, 4]);
    l = hunks.inlineLayout(doc, [a, { ...b, conflicted: true, supersededBy: "r1#1" }]);
    assert.deepEqual(
      l.rows.slice(2, 5).map((r) => [r.kind, r.hunkId]),
      [
        ["new", "r1#1"],
        ["new", "r1#1"],
        ["new", "r2#2"],
      ],
    );
    assert.equal(l.rows[4].text, "");
  });

  it("shows a new file (an empty document) as all new lines", () => {
    const v: hunks.HunkView = { hunkId: "r1#1", runId: "r1", uri: "file:///w/n.py", conflicted: false, ...layout([""], hunk("r1#1", rng(0, 0, 1, 0), "a\nb\n")) };
    const l = hunks.inlineLayout([""], [v]);
    assert.deepEqual(l.rows.map((r) => [r.kind, r.text]), [["same", ""], ["new", "a"], ["new", "b"]]);
  });
});

describe("problemsNote", () => {
  const hunk = (line: number): Hunk => ({ id: `h${line}`, range: { start: { line, character: 0 }, end: { line: line + 1, character: 0 } }, oldText: "a\n", newText: "b\n", status: "pending" });
  it("puts what the language server found on the proposal's first hunk", () => {
    const p: Proposal = {
      uri: "file:///w/main.go", runId: "r", status: "pending", proposedText: "", hunks: [hunk(2), hunk(5)],
      problems: [
        { range: { start: { line: 5, character: 13 }, end: { line: 5, character: 27 } }, severity: 1, message: "undefined: undefinedThing\nmore" },
        { range: { start: { line: 9, character: 0 }, end: { line: 9, character: 1 } }, severity: 2, message: "unused" },
      ],
    };
    assert.equal(hunks.problemsNote(p), "⚠ introduces 2 problems (line 6: undefined: undefinedThing)");
    const views = hunkViews([p], "file:///w/main.go", ["x", "y", "a", "z", "w", "a", "q"]);
    assert.deepEqual(views.map((v) => v.problems), ["⚠ introduces 2 problems (line 6: undefined: undefinedThing)", undefined]);
    assert.equal(hunks.problemsNote({ ...p, problems: [] }), undefined);
    assert.equal(hunks.problemsNote({ ...p, problems: undefined }), undefined);
  });
});

describe("insertion blocks", () => {
  const lines = ["package p", "", "func a() {}", "func b() {}"];
  const view = (h: Hunk) => hunkViews([{ uri: "u", runId: "r1", status: "pending", proposedText: "", hunks: [h] }], "u", lines)[0];
  it("hang after the line before where they go, not beside the next lines", () => {
    const v = view(hunk("h", rng(3, 0, 3, 0), "// b does\n// nothing\n"));
    assert.equal(hunks.insertionRow(v), 2);
    assert.equal(hunks.insertionMarkdown(v, "go"), "```go\n// b does\n// nothing\n```");
  });
  it("at the end of the file: after the last line, every line its own", () => {
    const v = view(hunk("h", rng(4, 0, 4, 0), "func c() {}\nfunc d() {}\n"));
    assert.equal(hunks.insertionRow(v), 3);
    assert.deepEqual(v.added, ["func c() {}", "func d() {}"]);
    assert.equal(hunks.insertionMarkdown(v).split("\n").length, 4);
  });
  it("not for replacements, nothing added, or above the first line", () => {
    assert.equal(hunks.insertionRow(view(hunk("h", rng(2, 0, 3, 0), "func a() { x() }\n", "func a() {}\n"))), undefined);
    assert.equal(hunks.insertionRow(view(hunk("h", rng(0, 0, 0, 0), "// header\n"))), undefined);
  });
  it("fences past a fence in the text", () => {
    const v = view(hunk("h", rng(4, 0, 4, 0), "```\n"));
    assert.match(hunks.insertionMarkdown(v), /^~~~~/);
  });
});

describe("stackBlocks", () => {
  const lines = ["x := 1", "y := 22", "z"];
  it("puts a second run's block whole beside the first, in its own column", () => {
    const a: hunks.BlockRow[] = [
      { row: 0, text: "⟶ aaa", margin: 4, first: true },
      { row: 1, text: "  aaaaaa", margin: 3 },
    ];
    const b: hunks.BlockRow[] = [
      { row: 0, text: "⟶ bb", margin: 4, first: true },
      { row: 1, text: "  b", margin: 3 },
    ];
    const [sa, sb] = hunks.stackBlocks([a, b], lines);
    assert.deepEqual(sa.map((r) => r.margin), [4, 3]); // unchanged: column 10
    // a ends at 10+5=15 on row 0 and 10+8=18 on row 1: b starts at 21.
    assert.deepEqual(sb.map((r) => r.margin), [21 - 15, 21 - 18]);
  });
  it("leaves blocks on other rows alone", () => {
    const a: hunks.BlockRow[] = [{ row: 0, text: "⟶ a", margin: 3, first: true }];
    const b: hunks.BlockRow[] = [{ row: 2, text: "⟶ b", margin: 5, first: true }];
    assert.deepEqual(hunks.stackBlocks([a, b], lines).map((rs) => rs[0].margin), [3, 5]);
  });
});
