-- Plugin log: appends to a file under stdpath("state") (stdpath("cache") on
-- Neovim 0.7, which has no state dir) and shows user-facing messages with
-- vim.notify. The server's own log is separate (its --log-file flag).
local M = {}

local levels = vim.log.levels
local names = { [levels.DEBUG] = "DEBUG", [levels.INFO] = "INFO", [levels.WARN] = "WARN", [levels.ERROR] = "ERROR" }

local threshold = levels.WARN

--- Sets the lowest level written to the log file.
---@param level integer|string vim.log.levels value or its name ("debug", "info", ...)
function M.set_level(level)
  if type(level) == "string" then
    level = levels[level:upper()]
  end
  if type(level) ~= "number" then
    error("agentls: log level must be one of debug, info, warn, error")
  end
  threshold = level
end

--- Returns the path of the plugin's log file.
---@return string
function M.path()
  local ok, dir = pcall(vim.fn.stdpath, "state")
  if not ok or type(dir) ~= "string" then
    dir = vim.fn.stdpath("cache")
  end
  return dir .. "/agentls.log"
end

local function format(fmt, ...)
  local n = select("#", ...)
  if n == 0 then
    return fmt
  end
  local args = { ... }
  for i = 1, n do
    if type(args[i]) == "table" then
      args[i] = vim.inspect(args[i], { newline = " ", indent = "" })
    elseif args[i] == nil then
      args[i] = "nil"
    end
  end
  return string.format(fmt, unpack(args, 1, n))
end

local function write(level, fmt, ...)
  if level < threshold then
    return
  end
  local line = string.format("%s [%s] %s\n", os.date("%Y-%m-%d %H:%M:%S"), names[level], format(fmt, ...))
  local path = M.path()
  vim.fn.mkdir(vim.fn.fnamemodify(path, ":h"), "p")
  local f = io.open(path, "a")
  if f then
    f:write(line)
    f:close()
  end
end

function M.debug(fmt, ...)
  write(levels.DEBUG, fmt, ...)
end
function M.info(fmt, ...)
  write(levels.INFO, fmt, ...)
end
function M.warn(fmt, ...)
  write(levels.WARN, fmt, ...)
end
function M.error(fmt, ...)
  write(levels.ERROR, fmt, ...)
end

-- Whether vim.notify is Neovim's own (it prints to the message area, where
-- a long or multi-line message waits for ENTER), not a notification plugin.
local function builtin_notify()
  local ok, info = pcall(debug.getinfo, vim.notify, "S")
  return ok and type(info) == "table" and type(info.source) == "string" and info.source:find("vim/_editor", 1, true) ~= nil
end

--- Shows a message to the user (prefixed "agentls: ") and logs it. Safe to
--- call from callbacks in fast events: the notification is scheduled. With
--- Neovim's own vim.notify the message is kept to one line that fits (the
--- whole text is in the log), so it never raises a hit-ENTER prompt.
---@param level integer vim.log.levels value
function M.notify(level, fmt, ...)
  local msg = format(fmt, ...)
  write(level, "%s", msg)
  vim.schedule(function()
    if builtin_notify() then
      local hl = level >= levels.ERROR and "ErrorMsg" or level == levels.WARN and "WarningMsg" or "None"
      local fit = require("agentls.progress").fit
      vim.api.nvim_echo({ { fit("agentls: " .. msg), hl } }, level >= levels.WARN, {})
    else
      vim.notify("agentls: " .. msg, level)
    end
  end)
end

return M
