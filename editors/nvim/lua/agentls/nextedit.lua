-- Next edits (the server's completion.nextEdit): a suggestion is an
-- ordinary proposal with source "next-edit", previewed by preview.lua. Its
-- worth is in taking it without going there, so one key (default <M-n>,
-- normal and insert mode) accepts the current buffer's suggestion wherever
-- it is in the buffer. With none shown the key is itself, so a user's own
-- mapping of it, or its insert-mode meaning, is not lost.
local client_mod = require("agentls.client")
local log = require("agentls.log")
local preview = require("agentls.preview")

local M = {}

M.default_key = "<M-n>"

--- The accept key from the configuration, or nil when it is turned off.
function M.key()
  local cfg = require("agentls").get_config() or {}
  local ne = cfg.next_edit
  if ne == false or (type(ne) == "table" and ne.key == false) then
    return nil
  end
  if type(ne) == "table" and type(ne.key) == "string" then
    return ne.key
  end
  return M.default_key
end

--- The pending next-edit suggestion shown in buffer `bufnr`:
--- { runId, uri, first (its first hunk's row, 0-based) }, or nil. The
--- server keeps at most one per file, so its run id and uri name it whole.
function M.current(bufnr)
  bufnr = (bufnr == nil or bufnr == 0) and vim.api.nvim_get_current_buf() or bufnr
  for _, h in ipairs(preview.hunks(bufnr)) do
    if h.source == "next-edit" and h.status == "pending" then
      return { runId = h.runId, uri = h.uri, first = h.first }
    end
  end
  return nil
end

--- Accepts buffer `bufnr`'s next-edit suggestion (agentls.accept with its
--- runId and uri: every hunk of it). `on_done(err, result)` is optional.
--- Returns false when there is none or no server.
function M.accept(bufnr, on_done)
  bufnr = (bufnr == nil or bufnr == 0) and vim.api.nvim_get_current_buf() or bufnr
  local s = M.current(bufnr)
  local client = client_mod.get(bufnr)
  if not s or not client then
    return false
  end
  return client_mod.execute(client, "agentls.accept", { runId = s.runId, uri = s.uri }, function(err, result)
    if err then
      log.notify(vim.log.levels.ERROR, "accept next edit: %s", err.message or vim.inspect(err))
    elseif result and result.applied == false then
      -- A suggestion outdated meanwhile is dropped by the server; say so
      -- rather than leave the key looking dead.
      log.notify(vim.log.levels.WARN, "the next edit was not applied: %s", result.failureReason or "no reason given")
    end
    preview.refresh(bufnr, client)
    if on_done then
      on_done(err, result)
    end
  end, bufnr)
end

--- Maps the accept key in buffer `bufnr` (called when agentls attaches).
function M.attach(bufnr)
  local lhs = M.key()
  if not lhs then
    return
  end
  for _, mode in ipairs({ "n", "i" }) do
    vim.keymap.set(mode, lhs, function()
      if M.current(bufnr) then
        return "<Cmd>lua require('agentls.nextedit').accept(" .. bufnr .. ")<CR>"
      end
      return lhs
    end, { buffer = bufnr, expr = true, desc = "agentls: accept the next-edit suggestion" })
  end
end

return M
