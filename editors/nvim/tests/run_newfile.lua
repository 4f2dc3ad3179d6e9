-- A run proposes a new file (write_file). The user opens its path before it
-- exists (an empty buffer): the proposal shows there as pending. Accepting
-- fills the buffer with exactly the proposed text; :write saves exactly
-- those bytes (no blank line more from Neovim's implicit final newline).
-- AGENTLS_TEST_ACCEPT: "open" (accept in the new file's buffer) or
-- "elsewhere" (:AgentAccept all from another buffer, the new file not open).
local H = dofile(vim.fn.fnamemodify(debug.getinfo(1, "S").source:sub(2), ":h") .. "/harness.lua")

H.run(function()
  vim.cmd("runtime plugin/agentls.lua")
  H.setup({ settings = H.model_settings({ mode = "preview" }) })
  local main = H.open(H.env.ws .. "/cart.py")
  vim.cmd("AgentRun write tests")
  local r = H.wait_run_end()
  H.fact("status", r.status)
  local target = H.env.ws .. "/test_cart.py"
  H.fact("exists_before", vim.fn.filereadable(target) == 1)
  local preview = require("agentls.preview")
  local bufnr
  if vim.env.AGENTLS_TEST_ACCEPT == "elsewhere" then
    vim.api.nvim_set_current_buf(main)
    vim.cmd("AgentAccept all")
    H.wait("a buffer for the new file", function()
      bufnr = vim.fn.bufnr(target)
      return bufnr > 0 and vim.api.nvim_buf_is_loaded(bufnr) and H.lines(bufnr) ~= ""
    end)
  else
    local client
    bufnr, client = H.open(target)
    H.wait("the proposal previewed in the new file's buffer", function()
      return #preview.hunks(bufnr) == 1
    end)
    local h = preview.hunks(bufnr)[1]
    H.fact("hunk", { status = h.status, created = h.created or vim.NIL })
    H.fact("marks", H.marks(bufnr))
    local res = assert(require("agentls.client").request_sync(client, "agentls/proposals", vim.empty_dict(), 10000, bufnr))
    local listed = {}
    for _, p in ipairs(res.proposals or {}) do
      table.insert(listed, { uri = p.uri, status = p.status, created = p.created or false })
    end
    H.fact("listed", listed)
    vim.cmd("AgentAccept all")
  end
  H.wait("the proposed text in the buffer", function()
    return H.lines(bufnr):find("def test_", 1, true) ~= nil
  end)
  H.wait("no proposal left", function()
    local client = require("agentls.client").get(bufnr) or require("agentls.client").get(main)
    local res = require("agentls.client").request_sync(client, "agentls/proposals", vim.empty_dict(), 10000, main)
    return res and #(res.proposals or {}) == 0
  end)
  vim.wait(300)
  H.fact("buffer_text", H.buffer_text(bufnr))
  vim.api.nvim_buf_call(bufnr, function()
    vim.cmd("silent write")
  end)
  H.fact("disk", H.read(target))
end)
