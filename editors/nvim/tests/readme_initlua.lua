-- The README's first Neovim snippet, pasted into init.lua (readme_test.go
-- puts it in $XDG_CONFIG_HOME/nvim/init.lua and starts a plain `nvim
-- greet.go`, no --clean): the plugin loads, attaches and runs.
local H = dofile(vim.fn.fnamemodify(debug.getinfo(1, "S").source:sub(2), ":h") .. "/harness.lua")

H.run(function()
  H.fact("commands", vim.fn.exists(":AgentRun") == 2 and vim.fn.exists(":AgentAccept") == 2)
  local bufnr, client = H.open(H.env.ws .. "/greet.go")
  H.fact("root", client.config.root_dir)
  vim.cmd("AgentRun make it loud")
  local r = H.wait_run_end()
  H.fact("status", r.status)
  H.fact("error", r.error or "")
  H.wait("the proposal preview", function()
    return #require("agentls.preview").hunks(bufnr) > 0
  end)
  H.fact("marks", H.marks(bufnr))
end)
