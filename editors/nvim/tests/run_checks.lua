-- Checks from Neovim: a run with a check configured (the plugin's
-- settings) ends in the run log with each check's result and output and a
-- "checks passed/failed" end line, and a message that says it.
local H = dofile(vim.fn.fnamemodify(debug.getinfo(1, "S").source:sub(2), ":h") .. "/harness.lua")

H.run(function()
  vim.cmd("runtime plugin/agentls.lua")
  H.setup({ settings = H.model_settings({
    checks = { { name = "state", command = vim.env.AGENTLS_TEST_CHECK or "grep -q fixed state.txt || { echo not fixed yet; exit 1; }" } },
    maxCheckRounds = tonumber(vim.env.AGENTLS_TEST_ROUNDS or "2"),
  }) })
  H.open(H.env.ws .. "/notes.txt")
  vim.cmd("AgentRun write state.txt")
  local r = H.wait_run_end(60000)
  H.fact("status", r.status)
  H.fact("checks", r.checks or vim.NIL)
  H.fact("log", H.run_log())
  H.fact("disk_state", H.read(H.env.ws .. "/state.txt"))
end)
