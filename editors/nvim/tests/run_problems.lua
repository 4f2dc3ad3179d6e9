-- Language-server problems from Neovim: a run whose edit breaks the Go
-- file (gopls configured in the plugin's settings) shows "introduces 1
-- problem" on the proposal and in the run log, with gopls's words, and the
-- end of the run says so.
local H = dofile(vim.fn.fnamemodify(debug.getinfo(1, "S").source:sub(2), ":h") .. "/harness.lua")

H.run(function()
  vim.cmd("runtime plugin/agentls.lua")
  H.setup({ settings = H.model_settings({
    languageServers = { gopls = { command = { vim.env.AGENTLS_TEST_GOPLS } } },
    languageServerWaitSeconds = 30,
  }) })
  local bufnr = H.open(H.env.ws .. "/main.go")
  vim.cmd("AgentRun use undefinedThing")
  local r = H.wait_run_end(60000)
  H.wait("the problems note on the proposal", function()
    for _, m in ipairs(H.marks(bufnr)) do
      if m.hint:find("introduces 1 problem", 1, true) then
        return true
      end
    end
    return false
  end)
  H.fact("status", r.status)
  H.fact("problems", r.problems or vim.NIL)
  H.fact("marks", H.marks(bufnr))
  H.fact("hunks", require("agentls.preview").hunks(bufnr))
  H.fact("log", H.run_log())
  H.fact("disk", H.read(H.env.ws .. "/main.go"))
end)
