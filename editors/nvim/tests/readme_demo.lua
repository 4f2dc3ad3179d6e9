-- The README's no-model editor demo, driven as written: readme_test.go runs
-- the README's shell lines (cd examples/hello; nvim … greet.py) with this
-- file added as a last -c, and passes the README's ex commands in
-- AGENTLS_README_CMDS (one per line). Between commands it waits for what a
-- user would wait for, and records what they would see.
local H = dofile(vim.fn.fnamemodify(debug.getinfo(1, "S").source:sub(2), ":h") .. "/harness.lua")

H.run(function()
  local bufnr = vim.api.nvim_get_current_buf()
  H.fact("file", vim.api.nvim_buf_get_name(bufnr))
  local client
  H.wait("agentls to attach to greet.py", function()
    client = require("agentls.client").get(bufnr)
    return client ~= nil and client.initialized == true
  end)
  H.fact("root", client.config.root_dir)
  local cmds = {}
  for cmd in (vim.env.AGENTLS_README_CMDS or ""):gmatch("[^\n]+") do
    table.insert(cmds, cmd)
    vim.cmd(cmd)
    local name = cmd:match("^:?(%a+)")
    if name == "AgentRun" then
      local r = H.wait_run_end()
      H.fact("status", r.status)
      H.fact("error", r.error or "")
      H.wait("the proposal preview", function()
        return #require("agentls.preview").hunks(bufnr) > 0
      end)
      H.fact("marks", H.marks(bufnr))
      H.fact("before_accept", H.lines(bufnr))
    elseif name == "AgentNextHunk" then
      H.fact("cursor_line", vim.api.nvim_win_get_cursor(0)[1])
    elseif name == "AgentAccept" then
      H.wait("the accepted change in the buffer", function()
        return #require("agentls.preview").hunks(bufnr) == 0 and not H.lines(bufnr):find("nme", 1, true)
      end)
    end
  end
  H.fact("cmds", cmds)
  H.fact("after", H.lines(bufnr))
end)
