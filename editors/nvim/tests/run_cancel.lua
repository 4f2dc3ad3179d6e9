-- :AgentCancel stops a run whose model stream hangs.
local H = dofile(vim.fn.fnamemodify(debug.getinfo(1, "S").source:sub(2), ":h") .. "/harness.lua")

H.run(function()
  vim.cmd("runtime plugin/agentls.lua")
  H.setup({ settings = H.model_settings() })
  H.open(H.env.ws .. "/greet.go")
  vim.cmd("AgentRun think forever")
  H.wait("the run to start streaming", function()
    local r = H.last_run()
    return r ~= nil and r.seq >= 2
  end)
  H.fact("status_while_running", require("agentls").status())
  vim.cmd("AgentCancel")
  local r = H.wait_run_end()
  H.fact("status", r.status)
  H.fact("log", H.run_log())
end)
