-- Reviewing proposals: accept or reject the hunk under the cursor, all of a
-- file's hunks or everything pending (workspace/executeCommand
-- agentls.accept / agentls.reject), and jump between hunks.
local client_mod = require("agentls.client")
local log = require("agentls.log")
local preview = require("agentls.preview")

local M = {}

--- The shown hunk whose rows contain the cursor line of window 0 (the
--- smallest one when hunks nest), or nil.
function M.hunk_at_cursor(bufnr)
  bufnr = (bufnr == nil or bufnr == 0) and vim.api.nvim_get_current_buf() or bufnr
  local row = vim.api.nvim_win_get_cursor(0)[1] - 1
  local best
  for _, h in ipairs(preview.hunks(bufnr)) do
    if h.first <= row and row <= h.last and (not best or h.last - h.first < best.last - best.first) then
      best = h
    end
  end
  return best
end

-- The command argument for `scope`: nil = hunk under the cursor, "file" =
-- every hunk of the current file, "all" = everything pending.
local function target(scope, bufnr)
  if scope == nil or scope == "" or scope == "hunk" then
    local h = M.hunk_at_cursor(bufnr)
    if not h then
      return nil, "no agent hunk under the cursor (:AgentNextHunk finds one)"
    end
    return { runId = h.runId, uri = h.uri, hunkId = h.id }, nil
  elseif scope == "file" then
    return { uri = vim.uri_from_bufnr(bufnr) }, nil
  elseif scope == "all" then
    return vim.empty_dict(), nil
  end
  return nil, string.format("unknown scope %q: use no argument (hunk under cursor), file or all", scope)
end

local function conflicts_text(conflicts)
  local parts = {}
  for _, c in ipairs(conflicts or {}) do
    table.insert(parts, string.format("%s %s: %s", vim.fn.fnamemodify(vim.uri_to_fname(c.uri or ""), ":~:."),
      c.hunkId or "", c.reason or ""))
  end
  return table.concat(parts, "; ")
end

local function review(command, scope, on_done, reason)
  local bufnr = vim.api.nvim_get_current_buf()
  local client = client_mod.get(bufnr)
  if not client then
    log.notify(vim.log.levels.ERROR, "no agentls server is attached to this buffer")
    return false
  end
  local arg, err = target(scope, bufnr)
  if not arg then
    log.notify(vim.log.levels.WARN, "%s", err)
    return false
  end
  if reason then
    arg.reason = reason
  end
  return client_mod.execute(client, command, arg, function(rpc_err, result)
    if rpc_err then
      log.notify(vim.log.levels.ERROR, "%s: %s", command, rpc_err.message or vim.inspect(rpc_err))
    elseif command == "agentls.accept" and result and result.applied == false then
      local why = result.failureReason or conflicts_text(result.conflicts)
      log.notify(vim.log.levels.WARN, "the change was not applied: %s", why ~= "" and why or "no reason given")
    end
    -- The server also sends agentls/proposalsChanged; refreshing here keeps
    -- the preview right even if that notification is lost.
    preview.refresh(bufnr, client)
    if on_done then
      on_done(rpc_err, result)
    end
  end, bufnr)
end

--- Accepts the hunk under the cursor (scope nil), the file's hunks ("file")
--- or everything pending ("all"). `on_done(err, result)` is optional.
function M.accept(scope, on_done)
  return review("agentls.accept", scope, on_done)
end

--- Rejects like accept() does; the result is { rejected = number }.
--- `reason` (optional) is told to the model on the session's next run.
function M.reject(scope, on_done, reason)
  return review("agentls.reject", scope, on_done, reason)
end

--- :AgentAccept [file|all]
function M.accept_command(args)
  M.accept(args.args)
end

--- :AgentReject [file|all] [reason]: a first word "file" or "all" is the
--- scope (default: the hunk under the cursor); the rest is the reason,
--- told to the model on the session's next run (:AgentFollowup).
function M.reject_command(args)
  local words = args.args or ""
  local first, rest = words:match("^%s*(%S+)%s*(.-)%s*$")
  if first == "file" or first == "all" then
    M.reject(first, nil, rest ~= "" and rest or nil)
  else
    M.reject(nil, nil, words:match("^%s*(.-)%s*$") ~= "" and words:match("^%s*(.-)%s*$") or nil)
  end
end

local function jump(forward)
  local bufnr = vim.api.nvim_get_current_buf()
  local hunks = preview.hunks(bufnr)
  if #hunks == 0 then
    log.notify(vim.log.levels.INFO, "no agent hunks in this buffer")
    return
  end
  local row = vim.api.nvim_win_get_cursor(0)[1] - 1
  local pick
  if forward then
    for _, h in ipairs(hunks) do
      if h.first > row then
        pick = h
        break
      end
    end
    pick = pick or hunks[1] -- wrap around
  else
    for i = #hunks, 1, -1 do
      if hunks[i].first < row then
        pick = hunks[i]
        break
      end
    end
    pick = pick or hunks[#hunks]
  end
  vim.api.nvim_win_set_cursor(0, { pick.first + 1, 0 })
end

--- Moves the cursor to the next hunk's first line (wrapping around).
function M.next_hunk()
  jump(true)
end

--- Moves the cursor to the previous hunk's first line (wrapping around).
function M.prev_hunk()
  jump(false)
end

return M
