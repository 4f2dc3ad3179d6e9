-- Per-hunk review of a two-hunk proposal: :AgentNextHunk walks the hunks,
-- :AgentReject drops the second (its preview goes, the buffer keeps its
-- text), :AgentAccept applies the first.
local H = dofile(vim.fn.fnamemodify(debug.getinfo(1, "S").source:sub(2), ":h") .. "/harness.lua")

H.run(function()
  vim.cmd("runtime plugin/agentls.lua")
  H.setup({ settings = H.model_settings({ mode = "preview" }) })
  local path = H.env.ws .. "/greet.go"
  local bufnr, client = H.open(path)
  local preview = require("agentls.preview")
  vim.cmd("AgentRun shout both")
  H.wait_run_end()
  H.wait("two previewed hunks", function()
    return #preview.hunks(bufnr) == 2
  end)
  local hunks = preview.hunks(bufnr)
  H.fact("hunk_rows", { hunks[1].first, hunks[2].first })

  vim.api.nvim_win_set_cursor(0, { 1, 0 })
  vim.cmd("AgentNextHunk")
  local first_row = vim.api.nvim_win_get_cursor(0)[1] - 1
  vim.cmd("AgentNextHunk")
  local second_row = vim.api.nvim_win_get_cursor(0)[1] - 1
  H.fact("visited", { first_row, second_row })

  vim.cmd("AgentReject") -- cursor is on the second hunk
  H.wait("one hunk left", function()
    return #preview.hunks(bufnr) == 1
  end)
  H.fact("after_reject_buffer", H.lines(bufnr))
  H.fact("left_hunk_row", preview.hunks(bufnr)[1].first)

  vim.cmd("AgentPrevHunk")
  vim.cmd("AgentAccept")
  H.wait("the first change in the buffer", function()
    return H.lines(bufnr):find('"HELLO"', 1, true) ~= nil
  end)
  H.wait("the preview to clear", function()
    return #H.marks(bufnr) == 0
  end)
  H.fact("buffer", H.lines(bufnr))
  local res = assert(require("agentls.client").request_sync(client, "agentls/proposals",
    { uri = vim.uri_from_bufnr(bufnr) }, 10000, bufnr))
  H.fact("pending_after", #(res.proposals or {}))
end)
