-- :AgentPlan runs in plan mode; the plan shows in the run log; :AgentApprove
-- carries it out in the same session, and its change arrives as a preview.
local H = dofile(vim.fn.fnamemodify(debug.getinfo(1, "S").source:sub(2), ":h") .. "/harness.lua")

H.run(function()
  vim.cmd("runtime plugin/agentls.lua")
  local wire = H.env.dir .. "/wire.log"
  H.fact("wire", wire)
  H.setup({ cmd = H.tee_cmd(wire), settings = H.model_settings() })
  local bufnr = H.open(H.env.ws .. "/greet.go")
  vim.cmd("AgentPlan make the greeting loud")
  local plan = H.wait_run_end()
  H.fact("plan_status", plan.status)
  H.fact("plan_mode", plan.mode or vim.NIL)
  vim.cmd("AgentApprove")
  H.wait("the carry-out run to start and end", function()
    local runs = require("agentls.run").list()
    local last = runs[#runs]
    return #runs == 2 and last.status ~= "running"
  end)
  local runs = require("agentls.run").list()
  H.fact("second_status", runs[2].status)
  H.fact("same_session", runs[1].session_id ~= nil and runs[1].session_id == runs[2].session_id)
  H.wait("a preview of the change", function()
    return #require("agentls.preview").hunks(bufnr) > 0
  end)
  H.fact("log", H.run_log())
end)
