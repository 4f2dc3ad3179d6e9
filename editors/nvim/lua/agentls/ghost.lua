-- Ghost text: the server's textDocument/inlineCompletion shown at the
-- cursor while typing in insert mode (docs/completions.md), for Neovim 0.7+
-- (0.12's built-in vim.lsp.inline_completion is an alternative there; set
-- ghost.enabled = false to use it instead).
--
-- Typing never waits: each change in insert mode restarts a short timer
-- (ghost.debounce_ms); when it fires, the request goes out asynchronously,
-- an older one still running is cancelled ($/cancelRequest), and an answer
-- for a buffer or cursor that moved on meanwhile is dropped. The server
-- debounces automatic requests again and answers typing-through from
-- memory, so asking after every character costs no model request.
--
-- Display: Neovim 0.7 has no inline virtual text, so the first line of the
-- completion is an extmark's virt_text drawn over the empty cells after the
-- cursor ('overlay') when the cursor is at the end of its line, and after
-- the line's end ('eol') when text follows the cursor; the further lines
-- are virt_lines below.
local position = require("agentls.position")

local M = {}

local ns = vim.api.nvim_create_namespace("agentls_ghost")
local uv = vim.uv or vim.loop

M.ns = ns

-- bufnr -> { timer, req = {client, id}, ghost = {row, col, text, tick}, maps = {lhs…} }
local state = {}

local defaults = {
  enabled = true,
  debounce_ms = 30,
  keys = { accept = "<M-l>", accept_word = "<M-w>", accept_line = "<M-j>", dismiss = false, trigger = false },
}

--- The ghost options from the plugin's configuration, defaults filled in.
function M.options()
  local cfg = require("agentls").get_config() or {}
  local g = cfg.ghost
  if g == false then
    return vim.tbl_deep_extend("force", defaults, { enabled = false })
  end
  return vim.tbl_deep_extend("force", defaults, type(g) == "table" and g or {})
end

function M.define_highlights()
  vim.cmd("highlight default link AgentlsGhost Comment")
end

local function st(bufnr)
  local s = state[bufnr]
  if not s then
    s = {}
    state[bufnr] = s
  end
  return s
end

local function cursor()
  local c = vim.api.nvim_win_get_cursor(0)
  return c[1] - 1, c[2]
end

local function cancel_request(s)
  if s.req then
    pcall(require("agentls.client").cancel, s.req.client, s.req.id)
    s.req = nil
  end
end

local function stop_timer(s)
  if s.timer then
    s.timer:stop()
    s.timer:close()
    s.timer = nil
  end
end

--- Hides the ghost text of buffer `bufnr` (0: current) and forgets it.
function M.dismiss(bufnr)
  bufnr = (bufnr == nil or bufnr == 0) and vim.api.nvim_get_current_buf() or bufnr
  local s = state[bufnr]
  if s then
    s.ghost = nil
  end
  if vim.api.nvim_buf_is_valid(bufnr) then
    vim.api.nvim_buf_clear_namespace(bufnr, ns, 0, -1)
  end
end

-- Ends everything running for the buffer: the timer, the request, the ghost.
local function reset(bufnr)
  local s = state[bufnr]
  if s then
    stop_timer(s)
    cancel_request(s)
  end
  M.dismiss(bufnr)
end

local function split(text)
  return vim.split(text, "\n", { plain = true })
end

-- Tabs in virtual text would show as ^I: expand them to 'tabstop'.
local function expand(line, bufnr)
  return (line:gsub("\t", string.rep(" ", vim.bo[bufnr].tabstop)))
end

-- Draws ghost `g` ({row, col, text}) in buffer `bufnr`.
local function render(bufnr, g)
  vim.api.nvim_buf_clear_namespace(bufnr, ns, 0, -1)
  local lines = split(g.text)
  local line = vim.api.nvim_buf_get_lines(bufnr, g.row, g.row + 1, false)[1] or ""
  local at_end = g.col >= #line
  local opts = {
    virt_text = { { expand(lines[1], bufnr), "AgentlsGhost" } },
    virt_text_pos = at_end and "overlay" or "eol",
    hl_mode = "combine",
  }
  if #lines > 1 then
    opts.virt_lines = {}
    for i = 2, #lines do
      table.insert(opts.virt_lines, { { expand(lines[i], bufnr), "AgentlsGhost" } })
    end
  end
  vim.api.nvim_buf_set_extmark(bufnr, ns, g.row, math.min(g.col, #line), opts)
end

--- Shows `text` as ghost text at (row 0-based, byte col) of buffer
--- `bufnr`, replacing any other; typing and the accept keys then act on it.
function M.show(bufnr, row, col, text)
  local s = st(bufnr)
  s.ghost = { row = row, col = col, text = text, tick = vim.api.nvim_buf_get_changedtick(bufnr) }
  render(bufnr, s.ghost)
end

--- The ghost text shown in buffer `bufnr` (0: current), or nil.
---@return table|nil {row=0-based, col=byte, text=string}
function M.current(bufnr)
  bufnr = (bufnr == nil or bufnr == 0) and vim.api.nvim_get_current_buf() or bufnr
  local s = state[bufnr]
  return s and s.ghost
end

-- The item of an answer that applies at the cursor (row, col), or nil.
-- agentls answers at most one item whose range is empty at the cursor;
-- an item replacing text elsewhere is not shown (it could not be ghost
-- text at the cursor).
local function pick(result, bufnr, row, col, encoding)
  local items = type(result) == "table" and (result.items or (result[1] and result)) or {}
  local line = vim.api.nvim_buf_get_lines(bufnr, row, row + 1, false)[1] or ""
  for _, it in ipairs(items) do
    local text = type(it.insertText) == "string" and it.insertText or (type(it.insertText) == "table" and it.insertText.value)
    if type(text) == "string" and text ~= "" then
      local r = it.range
      if not r then
        return text
      end
      local s = r.start
      local e = r["end"]
      if s.line == row and e.line == row and position.to_byte(line, s.character, encoding) == col
          and position.to_byte(line, e.character, encoding) == col then
        return text
      end
    end
  end
  return nil
end

-- Sends the request for the cursor of buffer `bufnr` now.
local function request(bufnr, trigger)
  if vim.api.nvim_get_current_buf() ~= bufnr or vim.api.nvim_get_mode().mode:sub(1, 1) ~= "i" then
    return
  end
  local client = require("agentls.client").get(bufnr)
  local caps = client and (client.server_capabilities or {})
  if not client or not caps.inlineCompletionProvider then
    return
  end
  local s = st(bufnr)
  cancel_request(s)
  local row, col = cursor()
  local tick = vim.api.nvim_buf_get_changedtick(bufnr)
  local line = vim.api.nvim_buf_get_lines(bufnr, row, row + 1, false)[1] or ""
  local encoding = client.offset_encoding or "utf-16"
  local params = {
    textDocument = { uri = vim.uri_from_bufnr(bufnr) },
    position = { line = row, character = position.from_byte(line, col, encoding) },
    context = { triggerKind = trigger or 2 },
  }
  local req = { client = client }
  local ok, id = require("agentls.client").request(client, "textDocument/inlineCompletion", params, function(err, result)
    if s.req ~= req then
      return -- a newer request replaced this one
    end
    s.req = nil
    if err or not vim.api.nvim_buf_is_valid(bufnr) or vim.api.nvim_get_current_buf() ~= bufnr then
      return
    end
    local r, c = cursor()
    if vim.api.nvim_buf_get_changedtick(bufnr) ~= tick or r ~= row or c ~= col
        or vim.api.nvim_get_mode().mode:sub(1, 1) ~= "i" then
      return -- typed or moved on meanwhile: the next answer is on its way
    end
    local text = pick(result, bufnr, row, col, encoding)
    if not text then
      M.dismiss(bufnr)
      return
    end
    M.show(bufnr, row, col, text)
  end, bufnr)
  if ok then
    req.id = id
    s.req = req
  end
end

-- Restarts the debounce timer of buffer `bufnr`.
local function schedule(bufnr)
  local s = st(bufnr)
  stop_timer(s)
  local opts = M.options()
  if not opts.enabled then
    return -- turned off by a later setup()
  end
  s.timer = uv.new_timer()
  s.timer:start(opts.debounce_ms, 0, vim.schedule_wrap(function()
    stop_timer(s)
    request(bufnr, 2)
  end))
end

-- After a change or a cursor move in insert mode: keeps the ghost when what
-- was typed is its beginning (shown shortened at once), hides it otherwise,
-- and asks again.
local function on_change(bufnr)
  local s = st(bufnr)
  local row, col = cursor()
  local tick = vim.api.nvim_buf_get_changedtick(bufnr)
  local g = s.ghost
  if g and g.tick == tick and g.row == row and g.col == col then
    return -- nothing moved (the ghost's own accept updated it already)
  end
  if g then
    local line = vim.api.nvim_buf_get_lines(bufnr, row, row + 1, false)[1] or ""
    local typed = row == g.row and col > g.col and line:sub(g.col + 1, col) or nil
    if typed and g.text:sub(1, #typed) == typed and #typed < #g.text then
      s.ghost = { row = row, col = col, text = g.text:sub(#typed + 1), tick = tick }
      render(bufnr, s.ghost)
    else
      M.dismiss(bufnr)
    end
  end
  cancel_request(s)
  schedule(bufnr)
end

-- The part of `text` one step takes: "all", "word" (leading blanks and one
-- word, or one run of punctuation, or a line break) or "line" (up to the
-- line's end; a leading line break with the next line).
local function part(text, how)
  if how == "word" then
    return text:match("^[ \t]*[%w_]+") or text:match("^[ \t]*[^%w_%s]+") or text:match("^[ \t]*\n?") or text
  elseif how == "line" then
    if text:sub(1, 1) == "\n" then
      return "\n" .. (text:sub(2):match("^[^\n]*") or "")
    end
    return text:match("^[^\n]*") or text
  end
  return text
end

--- Inserts the ghost text of the current buffer at the cursor: `how` is
--- "all" (default), "word" or "line". What is left stays as ghost text.
--- Returns false when no ghost text was shown.
function M.accept(how)
  local bufnr = vim.api.nvim_get_current_buf()
  local s = state[bufnr]
  local g = s and s.ghost
  local row, col = cursor()
  if not g or g.row ~= row or g.col ~= col then
    return false
  end
  local take = part(g.text, how or "all")
  if take == "" then
    take = g.text
  end
  local lines = split(take)
  vim.api.nvim_buf_set_text(bufnr, row, col, row, col, lines)
  local nrow = row + #lines - 1
  local ncol = (#lines == 1 and col or 0) + #lines[#lines]
  vim.api.nvim_win_set_cursor(0, { nrow + 1, ncol })
  local rest = g.text:sub(#take + 1)
  stop_timer(s)
  cancel_request(s)
  if rest == "" then
    M.dismiss(bufnr)
  else
    s.ghost = { row = nrow, col = ncol, text = rest, tick = vim.api.nvim_buf_get_changedtick(bufnr) }
    render(bufnr, s.ghost)
  end
  return true
end

--- Asks for a completion at the cursor now (triggerKind 1, no debounce on
--- either side).
function M.trigger()
  local bufnr = vim.api.nvim_get_current_buf()
  stop_timer(st(bufnr))
  request(bufnr, 1)
end

-- An insert-mode key that acts on the ghost text when one is shown and is
-- the key itself otherwise.
local function map(bufnr, lhs, action, desc)
  vim.keymap.set("i", lhs, function()
    local g = M.current(bufnr)
    if g then
      return "<Cmd>lua require('agentls.ghost')." .. action .. "<CR>"
    end
    return lhs
  end, { buffer = bufnr, expr = true, desc = "agentls: " .. desc })
end

--- Starts ghost text in buffer `bufnr` (called when agentls attaches).
function M.attach(bufnr)
  local opts = M.options()
  if not opts.enabled then
    return
  end
  local s = st(bufnr)
  if s.attached then
    return
  end
  s.attached = true
  M.define_highlights()
  local group = vim.api.nvim_create_augroup("agentls_ghost_" .. bufnr, { clear = true })
  vim.api.nvim_create_autocmd({ "TextChangedI", "TextChangedP", "CursorMovedI" }, {
    group = group,
    buffer = bufnr,
    callback = function()
      on_change(bufnr)
    end,
  })
  vim.api.nvim_create_autocmd({ "InsertLeave", "BufLeave" }, {
    group = group,
    buffer = bufnr,
    callback = function()
      reset(bufnr)
    end,
  })
  vim.api.nvim_create_autocmd({ "BufUnload", "BufWipeout" }, {
    group = group,
    buffer = bufnr,
    callback = function()
      reset(bufnr)
      state[bufnr] = nil
      pcall(vim.api.nvim_del_augroup_by_id, group)
    end,
  })
  local keys = opts.keys or {}
  if keys.accept then
    map(bufnr, keys.accept, "accept('all')", "accept the ghost text")
  end
  if keys.accept_word then
    map(bufnr, keys.accept_word, "accept('word')", "accept a word of the ghost text")
  end
  if keys.accept_line then
    map(bufnr, keys.accept_line, "accept('line')", "accept a line of the ghost text")
  end
  if keys.dismiss then
    map(bufnr, keys.dismiss, "dismiss()", "hide the ghost text")
  end
  if keys.trigger then
    vim.keymap.set("i", keys.trigger, M.trigger, { buffer = bufnr, desc = "agentls: ask for ghost text now" })
  end
end

return M
