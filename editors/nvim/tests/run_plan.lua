-- A run that keeps a plan (todo_write) and delegates to a sub-agent (task):
-- the run log shows the checklist and the sub-agent's steps, and the
-- statusline component shows the current plan item while the run goes on.
local H = dofile(vim.fn.fnamemodify(debug.getinfo(1, "S").source:sub(2), ":h") .. "/harness.lua")

H.run(function()
  vim.cmd("runtime plugin/agentls.lua")
  H.setup({ settings = H.model_settings() })
  local run = require("agentls.run")
  local on_event = run.on_event
  local statuses = {}
  run.on_event = function(cid, ev)
    on_event(cid, ev)
    if ev.kind == "todo" then
      table.insert(statuses, run.status())
    end
  end
  H.open(H.env.ws .. "/greet.go")
  vim.cmd("AgentRun find the greeting")
  local r = H.wait_run_end()
  H.fact("status", r.status)
  H.fact("statuses", statuses)
  H.fact("runs", #run.list())
  H.fact("log", H.run_log())
end)
