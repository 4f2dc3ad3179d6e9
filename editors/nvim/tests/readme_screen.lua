-- For the README's screenshot (readme_test.go TestReadmeScreenshot): in a
-- real terminal Neovim started with the README's demo command line, writes
-- AGENTLS_READY once greet.py is attached to an initialized agentls client,
-- so the test types the README's commands only when a user could.
local bufnr = vim.api.nvim_get_current_buf()
local function poll()
  local client = require("agentls.client").get(bufnr)
  if client ~= nil and client.initialized == true then
    vim.fn.writefile({ "ready" }, vim.env.AGENTLS_READY)
    return
  end
  vim.defer_fn(poll, 50)
end
poll()
