-- :AgentRun over a line range in preview mode: the proposal shows as an
-- inline diff (extmarks) while the buffer stays as it was; :AgentAccept on
-- the hunk applies it and the preview goes away.
local H = dofile(vim.fn.fnamemodify(debug.getinfo(1, "S").source:sub(2), ":h") .. "/harness.lua")

H.run(function()
  vim.cmd("runtime plugin/agentls.lua")
  local wire = H.env.dir .. "/wire.log"
  H.fact("wire", wire)
  H.setup({ cmd = H.tee_cmd(wire), settings = H.model_settings() })
  local path = H.env.ws .. "/greet.go"
  local bufnr, client = H.open(path)
  local before = H.lines(bufnr)
  vim.cmd("3,5AgentRun make it loud")
  H.wait("a preview of the proposal", function()
    for _, m in ipairs(H.marks(bufnr)) do
      for _, v in ipairs(m.virt) do
        if v.text:find("HELLO", 1, true) then
          return true
        end
      end
    end
    return false
  end)
  H.fact("marks", H.marks(bufnr))
  H.fact("hunks", require("agentls.preview").hunks(bufnr))
  H.fact("unchanged_while_pending", H.lines(bufnr) == before)
  local r = H.wait_run_end()
  H.fact("status", r.status)

  local hunk = require("agentls.preview").hunks(bufnr)[1]
  vim.api.nvim_win_set_cursor(0, { hunk.first + 1, 0 })
  vim.cmd("AgentAccept")
  H.wait("the accepted change in the buffer", function()
    return H.lines(bufnr):find('"HELLO"', 1, true) ~= nil
  end)
  H.wait("the preview to clear", function()
    return #H.marks(bufnr) == 0
  end)
  H.fact("buffer", H.lines(bufnr))
  H.fact("disk", H.read(path))
  local res = assert(require("agentls.client").request_sync(client, "agentls/proposals",
    { uri = vim.uri_from_bufnr(bufnr) }, 10000, bufnr))
  H.fact("pending_after", #(res.proposals or {}))
  H.fact("log", H.run_log())
end)
