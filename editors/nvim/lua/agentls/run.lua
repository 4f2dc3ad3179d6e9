-- Agent runs: :AgentRun starts one with workspace/executeCommand agentls.run,
-- the server's agentls/runEvent notifications feed the run log
-- (runlog.lua) and the run states shown by status(), :AgentCancel stops a
-- run.
local client_mod = require("agentls.client")
local log = require("agentls.log")
local position = require("agentls.position")
local runlog = require("agentls.runlog")
local usage = require("agentls.usage")

local M = {}

-- Runs by key "<client id>:<run id>": { client_id, id, prompt, status,
-- seq (last event's), tools (calls so far), text (unflushed fragments),
-- streamed (text flushed just before the current event), result, error,
-- checks (the end event's { {name, passed} }), usage (usage.lua's tally,
-- then the run's totals), files (URIs the run proposed or applied changes
-- to), model (the one this editor sent), problems (the end event's count
-- of problems the run introduced and left) }.
-- Status is "running", "finished", "failed" or "cancelled".
local runs = {}
local order = {} -- run keys, oldest first

local function key(client_id, run_id)
  return tostring(client_id) .. ":" .. tostring(run_id)
end

local function get_run(client_id, run_id)
  local k = key(client_id, run_id)
  local r = runs[k]
  if not r then
    r = { client_id = client_id, id = run_id, status = "running", seq = 0, tools = 0, text = {}, started = os.date("%H:%M") }
    runs[k] = r
    table.insert(order, k)
  end
  return r
end

-- The run log (runlog.lua): its buffer, and the lines each event becomes.
M.log_buffer = runlog.buffer
M.append = runlog.append
M.open_log = runlog.open
M.plan_progress = runlog.plan_progress
M.checks_summary = runlog.checks_summary
M.problems_summary = runlog.problems_summary
local append = runlog.append
local one_line = runlog.one_line

--- Handles an agentls/runEvent notification from client `client_id`.
function M.on_event(client_id, ev)
  if type(ev) ~= "table" or ev.runId == nil then
    return
  end
  if ev.parentRunId then
    -- Sub-agent events go into the parent's log; they are not runs of
    -- their own (status() and :AgentCancel act on the parent), and their
    -- model calls count in the parent's tokens.
    if ev.kind == "usage" then
      usage.add(get_run(client_id, ev.parentRunId), ev)
    elseif ev.kind ~= "text" then
      local lines = runlog.event_lines(get_run(client_id, ev.parentRunId), ev)
      if #lines > 0 then
        append(lines)
      end
    end
    return
  end
  local r = get_run(client_id, ev.runId)
  if type(ev.seq) == "number" then
    if ev.seq <= r.seq then
      return -- duplicate or out of date
    end
    r.seq = ev.seq
  end
  if ev.kind == "text" then
    table.insert(r.text, ev.text or "")
    return
  end
  if ev.kind == "usage" then
    -- The figures of the model call whose text just streamed: the text
    -- still counts as streamed just before the next event (the answer is
    -- not repeated when the run finishes).
    runlog.flush(r)
    r.usage_after_text = true
    usage.add(r, ev)
    append({ usage.event_line(ev) })
    return
  end
  if not r.usage_after_text then
    r.streamed = nil
  end
  r.usage_after_text = nil
  runlog.flush(r)
  if ev.kind == "toolCall" and not ev.parentCallId then
    r.tools = r.tools + 1
  elseif ev.kind == "todo" then
    r.todos = ev.todos
  elseif ev.kind == "proposal" and type(ev.uri) == "string" then
    r.files = r.files or {}
    if not vim.tbl_contains(r.files, ev.uri) then
      table.insert(r.files, ev.uri)
    end
  elseif ev.kind == "started" then
    r.mode = ev.mode or r.mode
  elseif ev.kind == "finished" or ev.kind == "failed" or ev.kind == "cancelled" then
    r.status = ev.kind
    r.result = ev.text
    r.error = ev.error
    r.checks = ev.checks
    usage.finish(r, ev)
    r.problems = ev.problems
    if ev.kind == "finished" and r.mode == "plan" then
      r.plan_ready = true
    end
  end
  local lines = runlog.event_lines(r, ev)
  if ev.kind == "finished" or ev.kind == "failed" or ev.kind == "cancelled" then
    table.insert(lines, runlog.end_line(r))
    require("agentls.history").session_total(r)
  end
  if #lines > 0 then
    append(lines)
  end
  if r.plan_ready and ev.kind == "finished" then
    append({ "  ☰ plan ready: :AgentApprove carries it out (as proposals to review)" })
    -- The plan the user is asked to approve is shown whole, in a window
    -- of its own (the cursor stays where the user is typing).
    vim.schedule(function()
      M.show_answer(r.id, { focus = false })
    end)
    log.notify(vim.log.levels.INFO, "plan ready: read it in the agentls window (:AgentAnswer), :AgentApprove carries it out")
  elseif ev.kind == "finished" and type(ev.text) == "string" and vim.trim(ev.text):find("\n") then
    log.notify(vim.log.levels.INFO, "run %s finished: %s … (:AgentAnswer shows the whole answer)", tostring(r.id),
      vim.trim(ev.text):match("^[^\n]*"))
  end
  if ev.kind == "finished" and M.problems_summary(ev.problems) then
    log.notify(vim.log.levels.WARN, "run %s %s (:AgentLog lists them)", tostring(r.id), M.problems_summary(ev.problems))
  end
  if ev.kind == "finished" then
    -- The server's end message says it too; this one points at the output.
    local summary = M.checks_summary(ev.checks)
    if summary then
      local failed = summary:find("^checks failed") ~= nil or summary:find("could not run") ~= nil
      log.notify(failed and vim.log.levels.WARN or vim.log.levels.INFO, "run %s %s%s", tostring(r.id), summary,
        failed and " (:AgentLog shows their output)" or "")
    end
  end
  log.debug("runEvent %s", ev)
end

--- Marks the runs of an exited client as failed.
function M.on_exit(client_id, code, signal)
  for _, k in ipairs(order) do
    local r = runs[k]
    if r.client_id == client_id and r.status == "running" then
      r.status = "failed"
      r.error = string.format("server exited (code %s, signal %s)", tostring(code), tostring(signal))
      append({ "[" .. tostring(r.id) .. "] " .. r.error })
    end
  end
end

--- Starts a run. `opts`: prompt (required), bufnr (0/nil: current), range
--- (LSP Range, optional), mode ("preview"|"apply", optional: the configured
--- default), on_started(run_id) / on_error(message) callbacks.
function M.run(opts)
  local bufnr = (opts.bufnr == nil or opts.bufnr == 0) and vim.api.nvim_get_current_buf() or opts.bufnr
  local client = client_mod.get(bufnr)
  if not client then
    log.notify(vim.log.levels.ERROR, "no agentls server is attached to this buffer (see :checkhealth agentls)")
    return false
  end
  if type(opts.prompt) ~= "string" or opts.prompt:match("^%s*$") then
    log.notify(vim.log.levels.ERROR, "a prompt is required: :AgentRun {prompt}")
    return false
  end
  local history = require("agentls.history")
  local arg = { prompt = opts.prompt, uri = vim.uri_from_bufnr(bufnr), range = opts.range, mode = opts.mode,
    sessionId = opts.session_id, model = opts.model or history.model_for(opts.session_id) }
  return client_mod.execute(client, "agentls.run", arg, function(err, result)
    if err or type(result) ~= "table" or not result.runId then
      local msg = err and (err.message or vim.inspect(err)) or ("unexpected result " .. vim.inspect(result))
      log.notify(vim.log.levels.ERROR, "agentls.run failed: %s", msg)
      if opts.on_error then
        opts.on_error(msg)
      end
      return
    end
    local r = get_run(client.id, result.runId)
    r.prompt = opts.prompt
    r.session_id = result.sessionId
    r.model = arg.model or history.session_model(opts.session_id)
    history.sent(result.sessionId, arg.model)
    if result.sessionId then
      -- The buffer's session, which :AgentFollowup continues.
      pcall(vim.api.nvim_buf_set_var, bufnr, "agentls_session", result.sessionId)
      M.last_session = result.sessionId
    end
    if r.seq == 0 then
      append({ string.format("[%s] %s%s%s", result.runId, opts.mode and ("(" .. opts.mode .. ") ") or "",
        arg.model and ("(model " .. arg.model .. ") ") or "", one_line(opts.prompt, 200)) })
    end
    if opts.on_started then
      opts.on_started(result.runId)
    end
  end, bufnr)
end

--- :AgentRun [prompt] with an optional line range; with ! the run uses
--- apply mode. Without a prompt, asks for one.
function M.command(args)
  local bufnr = vim.api.nvim_get_current_buf()
  local client = client_mod.get(bufnr)
  local range
  if args.range and args.range > 0 then
    range = position.line_range(bufnr, args.line1, args.line2, client and client.offset_encoding or "utf-16")
  end
  local mode = args.bang and "apply" or nil
  if args.plan then
    mode = "plan"
  end
  local start = function(prompt)
    if prompt and prompt ~= "" then
      M.run({ prompt = prompt, bufnr = bufnr, range = range, mode = mode })
    end
  end
  if args.args and args.args ~= "" then
    start(args.args)
  else
    vim.ui.input({ prompt = mode == "plan" and "Agent plan: " or "Agent: " }, start)
  end
end

--- :AgentPlan [prompt] with an optional line range: a plan-mode run (the
--- agent reads and searches only, and answers with a plan to approve).
function M.plan_command(args)
  M.command(vim.tbl_extend("force", args, { bang = false, plan = true }))
end

local function latest_plan()
  for i = #order, 1, -1 do
    local r = runs[order[i]]
    if r.plan_ready then
      return r
    end
  end
  return nil
end

--- :AgentApprove [runId]: approves a finished plan (default: the latest)
--- with agentls.approvePlan, which continues its session in preview mode.
--- A plan this Neovim did not see finish (made before a restart: the
--- server keeps plans awaiting approval with their sessions) is approved
--- through the current buffer's server, which knows it.
function M.approve_command(args)
  local r
  local wanted = args.args ~= nil and args.args ~= "" and args.args or nil
  if wanted then
    for _, k in ipairs(order) do
      if tostring(runs[k].id) == wanted then
        r = runs[k]
      end
    end
  else
    r = latest_plan()
  end
  local client, arg
  if r and r.plan_ready then
    -- Its server may have restarted since: the new one knows the plan.
    client = vim.lsp.get_client_by_id(r.client_id) or client_mod.get(vim.api.nvim_get_current_buf())
    if not client then
      log.notify(vim.log.levels.ERROR, "the agentls server of plan %s is gone", tostring(r.id))
      return
    end
    arg = { runId = r.id }
  elseif r and wanted then
    log.notify(vim.log.levels.WARN, "run %s has no plan awaiting approval (it was approved already, or it is not a plan)", wanted)
    return
  else
    client = client_mod.get(vim.api.nvim_get_current_buf())
    if not client then
      log.notify(vim.log.levels.WARN, "no plan awaits approval (start one with :AgentPlan)")
      return
    end
    arg = wanted and { runId = wanted } or vim.empty_dict()
  end
  client_mod.execute(client, "agentls.approvePlan", arg, function(err, result)
    if err or type(result) ~= "table" or not result.runId then
      local msg = err and (err.message or vim.inspect(err)) or vim.inspect(result)
      if not r and err then
        log.notify(vim.log.levels.WARN, "no plan awaits approval (start one with :AgentPlan): %s", msg)
      else
        log.notify(vim.log.levels.ERROR, "approve plan %s: %s", tostring(r and r.id or wanted or "latest"), msg)
      end
      return
    end
    local plan_id = r and r.id or arg.runId or "saved before a restart"
    if r then
      r.plan_ready = false
    end
    local next_run = get_run(client.id, result.runId)
    next_run.session_id = result.sessionId
    append({ string.format("[%s] (preview) carrying out plan %s", result.runId, tostring(plan_id)) })
  end)
end

--- The session :AgentFollowup continues in `bufnr`: the buffer's own
--- (its latest run's), else the latest of any buffer, else the newest the
--- server knows (sessions survive restarts), else nil.
function M.session_of(bufnr)
  local ok, id = pcall(vim.api.nvim_buf_get_var, bufnr, "agentls_session")
  if ok and id then
    return id
  end
  if M.last_session then
    return M.last_session
  end
  local client = client_mod.get(bufnr)
  if client then
    local res = client_mod.request_sync(client, "agentls/sessions", vim.empty_dict(), 5000, bufnr)
    if res and res.sessions and res.sessions[1] then
      return res.sessions[1].id
    end
  end
  return nil
end

--- :AgentFollowup {prompt}: a run that continues the buffer's session (the
--- model sees the earlier conversation and what was accepted or rejected,
--- and why). Without a session yet it starts one, like :AgentRun.
function M.followup_command(args)
  local bufnr = vim.api.nvim_get_current_buf()
  local start = function(prompt)
    if prompt and prompt ~= "" then
      M.run({ prompt = prompt, bufnr = bufnr, session_id = M.session_of(bufnr) })
    end
  end
  if args.args and args.args ~= "" then
    start(args.args)
  else
    vim.ui.input({ prompt = "Agent (follow-up): " }, start)
  end
end

--- The runs this session has seen, oldest first (copies).
function M.list()
  local out = {}
  for _, k in ipairs(order) do
    table.insert(out, vim.deepcopy(runs[k]))
  end
  return out
end

local function latest_running(bufnr)
  local client = client_mod.get(bufnr)
  for i = #order, 1, -1 do
    local r = runs[order[i]]
    if r.status == "running" and (not client or r.client_id == client.id) then
      return r
    end
  end
  return nil
end

--- Cancels run `run_id` (default: the latest running run).
function M.cancel(run_id)
  local bufnr = vim.api.nvim_get_current_buf()
  local client_id
  if run_id == nil or run_id == "" then
    local r = latest_running(bufnr)
    if not r then
      log.notify(vim.log.levels.WARN, "no agent run is running")
      return
    end
    run_id, client_id = r.id, r.client_id
  else
    for _, k in ipairs(order) do
      if tostring(runs[k].id) == run_id then
        client_id = runs[k].client_id
      end
    end
  end
  local client = client_id and vim.lsp.get_client_by_id(client_id) or client_mod.get(bufnr)
  if not client then
    log.notify(vim.log.levels.ERROR, "no agentls server for run %s", run_id)
    return
  end
  client_mod.execute(client, "agentls.cancel", { runId = run_id }, function(err, result)
    if err then
      log.notify(vim.log.levels.ERROR, "cancel %s: %s", run_id, err.message or vim.inspect(err))
    elseif not (result and result.cancelled) then
      log.notify(vim.log.levels.INFO, "run %s was not running", run_id)
    end
  end)
end

--- :AgentCancel [runId]
function M.cancel_command(args)
  M.cancel(args.args)
end

-- The run whose answer :AgentAnswer shows: run_id's, else the latest run
-- that finished with an answer.
local function answered(run_id)
  for i = #order, 1, -1 do
    local r = runs[order[i]]
    if (run_id == nil or run_id == "" or tostring(r.id) == tostring(run_id))
        and type(r.result) == "string" and r.result ~= "" then
      return r
    end
  end
  return nil
end

--- The lines of run `r`'s whole answer (or plan) as Markdown.
function M.answer_lines(r)
  local title = (r.mode == "plan" and "Plan" or "Answer") .. " of run " .. tostring(r.id)
  local lines = { "# " .. title, "" }
  if type(r.prompt) == "string" and r.prompt ~= "" then
    table.insert(lines, "> " .. r.prompt:gsub("\n", " "))
    table.insert(lines, "")
  end
  for line in (r.result .. "\n"):gmatch("(.-)\r?\n") do
    table.insert(lines, line)
  end
  while lines[#lines] == "" do
    table.remove(lines)
  end
  if r.plan_ready then
    vim.list_extend(lines, { "", "---", ":AgentApprove carries this plan out (as proposals to review)." })
  end
  return lines
end

--- Shows the whole final answer of run `run_id` (default: the latest run
--- with one; a plan-mode run's answer is its plan) in a read-only scratch
--- buffer "agentls://answer/<run>" (Markdown) in a split, reusing the
--- window of an earlier answer. The cursor moves into it unless
--- `opts.focus` is false. Returns the buffer, or nil when no run answered.
function M.show_answer(run_id, opts)
  local focus = not (type(opts) == "table" and opts.focus == false)
  local r = answered(run_id)
  if not r then
    log.notify(vim.log.levels.WARN, "no finished run with an answer%s", run_id and run_id ~= "" and (" (" .. run_id .. ")") or "")
    return nil
  end
  local name = "agentls://answer/" .. tostring(r.id)
  local buf = vim.fn.bufnr("^" .. vim.pesc(name) .. "$")
  if buf < 0 or not vim.api.nvim_buf_is_valid(buf) then
    buf = vim.api.nvim_create_buf(false, true)
    vim.api.nvim_buf_set_name(buf, name)
  end
  vim.bo[buf].modifiable = true
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, M.answer_lines(r))
  vim.bo[buf].modifiable = false
  vim.bo[buf].bufhidden = "hide"
  vim.bo[buf].filetype = "markdown"
  local cur = vim.api.nvim_get_current_win()
  local win
  for _, w in ipairs(vim.api.nvim_list_wins()) do
    local b = vim.api.nvim_win_get_buf(w)
    if vim.api.nvim_buf_get_name(b):match("^agentls://answer/") then
      win = w
    end
  end
  if not win then
    vim.cmd("topleft split")
    win = vim.api.nvim_get_current_win()
    vim.api.nvim_win_set_height(win, math.max(6, math.min(#M.answer_lines(r) + 1, math.floor(vim.o.lines / 2))))
  end
  vim.api.nvim_win_set_buf(win, buf)
  vim.wo[win].wrap = true
  vim.wo[win].linebreak = true
  vim.api.nvim_win_set_cursor(win, { 1, 0 })
  vim.api.nvim_set_current_win(focus and win or cur)
  return buf
end

--- :AgentAnswer [runId]
function M.answer_command(args)
  M.show_answer(args and args.args or nil)
end

--- A short string for the statusline: "agent: N running" with the latest
--- running run's plan item when it keeps a plan and its tokens and cost so
--- far ("agent: 1 running · 2/5 · update the tests · 3.2k tok · $0.0036");
--- when nothing runs, the last run's ("agent: last run 3.2k tok ·
--- $0.0036"); "" before any run used tokens.
function M.status()
  local running, plan, current, last = 0, "", nil, nil
  for _, k in ipairs(order) do
    local r = runs[k]
    if r.status == "running" then
      running = running + 1
      plan = M.plan_progress(r.todos)
      current = r
    else
      last = r
    end
  end
  if running == 0 then
    local part = usage.status_part(last)
    return part ~= "" and ("agent: last run " .. part) or ""
  end
  local s = string.format("agent: %d running", running)
  if plan ~= "" then
    s = s .. " · " .. plan
  end
  local part = usage.status_part(current)
  if part ~= "" then
    s = s .. " · " .. part
  end
  return s
end

return M
