-- The run log and run states fed by agentls/runEvent notifications
-- (handler called directly with events shaped as docs/protocol.md says).
local H = dofile(vim.fn.fnamemodify(debug.getinfo(1, "S").source:sub(2), ":h") .. "/harness.lua")

H.run(function()
  vim.cmd("runtime plugin/agentls.lua")
  local run = require("agentls.run")
  local cid = 42
  local events = {
    { runId = "r1", seq = 1, kind = "started", text = "add a greeting" },
    { runId = "r1", seq = 2, kind = "text", text = "Let me " },
    { runId = "r1", seq = 3, kind = "text", text = "look.\nReading now" },
    { runId = "r1", seq = 4, kind = "toolCall", tool = "read_file", args = { path = "a.go" } },
    { runId = "r1", seq = 4, kind = "toolCall", tool = "read_file", args = { path = "DUPLICATE" } },
    { runId = "r1", seq = 5, kind = "toolResult", tool = "read_file", summary = "12 lines", isError = false },
    { runId = "r1", seq = 6, kind = "toolCall", tool = "edit_file", args = { path = "a/b.go", old_string = "// x", new_string = "// y" } },
    { runId = "r1", seq = 7, kind = "toolResult", tool = "edit_file", summary = "old_string not found", isError = true },
    { runId = "r1", seq = 8, kind = "proposal", uri = vim.uri_from_fname(H.env.ws .. "/a.go") },
  }
  for _, ev in ipairs(events) do
    run.on_event(cid, ev)
  end
  H.fact("status_running", run.status())
  run.on_event(cid, { runId = "r2", seq = 1, kind = "started", text = "second" })
  H.fact("status_two", run.status())
  run.on_event(cid, { runId = "r1", seq = 9, kind = "usage", turn = 1, promptTokens = 1200, completionTokens = 30,
    cachedTokens = 200, costUSD = 0.0021 })
  run.on_event(cid, { runId = "r1", seq = 10, kind = "finished", text = "Added the greeting.\nDone.", costUSD = 0.0021,
    usage = { promptTokens = 1200, completionTokens = 30, totalTokens = 1230, cachedTokens = 200 } })
  run.on_event(cid, { runId = "r2", seq = 2, kind = "failed", error = "model: 401 invalid_api_key" })
  H.fact("status_done", run.status())
  local states = {}
  for _, r in ipairs(run.list()) do
    states[r.id] = { status = r.status, tools = r.tools, error = r.error or vim.NIL }
  end
  H.fact("runs", states)
  run.on_exit(cid, 1, 0) -- nothing running any more: no change
  run.on_event(cid, { runId = "r4", seq = 1, kind = "started", text = "streams" })
  run.on_event(cid, { runId = "r4", seq = 2, kind = "text", text = "All " })
  run.on_event(cid, { runId = "r4", seq = 3, kind = "text", text = "done.\n" })
  run.on_event(cid, { runId = "r4", seq = 4, kind = "finished", text = "All done." })
  run.on_event(cid, { runId = "r3", seq = 1, kind = "started", text = "third" })
  run.on_exit(cid, 2, 0)
  H.fact("r3_after_exit", run.list()[4].status)

  run.open_log()
  H.fact("log_windows", #vim.api.nvim_list_wins())
  H.fact("current_is_log", vim.api.nvim_get_current_buf() == run.log_buffer())
  H.fact("log", vim.api.nvim_buf_get_lines(run.log_buffer(), 0, -1, false))
  H.fact("log_modifiable", vim.bo[run.log_buffer()].modifiable)

  -- Problems: "no problems left" only of a file that had some.
  local before = #vim.api.nvim_buf_get_lines(run.log_buffer(), 0, -1, false)
  local function problems(seq, name, introduced, outstanding)
    run.on_event(cid, { runId = "r5", seq = seq, kind = "problems", uri = vim.uri_from_fname(H.env.ws .. "/" .. name),
      introduced = introduced, outstanding = outstanding,
      items = introduced > 0 and { { range = { start = { line = 2, character = 0 } }, message = "undefined: z" } } or {} })
  end
  run.on_event(cid, { runId = "r5", seq = 1, kind = "started", text = "problems" })
  problems(2, "util.go", 0, 0)
  problems(3, "calc.go", 1, 1)
  problems(4, "calc.go", 0, 0)
  H.fact("problems_log", vim.list_slice(vim.api.nvim_buf_get_lines(run.log_buffer(), 0, -1, false), before + 1))
end)
