-- :AgentRun! (apply mode): the agent's edit reaches the buffer through
-- Neovim's own workspace/applyEdit handling; nothing is written to disk and
-- no preview is shown.
local H = dofile(vim.fn.fnamemodify(debug.getinfo(1, "S").source:sub(2), ":h") .. "/harness.lua")

H.run(function()
  vim.cmd("runtime plugin/agentls.lua")
  H.setup({ settings = H.model_settings() })
  local path = H.env.ws .. "/greet.go"
  local bufnr = H.open(path)
  vim.cmd("AgentRun! change the greeting")
  H.wait("the edit to reach the buffer", function()
    return H.lines(bufnr):find('"hello, world"', 1, true) ~= nil
  end)
  local r = H.wait_run_end()
  H.fact("status", r.status)
  H.fact("error", r.error)
  H.fact("buffer", H.lines(bufnr))
  H.fact("modified", vim.bo[bufnr].modified)
  H.fact("disk", H.read(path))
  H.fact("marks", #H.marks(bufnr))
  H.fact("log", H.run_log())
  H.fact("status_line", require("agentls").status())
end)
