-- Progress of agent runs where the user looks, by default: the server's
-- $/progress ("Agent: reading main.go") as one line in the message area
-- (or vim.notify), and its end-of-run window/showMessage kept to one line,
-- so a run is never silent and never stops the editor at a hit-ENTER
-- prompt. When a progress UI (fidget.nvim and the like) is present, the
-- plugin leaves progress to it and only passes the notification on.
local log = require("agentls.log")

local M = {}

--- The text that fits the message area on one line (no hit-ENTER prompt).
function M.fit(text)
  text = tostring(text or ""):gsub("%s*\n%s*", " · "):gsub("\t", " ")
  local room = math.max((tonumber(vim.v.echospace) or vim.o.columns - 12) - 1, 10)
  if vim.fn.strdisplaywidth(text) > room then
    local chars = vim.fn.strchars(text)
    while chars > 1 and vim.fn.strdisplaywidth(text) > room - 1 do
      chars = chars - 1
      text = vim.fn.strcharpart(text, 0, chars)
    end
    text = text .. "…"
  end
  return text
end

--- Shows `text` (one line, fitted) without adding it to :messages.
function M.echo(text, hl)
  vim.api.nvim_echo({ { M.fit(text), hl or "None" } }, false, {})
end

-- Whether another plugin shows LSP progress: fidget.nvim is loaded, or
-- something listens for the progress events Neovim fires (LspProgress on
-- 0.10+, User LspProgressUpdate before).
local function other_progress_ui()
  if package.loaded["fidget"] then
    return true
  end
  for _, spec in ipairs({ { event = "LspProgress" }, { event = "User", pattern = "LspProgressUpdate" } }) do
    local ok, cmds = pcall(vim.api.nvim_get_autocmds, spec)
    if ok and #cmds > 0 then
      return true
    end
  end
  return false
end

--- The progress setting in effect: "echo", "notify" or false.
local function mode()
  local cfg = require("agentls").get_config() or {}
  local p = cfg.progress
  if p == nil or p == true or p == "auto" then
    return not other_progress_ui() and "echo" or false
  end
  return p
end

local function show(text, level)
  local m = mode()
  if m == "notify" then
    vim.notify("agentls: " .. text, level or vim.log.levels.INFO)
  elseif m == "echo" then
    M.echo("agentls: " .. text, level == vim.log.levels.ERROR and "ErrorMsg" or nil)
  end
end

--- $/progress handler: passes the notification to the handler Neovim (or
--- a progress plugin) installed, then shows it unless that plugin does.
function M.handler(err, result, ctx, config)
  local default = vim.lsp.handlers["$/progress"]
  if default and default ~= M.handler then
    pcall(default, err, result, ctx, config)
  end
  local v = type(result) == "table" and result.value or nil
  if type(v) ~= "table" then
    return
  end
  local text = v.message
  if v.kind == "begin" then
    text = text and text ~= "" and text or v.title
  end
  if type(text) == "string" and text ~= "" then
    show(text)
  end
end

--- window/showMessage handler: one line in the message area (the full text
--- goes to the plugin log), instead of Neovim's default, whose long
--- messages (an agent's answer) wait for ENTER.
function M.show_message(_, result)
  if type(result) ~= "table" or type(result.message) ~= "string" then
    return
  end
  local levels = { vim.log.levels.ERROR, vim.log.levels.WARN, vim.log.levels.INFO, vim.log.levels.DEBUG }
  local level = levels[result.type] or vim.log.levels.INFO
  log.info("server: %s", result.message)
  if level == vim.log.levels.ERROR then
    M.echo("agentls: " .. result.message, "ErrorMsg")
  elseif level == vim.log.levels.WARN then
    M.echo("agentls: " .. result.message, "WarningMsg")
  else
    M.echo("agentls: " .. result.message)
  end
end

return M
