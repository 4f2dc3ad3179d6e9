-- The run log: the scratch buffer "agentls://runs" that :AgentLog shows,
-- and the lines each agentls/runEvent becomes in it (run.lua keeps the
-- runs' state and feeds it).
local usage = require("agentls.usage")

local M = {}

local log_buf = nil

--- The run log buffer (created on first use; a scratch buffer, never a file).
function M.buffer()
  if log_buf and vim.api.nvim_buf_is_valid(log_buf) then
    return log_buf
  end
  log_buf = vim.api.nvim_create_buf(false, true)
  vim.api.nvim_buf_set_name(log_buf, "agentls://runs")
  vim.bo[log_buf].filetype = "agentls-log"
  vim.bo[log_buf].modifiable = false
  require("agentls.history").log_keymaps(log_buf)
  return log_buf
end

--- Appends `lines` to the run log (and keeps windows showing it at its
--- end).
function M.append(lines)
  local buf = M.buffer()
  vim.bo[buf].modifiable = true
  local count = vim.api.nvim_buf_line_count(buf)
  local first = vim.api.nvim_buf_get_lines(buf, 0, 1, false)[1]
  if count == 1 and first == "" then
    vim.api.nvim_buf_set_lines(buf, 0, 1, false, lines)
  else
    vim.api.nvim_buf_set_lines(buf, count, count, false, lines)
  end
  vim.bo[buf].modifiable = false
  for _, win in ipairs(vim.api.nvim_list_wins()) do
    if vim.api.nvim_win_get_buf(win) == buf then
      vim.api.nvim_win_set_cursor(win, { vim.api.nvim_buf_line_count(buf), 0 })
    end
  end
end

--- The line after run `r`'s end: its tokens and cost, and the commands
--- that act on it.
function M.end_line(r)
  local parts = {}
  local u = usage.line(r.usage)
  if u ~= "" then
    table.insert(parts, u)
  end
  table.insert(parts, ":AgentReport " .. tostring(r.id))
  if r.files and #r.files > 0 then
    table.insert(parts, ":AgentRevert " .. tostring(r.id))
  end
  return "  ↳ " .. table.concat(parts, " · ")
end

--- Writes out run record `r`'s streamed text (it arrives in fragments)
--- line by line, and keeps it as r.streamed.
function M.flush(r)
  if #r.text == 0 then
    return
  end
  local text = table.concat(r.text)
  r.text = {}
  r.streamed = text
  local lines = {}
  for line in (text .. "\n"):gmatch("(.-)\n") do
    table.insert(lines, "  │ " .. line)
  end
  if lines[#lines] == "  │ " then
    table.remove(lines)
  end
  M.append(lines)
end

-- vim.json.encode escapes "/" as "\/", which JSON allows but nobody wants
-- to read: undo it (an escaped backslash before a slash stays as it is).
local function json_text(v)
  local s = vim.json.encode(v)
  return (s:gsub("(\\+)/", function(bs)
    if #bs % 2 == 1 then
      return bs:sub(2) .. "/"
    end
  end))
end

--- `v` (text, or a value as JSON) on one line of at most `max` bytes.
function M.one_line(v, max)
  local s = type(v) == "string" and v or json_text(v)
  s = s:gsub("%s+", " ")
  if #s > max then
    s = s:sub(1, max) .. "…"
  end
  return s
end

local todo_marks = { pending = "[ ]", in_progress = "[~]", completed = "[x]" }

--- How a run's checks ended, from finished/failed/cancelled's checks
--- ({ {name, passed, notRun} }): "checks passed (test, lint)", "checks
--- failed: test", then "could not run: lint" for checks that neither
--- passed nor failed (command not installed); nil when no check ran.
function M.checks_summary(checks)
  if type(checks) ~= "table" or #checks == 0 then
    return nil
  end
  local passed, failed, not_run = {}, {}, {}
  for _, c in ipairs(checks) do
    if c.notRun then
      table.insert(not_run, tostring(c.name))
    else
      table.insert(c.passed and passed or failed, tostring(c.name))
    end
  end
  local parts = {}
  if #failed > 0 then
    table.insert(parts, "checks failed: " .. table.concat(failed, ", "))
  elseif #passed > 0 then
    table.insert(parts, "checks passed (" .. table.concat(passed, ", ") .. ")")
  end
  if #not_run > 0 then
    table.insert(parts, "could not run: " .. table.concat(not_run, ", "))
  end
  return table.concat(parts, "; ")
end

--- "introduces N problem(s)" from finished's problems (the problems the
--- run introduced that its language server still reports), nil when there
--- are none or no language server judged the run.
function M.problems_summary(n)
  if type(n) ~= "number" or n <= 0 then
    return nil
  end
  return string.format("introduces %d problem%s", n, n == 1 and "" or "s")
end

-- The problems one change introduced (agentls/runEvent "problems"): a
-- line for the file, one per problem; a change that fixed what the run
-- had broken says so (only then: "no problems left" of a file nothing was
-- reported in tells of a trouble that never was). Nothing for a change
-- that introduced nothing. `r` remembers the files with problems.
local function problem_lines(ev, r)
  local name = ev.uri and vim.fn.fnamemodify(vim.uri_to_fname(ev.uri), ":~:.") or "?"
  local n = tonumber(ev.introduced) or 0
  r.troubled = r.troubled or {}
  local key = ev.uri or "?"
  if n == 0 then
    if ev.outstanding == 0 and r.troubled[key] then
      r.troubled[key] = nil
      return { "  ✓ " .. name .. ": no problems left" }
    end
    return {}
  end
  r.troubled[key] = true
  local lines = { string.format("  ⚠ %s introduces %d problem%s", name, n, n == 1 and "" or "s") }
  for i, it in ipairs(ev.items or {}) do
    if i > 10 then
      table.insert(lines, string.format("      … and %d more", n - 10))
      break
    end
    local line = it.range and it.range.start and (it.range.start.line + 1) or 0
    table.insert(lines, string.format("    %s:%d: %s", name, line, M.one_line(it.message or "", 200)))
  end
  return lines
end

-- A check's result, then its output (the server keeps the tail): whole
-- for a failure, the last lines for a pass.
local function check_lines(ev)
  local secs = type(ev.seconds) == "number" and string.format(" (%.1fs)", ev.seconds) or ""
  local head
  if ev.notRun then
    -- The output's first line is the reason ("could not run: sh: 1: go:
    -- not found"); what follows is the hint.
    head = "  ⚠ check " .. tostring(ev.name) .. " " .. tostring((ev.output or "could not run"):match("^[^\n]*"))
  elseif ev.passed then
    head = "  ✓ check " .. tostring(ev.name) .. " passed" .. secs
  elseif ev.exitCode == -1 then
    head = "  ✗ check " .. tostring(ev.name) .. " failed" .. secs
  else
    head = string.format("  ✗ check %s failed: exit code %s%s", tostring(ev.name), tostring(ev.exitCode), secs)
  end
  local lines = { head }
  local out = {}
  for line in ((ev.output or "") .. "\n"):gmatch("(.-)\n") do
    table.insert(out, line)
  end
  while #out > 0 and out[#out] == "" do
    table.remove(out)
  end
  local first = ev.passed and math.max(1, #out - 2) or (ev.notRun and 2 or 1)
  for i = first, #out do
    table.insert(lines, "    │ " .. out[i])
  end
  return lines
end

--- The plan's progress line: "2/5 · current item", as the server's
--- $/progress shows it.
function M.plan_progress(todos)
  if type(todos) ~= "table" or #todos == 0 then
    return ""
  end
  local done, current = 0, nil
  for _, t in ipairs(todos) do
    if t.status == "completed" then
      done = done + 1
    elseif t.status == "in_progress" and not current then
      current = t.content
    end
  end
  if current then
    return string.format("%d/%d · %s", done + 1, #todos, current)
  end
  return string.format("%d/%d done", done, #todos)
end

--- The log lines of event `ev` of run record `r`.
function M.event_lines(r, ev)
  local kind = ev.kind
  local tag = "[" .. tostring(r.id) .. "]"
  if ev.parentRunId then
    -- A sub-agent of the task tool: its steps, indented under the parent.
    local sub = "    ⤷ [" .. tostring(ev.runId) .. "]"
    if kind == "started" then
      return { sub .. " sub-agent: " .. M.one_line(ev.summary or ev.text or "", 160) }
    elseif kind == "toolCall" then
      return { string.format("%s → %s %s", sub, ev.tool or "?", ev.args and M.one_line(ev.args, 140) or "") }
    elseif kind == "finished" or kind == "failed" or kind == "cancelled" then
      return { sub .. " " .. kind }
    end
    return {}
  end
  if kind == "todo" then
    local lines = { "  ☰ plan " .. M.plan_progress(ev.todos) }
    for _, t in ipairs(ev.todos or {}) do
      table.insert(lines, string.format("    %s %s", todo_marks[t.status] or "[?]", M.one_line(t.content or "", 160)))
    end
    return lines
  elseif kind == "started" then
    return { tag .. " started" .. (ev.text and (": " .. M.one_line(ev.text, 200)) or "") }
  elseif kind == "toolCall" and ev.parentCallId then
    -- A script's own call: indented under it.
    return { string.format("      · %s %s", ev.tool or "?", ev.args and M.one_line(ev.args, 140) or "") }
  elseif kind == "toolResult" and ev.parentCallId then
    return ev.isError and { string.format("      ✗ %s %s", ev.tool or "", M.one_line(ev.summary or "", 140)) } or {}
  elseif kind == "toolCall" then
    return { string.format("  → %s %s", ev.tool or "?", ev.args and M.one_line(ev.args, 160) or "") }
  elseif kind == "toolResult" then
    return { string.format("  %s %s %s", ev.isError and "✗" or "✓", ev.tool or "",
      M.one_line(ev.summary or ev.error or "", 160)) }
  elseif kind == "proposal" then
    local name = ev.uri and vim.fn.fnamemodify(vim.uri_to_fname(ev.uri), ":~:.") or "?"
    return { "  ✎ proposal for " .. name }
  elseif kind == "check" then
    return check_lines(ev)
  elseif kind == "problems" then
    return problem_lines(ev, r)
  elseif kind == "finished" then
    local summary = M.checks_summary(ev.checks)
    local probs = M.problems_summary(ev.problems)
    local lines = { tag .. " finished" .. (summary and (" · " .. summary) or "") .. (probs and (" · " .. probs) or "") }
    if vim.trim(ev.text or "") == vim.trim(r.streamed or "") then
      return lines -- the answer was streamed just before: do not repeat it
    end
    for line in ((ev.text or "") .. "\n"):gmatch("(.-)\n") do
      if line ~= "" then
        table.insert(lines, "  " .. line)
      end
    end
    return lines
  elseif kind == "failed" then
    local summary = M.checks_summary(ev.checks)
    return { tag .. " failed: " .. M.one_line(ev.error or ev.summary or "unknown error", 400) .. (summary and (" · " .. summary) or "") }
  elseif kind == "cancelled" then
    local summary = M.checks_summary(ev.checks)
    return { tag .. " cancelled" .. (summary and (" · " .. summary) or "") }
  end
  return { string.format("  (%s) %s", tostring(kind), M.one_line(ev, 160)) }
end

--- Opens the run log in a split below (or goes to the window showing it)
--- and moves the cursor into it, at its last line: the user asked to read
--- it. `opts.focus = false` leaves the cursor where it is.
function M.open(opts)
  local focus = not (type(opts) == "table" and opts.focus == false)
  local buf = M.buffer()
  local win
  for _, w in ipairs(vim.api.nvim_list_wins()) do
    if vim.api.nvim_win_get_buf(w) == buf then
      win = w
    end
  end
  local cur = vim.api.nvim_get_current_win()
  if not win then
    vim.cmd("botright split")
    win = vim.api.nvim_get_current_win()
    vim.api.nvim_win_set_buf(win, buf)
    vim.api.nvim_win_set_height(win, math.max(5, math.floor(vim.o.lines / 4)))
  end
  vim.api.nvim_win_set_cursor(win, { vim.api.nvim_buf_line_count(buf), 0 })
  vim.api.nvim_set_current_win(focus and win or cur)
end

return M
