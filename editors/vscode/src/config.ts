// The agentls settings object (docs/protocol.md "Configuration") built from the
// extension's `agentls.*` settings. The same object goes out as
// initializationOptions, in workspace/didChangeConfiguration
// ({settings: {agentls: …}}) and as the answer to workspace/configuration.
// No "vscode" import: unit-tested under plain node.
import * as fs from "fs";
import * as os from "os";
import * as path from "path";

/** The protocol's configuration object; every field optional. */
export interface AgentlsSettings {
  model?: {
    baseURL?: string;
    name?: string;
    apiKeyEnv?: string;
    contextWindow?: number;
    /** A cassette to answer from instead of a model (docs/protocol.md "Deterministic model"). */
    replay?: string;
    /** USD per million tokens: turns token counts into cost. */
    pricing?: { inputPerMTok: number; outputPerMTok: number; cachedInputPerMTok?: number };
    /** Model names the model picker offers besides the endpoint's list. */
    choices?: string[];
  };
  mode?: "preview" | "apply";
  maxTurns?: number;
  mcpServers?: Record<string, unknown>;
  /** Language servers agentls starts to check the agent's edits: false turns them off, an object configures them by name. */
  languageServers?: false | Record<string, unknown>;
  languageServerWaitSeconds?: number;
  languageServerIdleSeconds?: number;
  tools?: { runCommand?: string };
  /** Ghost-text completions (docs/completions.md): their model and behaviour, passed on as written. */
  completion?: Record<string, unknown>;
  /** How the server shows proposals; the extension renders its own. */
  preview?: { diagnostics?: boolean };
}

/** Reads one setting below "agentls." (undefined or null when unset). */
export type Getter = (key: string) => unknown;

function present(v: unknown): boolean {
  return v !== undefined && v !== null && v !== "";
}

function str(get: Getter, key: string): string | undefined {
  const v = get(key);
  return typeof v === "string" && v !== "" ? v : undefined;
}

function int(get: Getter, key: string): number | undefined {
  const v = get(key);
  return typeof v === "number" && Number.isFinite(v) ? Math.trunc(v) : undefined;
}

/**
 * Builds the settings object from `get`. Unset values are left out rather
 * than sent as null or "", so the server's other sources (config files,
 * OPENAI_BASE_URL, AGENTLS_MODEL) still apply; `agentls.path` is the
 * extension's own and is never sent.
 */
export function buildSettings(get: Getter): AgentlsSettings {
  const out: AgentlsSettings = {};
  const model: NonNullable<AgentlsSettings["model"]> = {};
  const baseURL = str(get, "model.baseURL");
  const name = str(get, "model.name");
  const apiKeyEnv = str(get, "model.apiKeyEnv");
  const contextWindow = int(get, "model.contextWindow");
  const replay = str(get, "model.replay");
  if (baseURL) model.baseURL = baseURL;
  if (name) model.name = name;
  if (apiKeyEnv) model.apiKeyEnv = apiKeyEnv;
  if (contextWindow !== undefined) model.contextWindow = contextWindow;
  if (replay) model.replay = replay;
  const pricing = get("model.pricing");
  if (pricing && typeof pricing === "object" && !Array.isArray(pricing)) {
    const p = pricing as Record<string, unknown>;
    const price = (k: string) => (typeof p[k] === "number" && Number.isFinite(p[k]) && (p[k] as number) >= 0 ? (p[k] as number) : undefined);
    const input = price("inputPerMTok");
    const output = price("outputPerMTok");
    const cached = price("cachedInputPerMTok");
    if (input !== undefined && output !== undefined) {
      model.pricing = { inputPerMTok: input, outputPerMTok: output, ...(cached !== undefined ? { cachedInputPerMTok: cached } : {}) };
    }
  }
  const choices = get("model.choices");
  if (Array.isArray(choices)) {
    const names = choices.filter((c): c is string => typeof c === "string" && c.trim() !== "");
    if (names.length > 0) model.choices = names;
  }
  if (Object.keys(model).length > 0) out.model = model;

  const mode = str(get, "mode");
  if (mode === "preview" || mode === "apply") out.mode = mode;
  const maxTurns = int(get, "maxTurns");
  if (maxTurns !== undefined) out.maxTurns = maxTurns;

  const mcp = get("mcpServers");
  if (mcp && typeof mcp === "object" && !Array.isArray(mcp) && Object.keys(mcp).length > 0) {
    out.mcpServers = JSON.parse(JSON.stringify(mcp)) as Record<string, unknown>;
  }
  const ls = get("languageServers");
  if (ls === false) {
    out.languageServers = false;
  } else if (ls && typeof ls === "object" && !Array.isArray(ls) && Object.keys(ls).length > 0) {
    out.languageServers = JSON.parse(JSON.stringify(ls)) as Record<string, unknown>;
  }
  const wait = int(get, "languageServerWaitSeconds");
  if (wait !== undefined) out.languageServerWaitSeconds = wait;
  const idle = int(get, "languageServerIdleSeconds");
  if (idle !== undefined) out.languageServerIdleSeconds = idle;
  const completion = get("completion");
  if (completion && typeof completion === "object" && !Array.isArray(completion) && Object.keys(completion).length > 0) {
    out.completion = JSON.parse(JSON.stringify(completion)) as Record<string, unknown>;
  }
  const runCommand = get("tools.runCommand");
  if (present(runCommand) && typeof runCommand === "string") out.tools = { runCommand };
  return out;
}

/**
 * Finds the executable `name` on PATH, or checks an explicit path (a leading
 * "~/" is the home directory); undefined when there is none.
 */
export function findExecutable(name: string, envPath = process.env.PATH ?? "", goBinDirs = defaultGoBinDirs()): string | undefined {
  const expanded = name.startsWith("~/") ? path.join(os.homedir(), name.slice(2)) : name;
  const exts = process.platform === "win32" ? ["", ".exe"] : [""];
  const isExecutable = (p: string) => {
    try {
      if (!fs.statSync(p).isFile()) {
        return false;
      }
      fs.accessSync(p, process.platform === "win32" ? fs.constants.F_OK : fs.constants.X_OK);
      return true;
    } catch {
      return false;
    }
  };
  if (expanded.includes("/") || expanded.includes("\\")) {
    return exts.map((e) => expanded + e).find(isExecutable);
  }
  // Then where `go install` puts binaries: the editor's PATH often lacks
  // it (a GUI launch, or code-server's extension host resetting PATH).
  const dirs = [...envPath.split(path.delimiter), ...goBinDirs];
  for (const dir of dirs) {
    for (const e of exts) {
      const p = path.join(dir, expanded + e);
      if (dir && isExecutable(p)) {
        return p;
      }
    }
  }
  return undefined;
}

/** Where `go install` puts binaries: $GOBIN, each $GOPATH entry's bin, ~/go/bin. */
export function defaultGoBinDirs(env: NodeJS.ProcessEnv = process.env): string[] {
  const dirs: string[] = [];
  if (env.GOBIN) dirs.push(env.GOBIN);
  for (const p of (env.GOPATH ?? "").split(path.delimiter)) {
    if (p) dirs.push(path.join(p, "bin"));
  }
  dirs.push(path.join(os.homedir(), "go", "bin"));
  return dirs;
}
