-- The editor's own tools: the plugin registers get_diagnostics and
-- open_buffers when the server is up; the scripted model calls them as
-- editor__get_diagnostics and editor__open_buffers, and its final answer
-- quotes what Neovim answered. The diagnostics come from a namespace of
-- their own (as another language server's would), set with
-- vim.diagnostic.set.
local H = dofile(vim.fn.fnamemodify(debug.getinfo(1, "S").source:sub(2), ":h") .. "/harness.lua")

H.run(function()
  vim.cmd("runtime plugin/agentls.lua")
  H.setup({ settings = H.model_settings() })
  local other = H.open(H.write("util.go", "package main\n"))
  local main = H.open(H.write("main.go", "package main\n\nfunc main() {\n\tx := 1\n}\n"))
  vim.api.nvim_buf_set_lines(main, 0, 0, false, { "// edited" }) -- unsaved
  local tools = require("agentls.tools")
  H.wait("the tools to be registered", function()
    local c = require("agentls.client").get(main)
    return c ~= nil and tools.registered[c.id] == true
  end)
  local ns = vim.api.nvim_create_namespace("fake-gopls")
  vim.diagnostic.set(ns, main, {
    { lnum = 4, col = 1, severity = vim.diagnostic.severity.ERROR, message = "declared and not used: x", source = "compiler" },
    { lnum = 0, col = 0, severity = vim.diagnostic.severity.WARN, message = "comment\non two lines", source = "lint" },
  })
  vim.diagnostic.set(ns, other, {
    { lnum = 0, col = 0, severity = vim.diagnostic.severity.HINT, message = "elsewhere" },
  })
  vim.cmd("AgentRun what is wrong")
  local r = H.wait_run_end(30000)
  H.fact("status", r.status)
  H.fact("result", r.result or vim.NIL)
  H.fact("has_vim_diagnostic", vim.diagnostic ~= nil)
  H.fact("log", table.concat(H.run_log(), "\n"))
end)
