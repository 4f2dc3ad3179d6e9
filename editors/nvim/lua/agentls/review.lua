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

local function expand(s)
  return (tostring(s or ""):gsub("\t", "    "))
end

-- The server's reasons quote the text they cite Go-style ("\treturn x\n"):
-- show it as text (a tab as spaces, a line end as ⏎).
local function readable(reason)
  local s = tostring(reason or "")
  s = s:gsub("\\t", "    "):gsub("\\n", "⏎"):gsub('\\"', '"')
  return expand(s)
end

local function text_lines(s)
  local out = {}
  if type(s) ~= "string" or s == "" then
    return out
  end
  for line in (s:gsub("\n$", "") .. "\n"):gmatch("(.-)\n") do
    table.insert(out, expand(line))
  end
  return out
end

--- The lines that explain hunk `h` (a preview.hunks() entry): what the
--- agent proposed, why it cannot apply, and what the user can do.
function M.explain_lines(h, reason)
  local lines = {}
  reason = reason or h.reason
  local superseded = type(h.supersededBy) == "string" and h.supersededBy ~= ""
  if h.status == "conflicted" and superseded then
    table.insert(lines, string.format("Agent change at line %d is not applied", h.first + 1))
    -- The server's reason says which: the same change ("already makes
    -- this change") or a different one to the same lines ("overlaps").
    if type(reason) == "string" and reason:find("already makes this change", 1, true) then
      table.insert(lines, string.format("Another run's change (%s), which you accepted, already made this same change:", h.supersededBy))
      table.insert(lines, "applying this one too would apply it twice.")
    else
      table.insert(lines, string.format("Another run's change (%s), which you accepted, changed these lines differently:", h.supersededBy))
      table.insert(lines, "the two changes overlap, so only one of them can be applied.")
    end
    if type(reason) == "string" and reason ~= "" then
      table.insert(lines, "Why: " .. readable(reason))
    end
  elseif h.status == "conflicted" then
    table.insert(lines, string.format("Agent change at line %d is conflicted", h.first + 1))
    table.insert(lines, "You changed these lines after the agent proposed its change, so it is not applied.")
    if type(reason) == "string" and reason ~= "" then
      table.insert(lines, "Why: " .. readable(reason))
    end
  else
    table.insert(lines, string.format("Agent change at line %d", h.first + 1))
    if type(reason) == "string" and reason ~= "" then
      -- An accept left it out (e.g. another run's change taken with it).
      table.insert(lines, "Not applied: " .. readable(reason))
    end
    if type(h.lastError) == "string" and h.lastError ~= "" then
      table.insert(lines, "Last accept failed: " .. expand(h.lastError))
    end
  end
  table.insert(lines, "Proposed:")
  for _, l in ipairs(text_lines(h.oldText)) do
    table.insert(lines, "- " .. l)
  end
  for _, l in ipairs(text_lines(h.newText)) do
    table.insert(lines, "+ " .. l)
  end
  table.insert(lines, "Options:")
  if h.status == "conflicted" and superseded then
    table.insert(lines, "  :AgentReject        drop this change")
    table.insert(lines, "  :AgentRun {prompt}  ask the agent again on the text as it is now")
  elseif h.status == "conflicted" then
    table.insert(lines, "  :AgentReject        drop this change")
    table.insert(lines, "  undo your edit      the change becomes pending again")
    table.insert(lines, "  :AgentRun {prompt}  ask the agent again on the text as it is now")
  else
    table.insert(lines, "  :AgentAccept / :AgentReject")
  end
  return lines
end

-- Shows lines in the explain float. `focus` (as :AgentExplain twice does)
-- moves into an explain float already open; without it an open one is
-- replaced, so a second accept's conflicts never pull the cursor away.
local function show_float(lines, focus)
  vim.lsp.util.open_floating_preview(lines, "", { border = "rounded", focus_id = "agentls_explain", max_width = 100,
    focus = focus == true })
end

--- Explains the hunk under the cursor in a float (:AgentExplain).
function M.explain()
  local h = M.hunk_at_cursor(0)
  if not h then
    log.notify(vim.log.levels.INFO, "no agent hunk under the cursor (:AgentNextHunk finds one)")
    return
  end
  show_float(M.explain_lines(h), true)
end

--- Tells the user about conflicts an accept ran into, where they look: the
--- quickfix list gets one entry per conflicted hunk (file, line, reason)
--- and, for the buffer in view, a float shows the first one in full. The
--- message says what happened to the rest: `applied` is the accept
--- result's (true: the other selected changes were applied).
function M.show_conflicts(bufnr, conflicts, applied)
  local items, first = {}, nil
  for _, c in ipairs(conflicts or {}) do
    local cbuf = c.uri and vim.uri_to_bufnr(c.uri) or bufnr
    local hunk
    for _, h in ipairs(preview.hunks(cbuf)) do
      if h.id == c.hunkId then
        hunk = h
      end
    end
    table.insert(items, {
      bufnr = cbuf,
      lnum = hunk and hunk.first + 1 or 1,
      text = "agent change conflicted: " .. readable(c.reason or "you changed its lines") .. " (:AgentReject drops it)",
      type = "W",
    })
    if hunk and cbuf == bufnr and not first then
      first = { hunk = hunk, reason = c.reason }
    end
  end
  if #items == 0 then
    return
  end
  vim.fn.setqflist({}, " ", { title = "agentls conflicts", items = items })
  if first then
    show_float(M.explain_lines(first.hunk, first.reason))
  end
  local what = applied and "the other changes were applied; " or "nothing was applied; "
  log.notify(vim.log.levels.WARN, "%s%d change%s not applied: conflicted (details in the float; :copen lists them)",
    what, #items, #items == 1 and "" or "s")
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
    elseif command == "agentls.accept" and result and result.conflicts and #result.conflicts > 0 then
      M.show_conflicts(bufnr, result.conflicts, result.applied == true)
    elseif command == "agentls.accept" and result and result.applied == false then
      log.notify(vim.log.levels.WARN, "the change was not applied: %s", result.failureReason or "no reason given")
    elseif command == "agentls.accept" and result and result.verifying then
      -- Neovim reported the edit after the answer (a debounce_text_changes
      -- longer than the server's 0.5 s wait): the server records the accept
      -- when the didChange shows it, or tells with window/showMessage that
      -- it did not, and sends agentls/proposalsChanged either way.
      log.debug("accept applied; the server records it once the edit's didChange arrives")
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
