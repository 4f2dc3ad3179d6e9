-- Run history the user controls (docs/protocol.md "Run history and
-- usage", "Run report"): :AgentRevert takes a run's accepted or applied
-- changes back (agentls.revert: one workspace/applyEdit, so each buffer
-- keeps undo), :AgentReport opens a run's or session's HTML report
-- (agentls.openReport) with the system's opener, :AgentModel picks the
-- model of the next runs (agentls/models; sent as agentls.run's "model"),
-- and :AgentRuns lists runs and sessions with their tokens and cost.
local client_mod = require("agentls.client")
local log = require("agentls.log")
local usage = require("agentls.usage")

local M = {}

local uv = vim.uv or vim.loop

local function run_mod()
  return require("agentls.run")
end

local function err_text(err)
  return type(err) == "table" and (err.message or vim.inspect(err)) or tostring(err)
end

-- The runs the plugin knows (copies, oldest first).
local function runs()
  return run_mod().list()
end

local function find_run(id)
  for _, r in ipairs(runs()) do
    if tostring(r.id) == tostring(id) then
      return r
    end
  end
  return nil
end

--- The run :AgentRevert and :AgentReport act on without an argument: the
--- latest run that ended; with `need_changes` (:AgentRevert), the latest
--- that ended having proposed or applied changes.
function M.default_run(need_changes)
  local list = runs()
  for i = #list, 1, -1 do
    local r = list[i]
    if r.status ~= "running" and (not need_changes or (r.files and #r.files > 0)) then
      return r
    end
  end
  return nil
end

-- The client to ask about run `r` (its own, if still up), else the
-- current buffer's, else any agentls client.
local function client_for(r)
  local c = r and vim.lsp.get_client_by_id(r.client_id)
  if c then
    return c
  end
  return client_mod.get(0) or client_mod.clients()[1]
end

local function display(uri)
  local ok, name = pcall(vim.uri_to_fname, uri)
  return ok and vim.fn.fnamemodify(name, ":~:.") or tostring(uri)
end

--- Shows the result of agentls.revert for run `id`: the run log gets
--- what was reverted and what was left alone (and why), the quickfix list
--- the files left alone, and one message sums it up.
function M.show_revert(id, res)
  local run = run_mod()
  local tag = "[" .. tostring(id) .. "]"
  if type(res) ~= "table" then
    log.notify(vim.log.levels.ERROR, "revert of run %s: unexpected answer %s", id, res)
    return
  end
  if res.failureReason and res.failureReason ~= "" then
    run.append({ tag .. " not reverted: " .. res.failureReason })
    log.notify(vim.log.levels.ERROR, "run %s was not reverted: %s", id, res.failureReason)
    return
  end
  local conflicts = type(res.conflicts) == "table" and res.conflicts or {}
  local n = tonumber(res.reverted) or 0
  if n == 0 and #conflicts == 0 then
    local note = res.note ~= nil and res.note ~= "" and res.note or "nothing to revert"
    run.append({ tag .. " revert: " .. note })
    log.notify(vim.log.levels.INFO, "%s", note)
    return
  end
  local lines = { string.format("%s reverted: %d file%s", tag, n, n == 1 and "" or "s") }
  local items = {}
  for _, c in ipairs(conflicts) do
    table.insert(lines, string.format("  ✗ %s: left alone: %s", display(c.uri), tostring(c.reason)))
    local ok, fname = pcall(vim.uri_to_fname, c.uri)
    table.insert(items, { filename = ok and fname or tostring(c.uri), lnum = 1, text = "not reverted: " .. tostring(c.reason) })
  end
  run.append(lines)
  if #conflicts == 0 then
    log.notify(vim.log.levels.INFO, "run %s reverted: %d file%s (u in a buffer brings its change back)", id, n,
      n == 1 and "" or "s")
    return
  end
  vim.schedule(function()
    vim.fn.setqflist({}, " ", { title = "agentls: not reverted (run " .. tostring(id) .. ")", items = items })
  end)
  log.notify(vim.log.levels.WARN, "run %s reverted: %d file%s; %d left alone: %s (:copen, :AgentLog)", id, n,
    n == 1 and "" or "s", #conflicts, display(conflicts[1].uri) .. ": " .. tostring(conflicts[1].reason))
end

--- Reverts run `id` (default: see M.default_run) with agentls.revert.
--- `on_done(result)` runs after the result is shown (nil on an error).
function M.revert(id, on_done)
  local r
  if id == nil or id == "" then
    r = M.default_run(true)
    if not r then
      log.notify(vim.log.levels.WARN, "no finished run with changes to revert: :AgentRevert {runId} (run ids are in :AgentLog)")
      return false
    end
    id = r.id
  else
    r = find_run(id)
  end
  if r and r.status == "running" then
    log.notify(vim.log.levels.WARN, "run %s is still running: :AgentCancel it or wait for it to end", id)
    return false
  end
  local client = client_for(r)
  if not client then
    log.notify(vim.log.levels.ERROR, "no agentls server to revert run %s", id)
    return false
  end
  return client_mod.execute(client, "agentls.revert", { runId = tostring(id) }, function(err, res)
    if err then
      -- Unknown run, nothing accepted, still running: the server says which.
      log.notify(vim.log.levels.WARN, "%s", err_text(err))
      if on_done then
        on_done(nil)
      end
      return
    end
    M.show_revert(id, res)
    if on_done then
      on_done(res)
    end
  end)
end

--- :AgentRevert [runId]
function M.revert_command(args)
  M.revert(args and args.args or nil)
end

-- Reports opened lately, by URI: the server also asks the editor to open
-- the report (window/showDocument), and it must open once.
local opened = {}

-- The system's opener for a file or URL; nil when there is none.
local function opener(target)
  if vim.fn.has("mac") == 1 then
    return { "open", target }
  elseif vim.fn.has("win32") == 1 then
    return { "cmd.exe", "/c", "start", "", target }
  end
  for _, prog in ipairs({ "xdg-open", "wslview" }) do
    if vim.fn.executable(prog) == 1 then
      return { prog, target }
    end
  end
  return nil
end

--- Opens `uri` (a file: URI or an address) with the system's opener:
--- vim.ui.open on Neovim 0.10+, else xdg-open / open / start. Without one,
--- says where the file is. The same URI asked again within a few seconds
--- opens once (the command's answer and the server's window/showDocument
--- both ask). Returns true when an opener was started.
function M.open_external(uri)
  local now = uv.now()
  if opened[uri] and now - opened[uri] < 5000 then
    return true
  end
  opened[uri] = now
  local target = uri
  if uri:match("^file:") then
    target = vim.uri_to_fname(uri)
  end
  if vim.ui.open then
    local ok, res, err = pcall(vim.ui.open, target)
    if ok and res then
      return true
    end
    log.warn("vim.ui.open(%s): %s", target, ok and err or res)
  else
    local cmd = opener(target)
    if cmd then
      local job = vim.fn.jobstart(cmd, { detach = true })
      if job > 0 then
        return true
      end
      log.warn("%s: could not start (%s)", cmd[1], job)
    end
  end
  log.notify(vim.log.levels.INFO, "open %s (no system opener found)", target)
  return false
end

--- Opens the report of run `id` (or, with `opts.session`, of session
--- `id`) with agentls.openReport; the run log gets the file's path.
--- `on_done(uri)` runs once the server answered (nil on an error).
function M.report(id, opts, on_done)
  opts = opts or {}
  local r
  local arg = vim.empty_dict()
  if opts.session then
    arg = { sessionId = tostring(id) }
  else
    if id == nil or id == "" then
      r = M.default_run(false)
    else
      r = find_run(id)
    end
    id = r and r.id or id
    if id ~= nil and id ~= "" then
      arg = { runId = tostring(id) } -- none: the server's latest run
    end
  end
  local client = client_for(r)
  if not client then
    log.notify(vim.log.levels.ERROR, "no agentls server to write the report")
    return false
  end
  return client_mod.execute(client, "agentls.openReport", arg, function(err, res)
    if err or type(res) ~= "table" or type(res.uri) ~= "string" then
      log.notify(vim.log.levels.WARN, "report: %s", err and err_text(err) or vim.inspect(res))
      if on_done then
        on_done(nil)
      end
      return
    end
    local path = res.uri:match("^file:") and vim.uri_to_fname(res.uri) or res.uri
    local what = opts.session and ("session " .. tostring(id)) or id and ("run " .. tostring(id)) or "the latest run"
    run_mod().append({ string.format("[%s] report: %s", opts.session and ("session " .. tostring(id)) or tostring(id or "latest"), path) })
    if M.open_external(res.uri) then
      log.notify(vim.log.levels.INFO, "report of %s: %s", what, path)
    end
    if on_done then
      on_done(res.uri)
    end
  end)
end

--- :AgentReport [runId], or :AgentReport session [sessionId] (default:
--- the session of the latest run).
function M.report_command(args)
  local words = vim.split(vim.trim(args and args.args or ""), "%s+", { trimempty = true })
  if words[1] == "session" then
    local sid = words[2] or run_mod().last_session
    if not sid then
      log.notify(vim.log.levels.WARN, "which session? :AgentReport session {sessionId} (:AgentRuns lists them)")
      return
    end
    M.report(sid, { session = true })
    return
  end
  M.report(words[1])
end

--- window/showDocument handler: an external document (a run report, an
--- address) opens with the system's opener, once; others go to Neovim's
--- own handler where it has one.
function M.show_document(err, result, ctx, config)
  if type(result) == "table" and result.external and type(result.uri) == "string" then
    return { success = M.open_external(result.uri) }
  end
  local default = vim.lsp.handlers["window/showDocument"]
  if default and default ~= M.show_document then
    return default(err, result, ctx, config)
  end
  return { success = false }
end

-- The model picked for the next runs (nil: the session's or the
-- configured one), and per session the model this editor last sent.
M.selected = nil
local session_models = {}

--- The "model" to send with a run in session `session_id` (nil: a new
--- session): the picked model, unless that session already runs on it (its
--- follow-ups keep their model on the server; nothing needs sending).
function M.model_for(session_id)
  if not M.selected then
    return nil
  end
  if session_id and session_models[session_id] == M.selected then
    return nil
  end
  return M.selected
end

--- The model this editor last sent for session `session_id` (the one its
--- runs use since), or nil.
function M.session_model(session_id)
  return session_id and session_models[session_id] or nil
end

--- Notes that a run of session `session_id` was sent `model`.
function M.sent(session_id, model)
  if session_id and model then
    session_models[session_id] = model
  end
end

local function valid_model(name)
  return type(name) == "string" and name ~= "" and #name <= 256 and not name:find("[%c]")
end

--- Sets the model of the next runs.
function M.set_model(name)
  name = vim.trim(name or "")
  if not valid_model(name) then
    log.notify(vim.log.levels.WARN, "%q is not a model name", name)
    return false
  end
  M.selected = name
  log.notify(vim.log.levels.INFO, "next runs use model %s (their sessions keep it)", name)
  return true
end

--- Asks the server for the models a run may pick (agentls/models) and
--- lets the user choose one with vim.ui.select. `on_done(id)` gets the
--- choice (nil when dismissed).
function M.pick_model(on_done)
  local client = client_mod.get(0) or client_mod.clients()[1]
  if not client then
    log.notify(vim.log.levels.ERROR, "no agentls server is running (open a file first)")
    return false
  end
  return client_mod.request(client, "agentls/models", vim.empty_dict(), function(err, res)
    if err or type(res) ~= "table" or type(res.models) ~= "table" then
      log.notify(vim.log.levels.WARN, "agentls/models: %s", err and err_text(err) or vim.inspect(res))
      return
    end
    if type(res.error) == "string" and res.error ~= "" then
      log.warn("the endpoint's model list: %s", res.error)
    end
    M.known_models = {}
    for _, m in ipairs(res.models) do
      if type(m) == "table" and valid_model(m.id) then
        table.insert(M.known_models, m.id)
      end
    end
    if #M.known_models == 0 then
      log.notify(vim.log.levels.WARN, "no models to choose from%s", res.error and (": " .. res.error) or "")
      return
    end
    local now = M.selected or res.current
    vim.ui.select(M.known_models, {
      prompt = string.format("Model for the next agent runs (now: %s)", now ~= "" and now or "none"),
      format_item = function(id)
        local marks = {}
        if id == res.current then
          table.insert(marks, "configured")
        end
        if id == M.selected then
          table.insert(marks, "picked")
        end
        return #marks > 0 and (id .. " (" .. table.concat(marks, ", ") .. ")") or id
      end,
    }, function(choice)
      if choice then
        M.set_model(choice)
      end
      if on_done then
        on_done(choice)
      end
    end)
  end)
end

--- :AgentModel [name]: without a name, pick from the server's list.
function M.model_command(args)
  local name = args and vim.trim(args.args or "") or ""
  if name ~= "" then
    M.set_model(name)
  else
    M.pick_model()
  end
end

--- Completion for :AgentModel: the models of the last listing.
function M.complete_models(lead)
  local out = {}
  for _, id in ipairs(M.known_models or {}) do
    if id:sub(1, #lead) == lead then
      table.insert(out, id)
    end
  end
  return out
end

--- Completion for :AgentRevert and :AgentReport: known run ids, newest first.
function M.complete_runs(lead)
  local out = {}
  local list = runs()
  for i = #list, 1, -1 do
    local id = tostring(list[i].id)
    if id:sub(1, #lead) == lead then
      table.insert(out, id)
    end
  end
  return out
end

--- The run list's line for run record `r`.
function M.run_item(r)
  -- id and start time tell apart runs of the same task
  local parts = { "[" .. tostring(r.id) .. "]", r.status }
  if r.started then
    table.insert(parts, 2, r.started)
  end
  local u = usage.status_part(r)
  if u ~= "" then
    table.insert(parts, u)
  end
  if r.model then
    table.insert(parts, r.model)
  end
  local prompt = tostring(r.prompt or ""):gsub("%s+", " ")
  if #prompt > 60 then
    prompt = prompt:sub(1, 60) .. "…"
  end
  table.insert(parts, prompt)
  return table.concat(parts, " · ")
end

--- Offers what can be done with run record `r`: revert, report, answer,
--- cancel.
function M.run_actions(r)
  local actions = {}
  if r.status == "running" then
    table.insert(actions, { "Cancel run", function() run_mod().cancel(tostring(r.id)) end })
  else
    table.insert(actions, { "Revert run", function() M.revert(tostring(r.id)) end })
  end
  table.insert(actions, { "Open report", function() M.report(tostring(r.id)) end })
  if type(r.result) == "string" and r.result ~= "" then
    table.insert(actions, { "Show answer", function() run_mod().show_answer(r.id) end })
  end
  vim.ui.select(actions, {
    prompt = "Run " .. tostring(r.id),
    format_item = function(a)
      return a[1]
    end,
  }, function(choice)
    if choice then
      choice[2]()
    end
  end)
end

--- Offers what can be done with session `s` (an agentls/sessions entry).
function M.session_actions(s)
  vim.ui.select({
    { "Open session report", function() M.report(s.id, { session = true }) end },
    { "Follow up", function()
      vim.ui.input({ prompt = "Agent (follow-up): " }, function(prompt)
        if prompt and prompt ~= "" then
          run_mod().run({ prompt = prompt, session_id = s.id })
        end
      end)
    end },
  }, {
    prompt = "Session " .. tostring(s.title or s.id),
    format_item = function(a)
      return a[1]
    end,
  }, function(choice)
    if choice then
      choice[2]()
    end
  end)
end

--- :AgentRuns: this editor's runs (newest first, with tokens, cost and
--- model) and the workspace's sessions (with their totals); choosing one
--- offers revert, report, follow-up.
function M.runs_command()
  local items = {}
  local list = runs()
  for i = #list, 1, -1 do
    table.insert(items, { run = list[i] })
  end
  local client = client_mod.get(0) or client_mod.clients()[1]
  if client then
    local res = client_mod.request_sync(client, "agentls/sessions", vim.empty_dict(), 5000)
    for _, s in ipairs(res and res.sessions or {}) do
      table.insert(items, { session = s })
    end
  end
  if #items == 0 then
    log.notify(vim.log.levels.INFO, "no agent runs or sessions yet")
    return
  end
  vim.ui.select(items, {
    prompt = "Agent runs and sessions",
    format_item = function(it)
      if it.run then
        return M.run_item(it.run)
      end
      local s = it.session
      -- id and time tell apart sessions of the same task (a demo run twice)
      local when = type(s.updated) == "string" and s.updated:gsub("T", " "):sub(1, 16) or "?"
      local line = "session " .. tostring(s.id) .. " · " .. when .. " · " .. tostring(s.title or s.id) .. " · " .. usage.session_line(s)
      if s.model and s.model ~= "" then
        line = line .. " · " .. s.model
      end
      return line
    end,
  }, function(choice)
    if not choice then
      return
    elseif choice.run then
      M.run_actions(choice.run)
    else
      M.session_actions(choice.session)
    end
  end)
end

--- The run id of the run log line under the cursor (the nearest "[id]"
--- line above it), or nil.
function M.run_at_cursor(buf)
  local row = vim.api.nvim_win_get_cursor(0)[1]
  local lines = vim.api.nvim_buf_get_lines(buf, 0, row, false)
  for i = #lines, 1, -1 do
    local id = lines[i]:match("^%[([^%]]+)%]")
    if id and not id:find(" ") then
      return id
    end
  end
  return nil
end

--- Buffer-local keys of the run log: <CR> offers the actions of the run
--- under the cursor, R reverts it, o opens its report.
function M.log_keymaps(buf)
  local function with_run(fn)
    return function()
      local id = M.run_at_cursor(buf)
      if not id then
        log.notify(vim.log.levels.INFO, "no run on this line")
        return
      end
      fn(id)
    end
  end
  local maps = {
    ["<CR>"] = { with_run(function(id)
      M.run_actions(find_run(id) or { id = id, status = "finished" })
    end), "actions of the run under the cursor" },
    R = { with_run(function(id) M.revert(id) end), "revert the run under the cursor" },
    o = { with_run(function(id) M.report(id) end), "open the report of the run under the cursor" },
  }
  for lhs, m in pairs(maps) do
    vim.keymap.set("n", lhs, m[1], { buffer = buf, desc = "agentls: " .. m[2] })
  end
end

--- After run record `r` ended: its session's total (agentls/sessions),
--- as a line of the run log, once the session has more than one run.
function M.session_total(r)
  local client = r.session_id and vim.lsp.get_client_by_id(r.client_id)
  if not client then
    return
  end
  client_mod.request(client, "agentls/sessions", vim.empty_dict(), function(err, res)
    if err or type(res) ~= "table" then
      return
    end
    for _, s in ipairs(res.sessions or {}) do
      if s.id == r.session_id and (s.runs or 0) > 1 then
        run_mod().append({ string.format("  Σ session %s: %s", tostring(s.id), usage.session_line(s)) })
      end
    end
  end)
end

return M
