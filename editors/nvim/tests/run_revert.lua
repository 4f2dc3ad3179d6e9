-- Run history from Neovim: :AgentModel picks the model (vim.ui.select, as
-- a picker plugin would answer it), a run changes two files and creates a
-- third; :AgentAccept all applies them; :AgentRevert (no argument: the
-- latest run with changes) takes the run back through workspace/applyEdit
-- and `u` in each buffer brings the accepted text back; a follow-up keeps
-- the picked model; :AgentReport opens the report with the system opener.
-- The statusline component and the run log show tokens and cost.
local H = dofile(vim.fn.fnamemodify(debug.getinfo(1, "S").source:sub(2), ":h") .. "/harness.lua")

H.run(function()
  vim.cmd("runtime plugin/agentls.lua")
  H.setup({
    cmd = H.tee_cmd(H.env.dir .. "/wire.txt"),
    settings = H.model_settings({
      mode = "preview",
      model = { pricing = { inputPerMTok = 2, outputPerMTok = 8, cachedInputPerMTok = 0.5 }, choices = { "picked-model" } },
    }),
  })
  H.fact("wire", H.env.dir .. "/wire.txt")
  local greet, client = H.open(H.env.ws .. "/greet.go")
  local other_path = H.env.ws .. "/other.go"
  local notes_path = H.env.ws .. "/NOTES.md"
  local history = require("agentls.history")

  -- The picker offers the server's list; the user picks "picked-model".
  local offered, prompt
  vim.ui.select = function(items, opts, on_choice)
    offered, prompt = {}, opts.prompt
    for _, it in ipairs(items) do
      table.insert(offered, opts.format_item and opts.format_item(it) or it)
    end
    on_choice(items[vim.fn.index(items, "picked-model") + 1])
  end
  vim.cmd("AgentModel")
  H.wait("the model to be picked", function()
    return history.selected == "picked-model"
  end)
  H.fact("models_offered", offered)
  H.fact("models_prompt", prompt)

  -- The statusline after every run event, as each is handled (polled
  -- between events instead, two usage events handled in one go on a
  -- loaded machine hid the first call's figures).
  local run_mod = require("agentls.run")
  local on_event = run_mod.on_event
  local statuses = {}
  run_mod.on_event = function(cid, ev)
    on_event(cid, ev)
    local s = require("agentls").status()
    if s ~= "" and statuses[#statuses] ~= s then
      table.insert(statuses, s)
    end
  end
  vim.cmd("AgentRun shout and take notes")
  H.wait("the run to end", function()
    local r = H.last_run()
    return r ~= nil and r.status ~= "running"
  end)
  run_mod.on_event = on_event
  local first = H.last_run()
  H.fact("status", first.status)
  H.fact("statuses_running", statuses)
  H.fact("status_after", require("agentls").status())
  H.fact("first_model", first.model or vim.NIL)

  -- The accept's answer, not just its edit: the server records what
  -- landed before it answers.
  local accepted
  require("agentls.review").accept("all", function(err, res)
    accepted = { err = err or vim.NIL, res = res or vim.NIL }
  end)
  H.wait("the accept's answer", function()
    return accepted ~= nil
  end)
  H.fact("accept_result", accepted)
  local other
  H.wait("both changes and the new file in buffers", function()
    other = vim.fn.bufnr(other_path)
    local notes = vim.fn.bufnr(notes_path)
    return H.lines(greet):find("HELLO", 1, true) ~= nil and other > 0 and vim.api.nvim_buf_is_loaded(other)
      and H.lines(other):find("BYE", 1, true) ~= nil and notes > 0 and H.lines(notes) ~= ""
  end)
  H.wait("nothing left to review", function()
    local res = require("agentls.client").request_sync(client, "agentls/proposals", vim.empty_dict(), 10000, greet)
    return res and #(res.proposals or {}) == 0
  end)
  H.fact("greet_accepted", H.lines(greet))
  H.fact("other_accepted", H.lines(other))

  local result
  vim.cmd("AgentRevert")
  H.wait("the revert's answer", function()
    return H.run_log()[#H.run_log()]:find("reverted", 1, true) ~= nil
  end)
  H.wait("both files back", function()
    return H.lines(greet):find("HELLO", 1, true) == nil and H.lines(other):find("BYE", 1, true) == nil
  end)
  H.fact("greet_reverted", H.lines(greet))
  H.fact("other_reverted", H.lines(other))
  H.fact("notes_on_disk_after_revert", vim.fn.filereadable(notes_path) == 1)
  H.fact("notes_buffer_after_revert", vim.fn.bufnr(notes_path) > 0)

  -- A second revert does nothing and says so.
  local again
  history.revert(first.id, function(res)
    again = res or vim.NIL
  end)
  H.wait("the second revert's answer", function()
    return again ~= nil
  end)
  H.fact("second_revert", again)
  -- R in the run log reverts the run under the cursor: again nothing.
  require("agentls.run").open_log()
  local log_lines = H.run_log()
  for i, l in ipairs(log_lines) do
    if l:find("↳ 3,000", 1, true) then
      vim.api.nvim_win_set_cursor(0, { i, 0 })
    end
  end
  local before = #log_lines
  vim.cmd("normal R")
  H.wait("the log's revert", function()
    return #H.run_log() > before
  end)
  H.fact("log_key_revert", H.run_log()[#H.run_log()])
  vim.cmd("wincmd p")

  -- Undo in each buffer brings the accepted text back (one step each).
  vim.api.nvim_set_current_buf(greet)
  vim.cmd("undo")
  H.fact("greet_undone", H.lines(greet))
  vim.api.nvim_set_current_buf(other)
  vim.cmd("undo")
  H.fact("other_undone", H.lines(other))
  -- and redo the revert again, so that the follow-up sees the files reverted
  vim.cmd("redo")
  vim.api.nvim_set_current_buf(greet)
  vim.cmd("redo")
  H.fact("greet_redone", H.lines(greet))

  -- The follow-up continues the session on the picked model, without
  -- sending it again.
  vim.cmd("AgentFollowup what happened to my files?")
  H.wait("the follow-up to start", function()
    local r = H.last_run()
    return r ~= nil and r.id ~= first.id
  end)
  local second = H.wait_run_end()
  H.fact("second_status", second.status)
  H.fact("same_session", second.session_id == first.session_id)
  H.wait("the session total in the log", function()
    return table.concat(H.run_log(), "\n"):find("Σ session", 1, true) ~= nil
  end)

  -- The report opens with the system opener (a fake xdg-open on PATH).
  vim.cmd("AgentReport " .. first.id)
  H.wait("the opener to run", function()
    return H.read(H.env.dir .. "/opened.txt") ~= ""
  end)
  vim.wait(500) -- a second open (the server's showDocument) would show by now
  -- :AgentRuns lists the runs and the session; the follow-up's report
  -- opens from it.
  local listed = {}
  vim.ui.select = function(items, opts, on_choice)
    local texts = {}
    for _, it in ipairs(items) do
      table.insert(texts, opts.format_item and opts.format_item(it) or tostring(it))
    end
    table.insert(listed, texts)
    for i, t in ipairs(texts) do
      if (#listed == 1 and t:find(second.id, 1, true)) or (#listed == 2 and t == "Open report") then
        return on_choice(items[i])
      end
    end
    on_choice(nil)
  end
  vim.cmd("AgentRuns")
  H.wait("the second report to open", function()
    return #vim.split(vim.trim(H.read(H.env.dir .. "/opened.txt")), "\n") == 2
  end)
  -- Without an argument, the latest run: the follow-up, which changed nothing.
  -- (The opener is not asked again for a page it opened just now: the
  -- run log says which report was written.)
  local function reports()
    local n = {}
    for _, l in ipairs(H.run_log()) do
      local id = l:match("^%[(%w+)%] report: ")
      if id then
        n[id] = (n[id] or 0) + 1
      end
    end
    return n
  end
  local before = reports()
  vim.cmd("AgentReport")
  H.wait("the latest run's report to be written", function()
    local now = reports()
    for id, n in pairs(now) do
      if n > (before[id] or 0) then
        H.fact("bare_report", id)
        return true
      end
    end
    return false
  end)
  H.fact("runs_listed", listed)
  H.fact("second_id", second.id)
  H.fact("opened", H.read(H.env.dir .. "/opened.txt"))
  H.fact("first_id", first.id)
  H.fact("log", H.run_log())
end)
