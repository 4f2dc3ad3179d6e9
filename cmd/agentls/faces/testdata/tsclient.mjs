// A whole ACP session against `agentls acp`, driven by the official
// TypeScript SDK's client (@agentclientprotocol/sdk, client app over the
// child's stdio). Every message agentls sends is also checked against the
// SDK's stable v1 zod schemas, by method: responses, requests and
// notifications alike. The model is the Go test's scripted llmtest server
// (OPENAI_BASE_URL in the environment). Prints a JSON summary on stdout;
// exits non-zero with a message on the first failure.
//
// Environment: AGENTLS_BIN (the binary), AGENTLS_ACP_DIR (where the SDK
// is installed), WORKDIR (the session's cwd, holding a.txt), LOG_DIR;
// SCENARIO=checks runs only the checked-turn scenario (calc.go).
import { spawn } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Readable, Writable } from "node:stream";
import { pathToFileURL } from "node:url";

const sdkRoot = join(process.env.AGENTLS_ACP_DIR, "node_modules", "@agentclientprotocol", "sdk");
const acp = await import(pathToFileURL(join(sdkRoot, "dist", "v1", "stable", "acp.js")).href);
const z = await import(pathToFileURL(join(sdkRoot, "dist", "v1", "schema", "zod.gen.js")).href);
const workdir = process.env.WORKDIR;
const file = join(workdir, "a.txt");

function fail(msg) {
  process.stderr.write("tsclient: FAIL: " + msg + "\n");
  process.exit(1);
}
function expect(cond, msg) {
  if (!cond) fail(msg);
}

// Schemas of what the agent may send, by method.
const responseSchemas = {
  initialize: z.zInitializeResponse,
  authenticate: z.zAuthenticateResponse,
  "session/new": z.zNewSessionResponse,
  "session/load": z.zLoadSessionResponse,
  "session/list": z.zListSessionsResponse,
  "session/resume": z.zResumeSessionResponse,
  "session/close": z.zCloseSessionResponse,
  "session/set_mode": z.zSetSessionModeResponse,
  "session/set_config_option": z.zSetSessionConfigOptionResponse,
  "session/prompt": z.zPromptResponse,
};
const requestSchemas = {
  "session/request_permission": z.zRequestPermissionRequest,
  "fs/read_text_file": z.zReadTextFileRequest,
  "fs/write_text_file": z.zWriteTextFileRequest,
};
const notificationSchemas = { "session/update": z.zSessionNotification };

let validated = 0;

// Shared client state, reset per connection where noted.
const state = { updates: [], perms: [], writes: [], reads: [] };
let onPermission = async () => ({ outcome: { outcome: "cancelled" } });
let updateWaiters = [];

function validateLine(line, sent) {
  let msg;
  try {
    msg = JSON.parse(line);
  } catch (e) {
    fail("agent sent a line that is not JSON: " + line.slice(0, 200));
  }
  expect(msg.jsonrpc === "2.0", "no jsonrpc 2.0: " + line.slice(0, 200));
  let schema, what;
  if (msg.method !== undefined && msg.id !== undefined) {
    schema = requestSchemas[msg.method];
    what = "request " + msg.method;
    expect(schema, "agent sent an unexpected request " + msg.method);
  } else if (msg.method !== undefined) {
    if (msg.method === "$/cancel_request") return;
    schema = notificationSchemas[msg.method];
    what = "notification " + msg.method;
    expect(schema, "agent sent an unexpected notification " + msg.method);
  } else {
    const method = sent.get(JSON.stringify(msg.id));
    expect(method, "response to an unknown id " + JSON.stringify(msg.id));
    sent.delete(JSON.stringify(msg.id));
    if (msg.error) {
      z.zError.parse(msg.error);
      validated++;
      return;
    }
    schema = responseSchemas[method];
    what = "response to " + method;
    expect(schema, "no schema for " + method);
  }
  const params = msg.method !== undefined ? msg.params : msg.result;
  const r = schema.safeParse(params);
  if (!r.success) fail(what + " does not match the ACP schema: " + JSON.stringify(r.error.issues).slice(0, 2000) + "\n" + line.slice(0, 2000));
  validated++;
}

// connect starts `agentls acp` and a client app on its stdio.
function connect(tag) {
  const child = spawn(process.env.AGENTLS_BIN, ["acp", "--log-level", "debug", "--log-file", join(process.env.LOG_DIR, tag + ".log")], {
    cwd: workdir,
    stdio: ["pipe", "pipe", "inherit"],
  });
  const sent = new Map(); // id → method of the client's requests
  let outBuf = "";
  const tapIn = new Writable({
    write(chunk, enc, cb) {
      outBuf += chunk.toString();
      let i;
      while ((i = outBuf.indexOf("\n")) >= 0) {
        const line = outBuf.slice(0, i);
        outBuf = outBuf.slice(i + 1);
        if (line.trim() === "") continue;
        const m = JSON.parse(line);
        if (m.method !== undefined && m.id !== undefined) sent.set(JSON.stringify(m.id), m.method);
      }
      child.stdin.write(chunk, cb);
    },
    final(cb) {
      child.stdin.end();
      cb();
    },
  });
  let inBuf = "";
  child.stdout.on("data", (chunk) => {
    inBuf += chunk.toString();
    let i;
    while ((i = inBuf.indexOf("\n")) >= 0) {
      const line = inBuf.slice(0, i);
      inBuf = inBuf.slice(i + 1);
      if (line.trim() !== "") validateLine(line, sent);
    }
  });
  const exited = new Promise((resolve) => child.on("exit", (code) => resolve(code)));
  const stream = acp.ndJsonStream(Writable.toWeb(tapIn), Readable.toWeb(child.stdout));
  const app = acp
    .client({ name: "agentls-ci" })
    .onNotification(acp.methods.client.session.update, ({ params }) => {
      state.updates.push(params);
      const ws = updateWaiters;
      updateWaiters = [];
      for (const w of ws) w();
    })
    .onRequest(acp.methods.client.session.requestPermission, async ({ params }) => {
      state.perms.push(params);
      return onPermission(params);
    })
    .onRequest(acp.methods.client.fs.writeTextFile, async ({ params }) => {
      state.writes.push(params);
      writeFileSync(params.path, params.content);
      return {};
    })
    .onRequest(acp.methods.client.fs.readTextFile, async ({ params }) => {
      state.reads.push(params.path);
      return { content: readFileSync(params.path, "utf8") };
    });
  return { child, app, stream, exited, tapIn };
}

function updateKind(u) {
  return u.update.sessionUpdate;
}
async function waitUpdate(pred, what) {
  const deadline = Date.now() + 60000;
  while (!state.updates.some(pred)) {
    if (Date.now() > deadline) fail("timed out waiting for " + what);
    await new Promise((resolve) => {
      updateWaiters.push(resolve);
      setTimeout(resolve, 500);
    });
  }
}

const summary = {};

// SCENARIO=checks: with a check configured, the model's first, failing
// edit of calc.go is never asked about nor written; the fixed file is
// asked about once, with its final diff and the check's result, and
// written by fs/write_text_file only after the allow.
if (process.env.SCENARIO === "checks") {
  const calc = join(workdir, "calc.go");
  const before = readFileSync(calc, "utf8");
  const c = connect("checks");
  await c.app.connectWith(c.stream, async (ctx) => {
    await ctx.request(acp.methods.agent.initialize, {
      protocolVersion: acp.PROTOCOL_VERSION,
      clientCapabilities: { fs: { readTextFile: true, writeTextFile: true } },
    });
    const ns = await ctx.request(acp.methods.agent.session.new, { cwd: workdir, mcpServers: [] });
    onPermission = async (p) => {
      const diff = (p.toolCall.content || []).find((c) => c.type === "diff");
      expect(diff && diff.path === calc && diff.newText.includes("return a*b\n") && !diff.newText.includes("+ 1"), "permission without the final diff: " + JSON.stringify(p.toolCall));
      const text = (p.toolCall.content || []).filter((c) => c.type === "content").map((c) => c.content.text).join("\n");
      expect(text.includes("check test passed"), "permission without the check's result: " + JSON.stringify(p.toolCall));
      expect(readFileSync(calc, "utf8") === before && state.writes.length === 0, "calc.go written before the permission was answered");
      return { outcome: { outcome: "selected", optionId: p.options.find((o) => o.kind === "allow_once").optionId } };
    };
    const r = await ctx.request(acp.methods.agent.session.prompt, { sessionId: ns.sessionId, prompt: [{ type: "text", text: "make Mul multiply" }] });
    expect(r.stopReason === "end_turn", "prompt ended " + r.stopReason);
    const checks = state.updates.filter((u) => updateKind(u) === "tool_call" && u.update.title === "Check test");
    expect(checks.length === 2, "check tool calls " + JSON.stringify(checks));
  });
  c.tapIn.end();
  expect((await c.exited) === 0, "agentls acp exited");
  summary.permissions = state.perms.length;
  summary.writes = state.writes.map((w) => w.content);
  summary.validated = validated;
  process.stdout.write(JSON.stringify(summary) + "\n");
  process.exit(0);
}

// Connection 1: a whole session.
{
  const c = connect("first");
  await c.app.connectWith(c.stream, async (ctx) => {
    const init = await ctx.request(acp.methods.agent.initialize, {
      protocolVersion: acp.PROTOCOL_VERSION,
      clientCapabilities: { fs: { readTextFile: true, writeTextFile: true } },
      clientInfo: { name: "agentls-ci", version: "1" },
    });
    expect(init.protocolVersion === 1, "protocolVersion " + init.protocolVersion);
    expect(init.agentCapabilities.loadSession === true, "loadSession not advertised");
    expect(init.agentCapabilities.promptCapabilities.embeddedContext === true, "embeddedContext not advertised");
    expect(init.agentCapabilities.sessionCapabilities.list && init.agentCapabilities.sessionCapabilities.resume, "list/resume not advertised");

    const ns = await ctx.request(acp.methods.agent.session.new, { cwd: workdir, mcpServers: [] });
    summary.sessionId = ns.sessionId;
    expect(ns.modes.availableModes.map((m) => m.id).join(",") === "preview,apply,plan", "modes " + JSON.stringify(ns.modes));

    // 1. A prompt that reads, edits (asked about with its diff, written
    // only after the answer) and answers.
    onPermission = async (p) => {
      const diff = (p.toolCall.content || []).find((c) => c.type === "diff");
      expect(diff && diff.path === file && diff.newText.includes("hello, world"), "permission without the diff: " + JSON.stringify(p.toolCall));
      expect(readFileSync(file, "utf8") === "hello\n", "a.txt changed before the permission was answered");
      expect(state.writes.length === 0, "fs/write_text_file before the permission was answered");
      expect(p._meta && p._meta.agentls && p._meta.agentls.hunks.length === 1, "no hunks in _meta: " + JSON.stringify(p._meta));
      summary.runId = p._meta.agentls.runId;
      return { outcome: { outcome: "selected", optionId: p.options.find((o) => o.kind === "allow_once").optionId } };
    };
    const r1 = await ctx.request(acp.methods.agent.session.prompt, {
      sessionId: ns.sessionId,
      prompt: [{ type: "text", text: "greet the world in a.txt" }],
    });
    expect(r1.stopReason === "end_turn", "first prompt ended " + r1.stopReason);
    expect(readFileSync(file, "utf8") === "hello, world\n", "a.txt after allow: " + readFileSync(file, "utf8"));
    expect(state.writes.length === 1 && state.writes[0].path === file, "writes " + JSON.stringify(state.writes));
    expect(state.reads.includes(file), "fs/read_text_file was not used for a.txt");
    const k1 = state.updates.map(updateKind);
    const calls = state.updates.filter((u) => updateKind(u) === "tool_call").map((u) => u.update);
    expect(calls.length === 2 && calls[0].kind === "read" && calls[1].kind === "edit", "tool calls " + JSON.stringify(calls));
    expect(calls[0].locations && calls[0].locations[0].path === file, "read call has no location");
    const editUpdates = state.updates.filter((u) => updateKind(u) === "tool_call_update" && u.update.toolCallId === calls[1].toolCallId);
    expect(editUpdates.some((u) => (u.update.content || []).some((c) => c.type === "diff")), "edit call shows no diff");
    expect(editUpdates.at(-1).update.status === "completed", "edit call ended " + editUpdates.at(-1).update.status);
    const text = state.updates.filter((u) => updateKind(u) === "agent_message_chunk").map((u) => u.update.content.text).join("");
    expect(text.includes("I greeted the world."), "streamed text: " + text);
    summary.firstPrompt = { kinds: [...new Set(k1)], permissions: state.perms.length, text };

    // 2. Cancel mid-stream.
    const before = state.updates.length;
    const p2 = ctx.request(acp.methods.agent.session.prompt, { sessionId: ns.sessionId, prompt: [{ type: "text", text: "talk slowly" }] });
    await waitUpdate((u) => state.updates.indexOf(u) >= before && updateKind(u) === "agent_message_chunk", "the second prompt's first chunk");
    const cancelAt = Date.now();
    await ctx.notify(acp.methods.agent.session.cancel, { sessionId: ns.sessionId });
    const r2 = await p2;
    summary.cancelMillis = Date.now() - cancelAt;
    expect(r2.stopReason === "cancelled", "cancelled prompt ended " + r2.stopReason);

    // 3. Modes and config options.
    await ctx.request(acp.methods.agent.session.setMode, { sessionId: ns.sessionId, modeId: "plan" });
    const co = await ctx.request(acp.methods.agent.session.setConfigOption, { sessionId: ns.sessionId, configId: "mode", value: "preview" });
    expect(co.configOptions.find((o) => o.id === "mode").currentValue === "preview", "config options " + JSON.stringify(co));

    const list = await ctx.request(acp.methods.agent.session.list, { cwd: workdir });
    expect(list.sessions.some((s) => s.sessionId === ns.sessionId && s.cwd === workdir), "session/list " + JSON.stringify(list));
  });
  c.tapIn.end();
  const code = await c.exited;
  expect(code === 0, "agentls acp exited " + code);
}

// Connection 2 (a restart): load replays the conversation, and the
// session goes on.
{
  state.updates = [];
  const c = connect("second");
  await c.app.connectWith(c.stream, async (ctx) => {
    await ctx.request(acp.methods.agent.initialize, { protocolVersion: 1, clientCapabilities: {} });
    await ctx.request(acp.methods.agent.session.load, { sessionId: summary.sessionId, cwd: workdir, mcpServers: [] });
    const kinds = state.updates.map(updateKind);
    const user = state.updates.filter((u) => updateKind(u) === "user_message_chunk").map((u) => u.update.content.text);
    expect(user[0] === "greet the world in a.txt", "replayed user messages " + JSON.stringify(user));
    expect(kinds.includes("tool_call") && kinds.includes("agent_message_chunk"), "replay kinds " + kinds.join(","));
    summary.replayKinds = [...new Set(kinds)];
    const r3 = await ctx.request(acp.methods.agent.session.prompt, {
      sessionId: summary.sessionId,
      prompt: [{ type: "text", text: "what did you change?" }],
    });
    expect(r3.stopReason === "end_turn", "continued prompt ended " + r3.stopReason);
  });
  c.tapIn.end();
  const code = await c.exited;
  expect(code === 0, "agentls acp exited " + code);
}

summary.validated = validated;
process.stdout.write(JSON.stringify(summary) + "\n");
