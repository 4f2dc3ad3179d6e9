-- A plan awaiting approval survives a server restart: :AgentPlan, the
-- server stops and a new one starts for the buffer; :AgentApprove carries
-- the plan out through the new server (which restored it), in the plan's
-- session, and its change arrives as a preview.
local H = dofile(vim.fn.fnamemodify(debug.getinfo(1, "S").source:sub(2), ":h") .. "/harness.lua")

H.run(function()
  vim.cmd("runtime plugin/agentls.lua")
  H.setup({ settings = H.model_settings() })
  local path = H.env.ws .. "/greet.go"
  local _, client = H.open(path)
  vim.cmd("AgentPlan make the greeting loud")
  local plan = H.wait_run_end()
  H.fact("plan_status", plan.status)
  local old = client.id
  vim.lsp.stop_client(old, true)
  H.wait("the server to stop", function()
    return vim.lsp.get_client_by_id(old) == nil
  end)
  vim.cmd("bwipeout!")
  local bufnr = H.open(path)
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
end)
