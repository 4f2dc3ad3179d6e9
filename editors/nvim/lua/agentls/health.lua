-- :checkhealth agentls — Neovim version, setup, the server binary and its
-- version, the model settings, running clients and the log file.
local M = {}

-- vim.health.start/ok/… (0.10+) replaced report_start/… (0.7–0.9, in the
-- "health" module on 0.7).
local function reporter()
  local h = vim.health or require("health")
  return {
    start = h.start or h.report_start,
    ok = h.ok or h.report_ok,
    info = h.info or h.report_info,
    warn = h.warn or h.report_warn,
    error = h.error or h.report_error,
  }
end

--- Where `go install` puts agentls: $GOBIN, else $(go env GOPATH)/bin
--- (asked from go when it is on PATH, else ~/go/bin, go's default).
function M.go_bin_dir()
  if vim.env.GOBIN and vim.env.GOBIN ~= "" then
    return vim.env.GOBIN
  end
  if vim.fn.executable("go") == 1 then
    local out = vim.trim(vim.fn.system({ "go", "env", "GOBIN", "GOPATH" }))
    if vim.v.shell_error == 0 then
      local lines = vim.split(out, "\n")
      if lines[1] ~= "" and #lines > 1 then
        return lines[1]
      end
      local gopath = vim.split(lines[#lines], ":")[1]
      if gopath ~= "" then
        return gopath .. "/bin"
      end
    end
  end
  return vim.fn.expand("~/go/bin")
end

--- Why bin cannot be started, and the fix: when `go install` put it in
--- its bin directory and that directory is not on PATH (a new shell
--- without the README's export), the fix is PATH, not a reinstall.
function M.missing_binary(bin)
  local dir = M.go_bin_dir()
  local installed = dir .. "/" .. bin
  if not bin:find("/") and vim.fn.executable(installed) == 1 then
    return string.format("%s is installed in %s, but that directory is not on PATH", bin, dir), {
      string.format('Add it to PATH in your shell profile: export PATH="$(go env GOPATH)/bin:$PATH" (here: %s), then restart Neovim', dir),
      string.format("or set cmd = { '%s' } in setup()", installed),
    }
  end
  return string.format("server binary %q is not executable or not on PATH", bin), {
    "Install it from a clone of the repository: go install ./cmd/agentls (the module is not published yet), "
      .. 'then make sure $(go env GOPATH)/bin is on PATH: export PATH="$(go env GOPATH)/bin:$PATH"',
    "or set cmd = { '/path/to/agentls' } in setup()",
  }
end

local function model_settings(settings)
  local model = type(settings.model) == "table" and settings.model or {}
  local key_env = model.apiKeyEnv or "OPENAI_API_KEY"
  return {
    replay = type(model.replay) == "string" and model.replay ~= "" and model.replay or nil,
    baseURL = model.baseURL or vim.env.OPENAI_BASE_URL,
    name = model.name or vim.env.AGENTLS_MODEL,
    key_env = key_env,
    key_set = vim.env[key_env] ~= nil and vim.env[key_env] ~= "",
  }
end

local function user_config_file()
  local base = vim.env.XDG_CONFIG_HOME
  if not base or base == "" then
    base = vim.fn.expand("~/.config")
  end
  return base .. "/agentls/config.json"
end

--- Runs the health check (called by :checkhealth agentls).
function M.check()
  local r = reporter()
  r.start("agentls")

  if vim.fn.has("nvim-0.7") == 1 then
    local v = vim.version()
    r.ok(string.format("Neovim %d.%d.%d", v.major, v.minor, v.patch))
  else
    r.error("Neovim 0.7 or newer is required")
  end

  local cfg = require("agentls").get_config()
  if not cfg then
    r.error("setup() has not been called", { "Add require('agentls').setup({}) to your config" })
    return
  end
  r.ok("setup() called")

  local bin = cfg.cmd[1]
  if vim.fn.executable(bin) == 1 then
    local out = vim.fn.system({ bin, "version" })
    if vim.v.shell_error == 0 then
      r.ok(string.format("server: %s (%s)", vim.trim(out), vim.fn.exepath(bin)))
    else
      r.error(string.format("`%s version` failed: %s", bin, vim.trim(out)))
    end
  else
    local msg, advice = M.missing_binary(bin)
    r.error(msg, advice)
  end

  local m = model_settings(cfg.settings or {})
  local file = user_config_file()
  local has_file = vim.fn.filereadable(file) == 1
  if m.replay then
    r.ok(string.format("model: replaying %s (no model, key or network needed)", m.replay))
  elseif m.baseURL and m.name then
    r.ok(string.format("model: %s at %s", m.name, m.baseURL))
  elseif has_file then
    r.info(string.format("model not in setup() settings or the environment; %s may set it", file))
  else
    r.warn("no model configured: agent runs will fail", {
      "Set settings = { model = { baseURL = 'https://api.openai.com/v1', name = 'gpt-4.1' } } in setup()",
      "or OPENAI_BASE_URL and AGENTLS_MODEL in the environment, or " .. file,
    })
  end
  if m.replay then
    -- a replay needs no key
  elseif m.key_set then
    r.ok(string.format("API key found in $%s", m.key_env))
  else
    r.info(string.format("$%s is not set (fine for local models that need no key)", m.key_env))
  end

  local client_mod = require("agentls.client")
  local clients = client_mod.clients()
  if #clients == 0 then
    r.info("no agentls server running (it starts when you open a file)")
  end
  for _, c in ipairs(clients) do
    local info = client_mod.server_info(c.id) or {}
    r.ok(string.format("client %d: %s %s, root %s, encoding %s", c.id, info.name or "?", info.version or "",
      c.config.root_dir or "?", c.offset_encoding or "utf-16"))
  end
  r.info("plugin log: " .. require("agentls.log").path())
end

return M
