import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { describe, it } from "node:test";
import { buildSettings, defaultGoBinDirs, findExecutable } from "../config";

const getter = (values: Record<string, unknown>) => (key: string) => values[key];

describe("buildSettings", () => {
  it("builds the protocol's configuration object", () => {
    const s = buildSettings(
      getter({
        path: "/opt/agentls",
        "model.baseURL": "http://localhost:11434/v1",
        "model.name": "qwen",
        "model.apiKeyEnv": "MY_KEY",
        "model.contextWindow": 32768,
        mode: "apply",
        maxTurns: 10,
        mcpServers: { fs: { command: "node", args: ["fs.js"], env: { A: "1" } } },
        "tools.runCommand": "off",
      }),
    );
    assert.deepEqual(s, {
      model: { baseURL: "http://localhost:11434/v1", name: "qwen", apiKeyEnv: "MY_KEY", contextWindow: 32768 },
      mode: "apply",
      maxTurns: 10,
      mcpServers: { fs: { command: "node", args: ["fs.js"], env: { A: "1" } } },
      tools: { runCommand: "off" },
    });
  });

  it("passes the model's pricing and choices, dropping bad values", () => {
    assert.deepEqual(
      buildSettings(
        getter({
          "model.pricing": { inputPerMTok: 2, outputPerMTok: 8, cachedInputPerMTok: 0.5 },
          "model.choices": ["gpt-4.1-mini", "", 3, "o4-mini"],
        }),
      ),
      { model: { pricing: { inputPerMTok: 2, outputPerMTok: 8, cachedInputPerMTok: 0.5 }, choices: ["gpt-4.1-mini", "o4-mini"] } },
    );
    // A price missing, negative or not a number is no pricing at all.
    assert.deepEqual(buildSettings(getter({ "model.pricing": { inputPerMTok: 2 } })), {});
    assert.deepEqual(buildSettings(getter({ "model.pricing": { inputPerMTok: -1, outputPerMTok: 8 } })), {});
    assert.deepEqual(buildSettings(getter({ "model.pricing": { inputPerMTok: 2, outputPerMTok: 8, cachedInputPerMTok: "x" } })), {
      model: { pricing: { inputPerMTok: 2, outputPerMTok: 8 } },
    });
    assert.deepEqual(buildSettings(getter({ "model.choices": [] })), {});
  });

  it("passes a replay cassette, the no-model demo's setting", () => {
    assert.deepEqual(buildSettings(getter({ "model.replay": "fix-greet.cassette.json" })), {
      model: { replay: "fix-greet.cassette.json" },
    });
    assert.deepEqual(buildSettings(getter({ "model.replay": "" })), {});
  });

  it("leaves unset, null and empty values out so other sources apply", () => {
    assert.deepEqual(buildSettings(getter({ "model.baseURL": null, "model.name": "", mode: null, mcpServers: {} })), {});
    assert.deepEqual(buildSettings(getter({ "model.name": "gpt-4.1" })), { model: { name: "gpt-4.1" } });
  });

  it("drops values of the wrong type", () => {
    assert.deepEqual(buildSettings(getter({ mode: "yolo", maxTurns: "many", mcpServers: ["x"], "model.contextWindow": "big" })), {});
    assert.deepEqual(buildSettings(getter({ maxTurns: 7.9 })), { maxTurns: 7 });
  });

  it("passes the language servers: false, or entries by name, and their bounds", () => {
    assert.deepEqual(buildSettings(getter({ languageServers: false })), { languageServers: false });
    const entries = { gopls: false, zig: { command: ["zls"], extensions: [".zig"] } };
    const s = buildSettings(getter({ languageServers: entries, languageServerWaitSeconds: 10, languageServerIdleSeconds: 60 }));
    assert.deepEqual(s, { languageServers: entries, languageServerWaitSeconds: 10, languageServerIdleSeconds: 60 });
    assert.notEqual(s.languageServers, entries);
    assert.deepEqual(buildSettings(getter({ languageServers: true })), {});
  });

  it("passes completion on as written, as a copy", () => {
    const completion = { baseURL: "http://localhost:11434/v1", name: "qwen2.5-coder:1.5b-base", fim: "suffix" };
    const s = buildSettings(getter({ completion }));
    assert.deepEqual(s, { completion });
    assert.notEqual(s.completion, completion);
    assert.deepEqual(buildSettings(getter({ completion: {} })), {});
    assert.deepEqual(buildSettings(getter({ completion: ["x"] })), {});
  });
  it("returns a copy of mcpServers", () => {
    const servers = { a: { command: "x" } };
    const s = buildSettings(getter({ mcpServers: servers }));
    (s.mcpServers!.a as { command: string }).command = "changed";
    assert.equal(servers.a.command, "x");
  });
});

describe("findExecutable", () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "agentls-vscode-"));
  const bin = path.join(dir, "agentls");
  fs.writeFileSync(bin, "#!/bin/sh\n");
  fs.chmodSync(bin, 0o755);
  const plain = path.join(dir, "notexec");
  fs.writeFileSync(plain, "");
  fs.chmodSync(plain, 0o644);

  it("finds a name on PATH", () => {
    assert.equal(findExecutable("agentls", ["/nonexistent", dir].join(path.delimiter)), bin);
  });
  it("checks explicit paths", () => {
    assert.equal(findExecutable(bin, ""), bin);
    assert.equal(findExecutable(path.join(dir, "missing"), ""), undefined);
  });
  it("ignores files that are not executable and directories", () => {
    assert.equal(findExecutable("notexec", dir, []), undefined);
    assert.equal(findExecutable(dir, ""), undefined);
  });
  it("reports a missing binary", () => {
    assert.equal(findExecutable("agentls", "/nonexistent", []), undefined);
  });
  it("looks where go install puts binaries when PATH lacks it", () => {
    assert.equal(findExecutable("agentls", "/nonexistent", ["/nonexistent/go/bin", dir]), bin);
    assert.deepEqual(defaultGoBinDirs({ GOBIN: "/gb", GOPATH: ["/p1", "/p2"].join(path.delimiter) }).slice(0, 3), ["/gb", path.join("/p1", "bin"), path.join("/p2", "bin")]);
    assert.equal(defaultGoBinDirs({}).at(-1), path.join(os.homedir(), "go", "bin"));
  });
});
