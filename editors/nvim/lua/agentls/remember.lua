-- :AgentRemember: a rule the user wants every later run to know, for the
-- project's AGENTS.md (docs/memory.md). The server stages it as a proposal
-- (agentls.remember) under a run id of its own, so it shows, is accepted
-- and rejected like any run's change, and nothing is written before the
-- accept: memory is reviewed, never slipped in.
local client_mod = require("agentls.client")
local log = require("agentls.log")

local M = {}

local function err_text(err)
  return type(err) == "table" and (err.message or vim.inspect(err)) or tostring(err)
end

--- Proposes `note` for AGENTS.md with agentls.remember. The server
--- normalizes and bounds the note and says why when it refuses one (empty,
--- too long, scope "user"). `on_done(err, result)` runs after the message
--- (result: { runId?, uri?, unchanged? }). Returns false when nothing was
--- sent.
function M.remember(note, on_done)
  note = vim.trim(note or "")
  if note == "" then
    log.notify(vim.log.levels.WARN, "nothing to remember: :AgentRemember {rule}")
    return false
  end
  local client = client_mod.get(0) or client_mod.clients()[1]
  if not client then
    log.notify(vim.log.levels.ERROR, "no agentls server is running (open a file of the project first)")
    return false
  end
  return client_mod.execute(client, "agentls.remember", { note = note }, function(err, res)
    if err then
      log.notify(vim.log.levels.ERROR, "remember: %s", err_text(err))
    elseif type(res) == "table" and res.unchanged then
      log.notify(vim.log.levels.INFO, "already remembered: AGENTS.md holds this rule")
    else
      local id = type(res) == "table" and res.runId or "?"
      -- The note goes to the log as data, never as a format string: rules
      -- quote code ("wrap errors with %w").
      require("agentls.run").append({ string.format("[%s] proposed for AGENTS.md: %s", tostring(id), note) })
      log.notify(vim.log.levels.INFO, "proposed for AGENTS.md — review it like any change")
    end
    if on_done then
      on_done(err, res)
    end
  end)
end

--- :AgentRemember [note]: without a note, asks for one (vim.ui.input).
function M.command(args)
  local note = args and vim.trim(args.args or "") or ""
  if note ~= "" then
    M.remember(note)
    return
  end
  vim.ui.input({ prompt = "Remember (a rule for AGENTS.md): " }, function(input)
    if input and vim.trim(input) ~= "" then
      M.remember(input)
    end
  end)
end

return M
