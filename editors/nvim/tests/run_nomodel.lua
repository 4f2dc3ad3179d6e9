-- Without any model configuration a run fails with a message that says
-- what to set, and the server keeps serving.
local H = dofile(vim.fn.fnamemodify(debug.getinfo(1, "S").source:sub(2), ":h") .. "/harness.lua")

H.run(function()
  H.allow_errors = true -- the failure is what this test is about
  vim.cmd("runtime plugin/agentls.lua")
  H.setup({})
  local bufnr, client = H.open(H.env.ws .. "/greet.go")
  vim.cmd("AgentRun do something")
  local failed_call = function()
    for _, n in ipairs(H.notifications) do
      if n.msg:find("agentls.run failed", 1, true) then
        return n.msg
      end
    end
  end
  H.wait("the run to fail", function()
    local r = H.last_run()
    return failed_call() ~= nil or (r ~= nil and r.status == "failed")
  end)
  local r = H.last_run()
  H.fact("message", failed_call() or (r and r.error) or "")
  vim.api.nvim_buf_set_lines(bufnr, 0, 1, false, { "package still" })
  H.fact("document", H.document(client, bufnr).text)
end)
