-- Inline diff previews of pending proposals. For each hunk the lines it
-- replaces are highlighted (AgentlsDelete, linked to DiffDelete) and the
-- lines it would produce are shown below them as virtual lines (AgentlsAdd,
-- linked to DiffAdd). Hunks are fetched with agentls/proposals {uri} when a
-- buffer attaches and whenever the server sends agentls/proposalsChanged.
--
-- Each hunk owns an extmark spanning the lines it replaces; extmarks move
-- with the text, so hunk lookups by cursor stay right while the user edits.
local log = require("agentls.log")
local position = require("agentls.position")

local M = {}

--- The namespace of every preview extmark.
M.ns = vim.api.nvim_create_namespace("agentls_preview")

local state = {} -- bufnr -> { gen, client_id, hunks = {...} }

--- Defines the highlight groups (default links, so colorschemes and users
--- can override them).
function M.define_highlights()
  vim.cmd([[
    highlight default link AgentlsDelete DiffDelete
    highlight default link AgentlsAdd DiffAdd
    highlight default link AgentlsConflict DiffText
    highlight default link AgentlsHint Comment
    highlight default link AgentlsProblem DiagnosticWarn
  ]])
end

local function buf_state(bufnr)
  local st = state[bufnr]
  if not st then
    st = { gen = 0, hunks = {} }
    state[bufnr] = st
  end
  return st
end

--- Removes every preview from buffer `bufnr`.
function M.clear(bufnr)
  if vim.api.nvim_buf_is_valid(bufnr) then
    vim.api.nvim_buf_clear_namespace(bufnr, M.ns, 0, -1)
  end
  if state[bufnr] then
    state[bufnr].hunks = {}
  end
end

local function split(text)
  local out = {}
  for line in (text .. "\n"):gmatch("(.-)\r?\n") do
    table.insert(out, line)
  end
  return out
end

local function expand_tabs(line, tabstop)
  if not line:find("\t", 1, true) then
    return line
  end
  local out = {}
  local width = 0
  for ch in line:gmatch("[%z\1-\127\194-\244][\128-\191]*") do
    if ch == "\t" then
      local n = tabstop - (width % tabstop)
      table.insert(out, string.rep(" ", n))
      width = width + n
    else
      table.insert(out, ch)
      width = width + vim.fn.strdisplaywidth(ch)
    end
  end
  return table.concat(out)
end

local function strip_newline(s)
  return (s:gsub("\r?\n$", ""))
end

--- Works out how hunk `h` (LSP range + newText) shows in a buffer holding
--- `lines`: the rows it replaces (`first`..`last`, 0-based; nil for a pure
--- insertion of whole lines), and the virtual lines to show with the row
--- they hang from (`anchor`, above it when `above`).
function M.layout(lines, h, encoding)
  local n = #lines
  local s, e = h.range.start, h.range["end"]
  local new = h.newText or ""
  if n == 1 and lines[1] == "" and s.line == 0 and s.character == 0 and (e.line > 0 or e.character == 0) then
    -- An empty buffer (a new file the agent proposes: Neovim shows it as
    -- one empty line): the whole file, as lines below that line.
    return { anchor = 0, above = false, virt = new == "" and {} or split(strip_newline(new)) }
  end
  local function col(row, char)
    return row < n and position.to_byte(lines[row + 1], char, encoding) or 0
  end
  local sr, er = math.min(s.line, n), math.min(e.line, n)
  local sc, ec = col(sr, s.character), col(er, e.character)
  if sr == n or (sr == er and sc == ec and sc == 0 and new:match("\n$")) then
    -- Whole lines inserted before row sr (or after the last line).
    local virt = split(strip_newline(new))
    if sr == n then
      return { anchor = math.max(n - 1, 0), above = false, virt = virt }
    end
    return { anchor = sr, above = true, virt = virt }
  end
  local last = er
  if er == n or (ec == 0 and er > sr) then
    last = er - 1 -- the range ends at the start of a line: that line is untouched
  end
  local block = lines[sr + 1]:sub(1, sc) .. new
  if last == er then
    block = block .. lines[er + 1]:sub(ec + 1)
  end
  local virt
  if last ~= er then
    virt = block == "" and {} or split(strip_newline(block))
  else
    virt = split(block)
  end
  return { first = sr, last = last, anchor = last, above = false, virt = virt }
end

--- "introduces N problem(s)" for a proposal whose problems the server's
--- language server reported (agentls/proposals problems), else nil.
function M.problems_note(proposal)
  local n = type(proposal.problems) == "table" and #proposal.problems or 0
  if n == 0 then
    return nil
  end
  local first = proposal.problems[1]
  local where = first.range and first.range.start and first.range.start.line and ("line " .. (first.range.start.line + 1) .. ": ") or ""
  return string.format("introduces %d problem%s (%s%s)", n, n == 1 and "" or "s", where,
    (tostring(first.message or ""):gsub("\n.*", "")))
end

local function place(bufnr, lines, proposal, h, encoding, opts, first)
  local lay = M.layout(lines, h, encoding)
  -- A hunk may carry its own status (and the reason it is conflicted);
  -- otherwise the proposal's applies.
  local conflicted = (h.status or proposal.status) == "conflicted"
  -- Superseded: another run's change that was accepted already made this
  -- one (or changed its lines). Its lines are not drawn again: they would
  -- read as the same block twice.
  local superseded = conflicted and type(h.supersededBy) == "string" and h.supersededBy ~= ""
  local tabstop = vim.bo[bufnr].tabstop
  local virt = {}
  if not superseded then
    for _, l in ipairs(lay.virt) do
      table.insert(virt, { { expand_tabs(l, tabstop), conflicted and "AgentlsConflict" or "AgentlsAdd" } })
    end
  end
  local hint
  if opts.hint ~= false then
    -- Short enough for the window edge; the reason is in :AgentExplain's
    -- float (a reason can be long and hold the changed text).
    if superseded then
      hint = { { "  agent: already changed by an accepted change of another run: :AgentExplain / :AgentReject", "AgentlsHint" } }
    elseif conflicted then
      hint = { { "  agent: conflicted (you changed these lines): :AgentExplain / :AgentReject", "AgentlsHint" } }
    elseif type(h.lastError) == "string" and h.lastError ~= "" then
      hint = { { "  agent: last accept failed: :AgentExplain / :AgentAccept / :AgentReject", "AgentlsHint" } }
    elseif proposal.source == "next-edit" then
      -- A suggestion nobody asked for: say what it is and the key that takes it.
      local key = require("agentls.nextedit").key()
      hint = { { "  next edit: " .. (key and key .. " / " or "") .. ":AgentAccept / :AgentReject", "AgentlsHint" } }
    else
      hint = { { "  agent: :AgentAccept / :AgentReject", "AgentlsHint" } }
    end
    -- The proposal's problems (its language server's words), on its first
    -- hunk: what accepting it would break.
    local note = first and M.problems_note(proposal)
    if note then
      table.insert(hint, { "  ⚠ " .. note, "AgentlsProblem" })
    end
  end
  local hunk = {
    id = h.id,
    runId = proposal.runId,
    source = proposal.source,
    uri = proposal.uri,
    status = conflicted and "conflicted" or "pending",
    reason = h.reason,
    supersededBy = h.supersededBy,
    created = proposal.created,
    lastError = h.lastError,
    oldText = h.oldText,
    newText = h.newText,
    problems = type(proposal.problems) == "table" and #proposal.problems or nil,
  }
  if lay.first and superseded then
    hunk.mark = vim.api.nvim_buf_set_extmark(bufnr, M.ns, lay.first, 0, {
      end_row = lay.last,
      end_col = #(lines[lay.last + 1] or ""),
      virt_text = hint,
    })
  elseif lay.first then
    local last_text = lines[lay.last + 1] or ""
    hunk.mark = vim.api.nvim_buf_set_extmark(bufnr, M.ns, lay.first, 0, {
      end_row = lay.last,
      end_col = #last_text,
      hl_group = conflicted and "AgentlsConflict" or "AgentlsDelete",
      hl_eol = true,
      virt_text = hint,
    })
    if #virt > 0 then
      hunk.vmark = vim.api.nvim_buf_set_extmark(bufnr, M.ns, lay.last, 0, { virt_lines = virt })
    end
  else
    hunk.mark = vim.api.nvim_buf_set_extmark(bufnr, M.ns, lay.anchor, 0, {
      virt_lines = #virt > 0 and virt or nil,
      virt_lines_above = lay.above,
      virt_text = hint,
    })
  end
  return hunk
end

-- A proposed new file whose text has no final newline, shown in the empty
-- buffer Neovim opened for its path: Neovim would send that buffer as one
-- line ending ('eol') and write it with one ('fixeol'), so the file could
-- never be created byte for byte. Turn both off and tell the server the
-- buffer's real text (one full-text didChange: Neovim's incremental sync
-- never reports 'eol'), so the proposal applies to an empty document and
-- the saved file is exactly the proposed text.
local function fit_new_file(bufnr, client, proposal)
  local text = proposal.proposedText
  if not proposal.created or type(text) ~= "string" or text == "" or text:match("\n$") then
    return false
  end
  local lines = vim.api.nvim_buf_get_lines(bufnr, 0, -1, false)
  if #lines ~= 1 or lines[1] ~= "" or not vim.bo[bufnr].eol then
    return false
  end
  vim.bo[bufnr].eol = false
  vim.bo[bufnr].fixeol = false
  local util = vim.lsp.util
  local version = (util.buf_versions and util.buf_versions[bufnr]) or vim.b[bufnr].changedtick
  client.notify("textDocument/didChange", {
    textDocument = { uri = vim.uri_from_bufnr(bufnr), version = version },
    contentChanges = { { text = "" } },
  })
  log.debug("new file %s: no final newline proposed; 'noeol' 'nofixeol' set and the empty text sent", proposal.uri)
  return true
end

--- Shows `proposals` (the agentls/proposals result's list) in buffer
--- `bufnr`, replacing what was shown; proposals for other files are skipped.
function M.render(bufnr, proposals, encoding)
  M.clear(bufnr)
  local st = buf_state(bufnr)
  local cfg = require("agentls").get_config() or {}
  local opts = cfg.preview or {}
  local lines = vim.api.nvim_buf_get_lines(bufnr, 0, -1, false)
  for _, p in ipairs(proposals or {}) do
    if position.uri_matches(p.uri, bufnr) then
      for i, h in ipairs(p.hunks or {}) do
        local ok, hunk = pcall(place, bufnr, lines, p, h, encoding, opts, i == 1)
        if ok then
          table.insert(st.hunks, hunk)
        else
          log.warn("cannot show hunk %s of %s: %s", h.id, p.uri, hunk)
        end
      end
    end
  end
end

--- Fetches the pending proposals of buffer `bufnr` from its agentls client
--- and shows them. Answers that arrive after a newer refresh started are
--- dropped; a buffer edited while the request was out is fetched again.
function M.refresh(bufnr, client)
  client = client or require("agentls.client").get(bufnr)
  if not client or not vim.api.nvim_buf_is_valid(bufnr) then
    return
  end
  local cfg = require("agentls").get_config() or {}
  if cfg.preview and cfg.preview.enabled == false then
    return
  end
  local st = buf_state(bufnr)
  st.gen = st.gen + 1
  st.client_id = client.id
  local gen, tick = st.gen, vim.b[bufnr].changedtick
  local params = { uri = vim.uri_from_bufnr(bufnr) }
  require("agentls.client").request(client, "agentls/proposals", params, function(err, result)
    if st.gen ~= gen or not vim.api.nvim_buf_is_valid(bufnr) then
      return
    end
    if err then
      log.debug("agentls/proposals for %s: %s", params.uri, err.message or err)
      return
    end
    if vim.b[bufnr].changedtick ~= tick then
      return M.refresh(bufnr, client)
    end
    for _, p in ipairs(result and result.proposals or {}) do
      if position.uri_matches(p.uri, bufnr) and fit_new_file(bufnr, client, p) then
        return M.refresh(bufnr, client)
      end
    end
    M.render(bufnr, result and result.proposals or {}, client.offset_encoding or "utf-16")
    st.refreshed = (st.refreshed or 0) + 1
  end, bufnr)
end

--- Handles agentls/proposalsChanged {uri}: refreshes the buffers of that
--- file attached to client `client_id` (all of them when uri is absent).
function M.on_changed(client_id, params)
  local uri = params and params.uri
  for _, bufnr in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_is_loaded(bufnr) and vim.lsp.buf_is_attached(bufnr, client_id)
        and (uri == nil or position.uri_matches(uri, bufnr)) then
      M.refresh(bufnr, vim.lsp.get_client_by_id(client_id))
    end
  end
end

--- Clears the previews that came from client `client_id` (it exited).
function M.on_exit(client_id)
  for bufnr, st in pairs(state) do
    if st.client_id == client_id then
      M.clear(bufnr)
      state[bufnr] = nil
    end
  end
end

--- The hunks shown in buffer `bufnr`, in buffer order, each with its
--- current rows: { id, runId, source ("next-edit" for a suggestion, else
--- nil), uri, status, first, last, supersededBy,
--- created, problems (the count its proposal introduces, nil when no
--- language server judged it), … } (0-based rows; a pure insertion has first == last == the
--- row it hangs from).
function M.hunks(bufnr)
  local out = {}
  for i, h in ipairs((state[bufnr] or {}).hunks or {}) do
    local pos = vim.api.nvim_buf_get_extmark_by_id(bufnr, M.ns, h.mark, { details = true })
    if pos and pos[1] then
      local last = pos[3] and pos[3].end_row or pos[1]
      table.insert(out, {
        id = h.id, runId = h.runId, source = h.source, uri = h.uri, status = h.status, first = pos[1], last = last, index = i,
        reason = h.reason, lastError = h.lastError, oldText = h.oldText, newText = h.newText,
        supersededBy = h.supersededBy, created = h.created, problems = h.problems,
      })
    end
  end
  table.sort(out, function(a, b) -- by position, then in the server's order
    if a.first ~= b.first then
      return a.first < b.first
    end
    return a.index < b.index
  end)
  return out
end

--- How many times buffer `bufnr`'s previews were refreshed from the server
--- (for tests and statuslines).
function M.refresh_count(bufnr)
  return (state[bufnr] or {}).refreshed or 0
end

return M
