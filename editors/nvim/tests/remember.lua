-- :AgentRemember (issue 32): a note becomes a proposal on AGENTS.md that
-- shows in its buffer like a run's change, nothing on disk until
-- :AgentAccept; the same rule again is "already remembered"; without an
-- argument the note is asked with vim.ui.input (dismissing it sends
-- nothing); a note the server refuses is an error message with its reason.
local H = dofile(vim.fn.fnamemodify(debug.getinfo(1, "S").source:sub(2), ":h") .. "/harness.lua")

local function notified(text)
  for _, n in ipairs(H.notifications) do
    if n.msg:find(text, 1, true) then
      return n
    end
  end
  return nil
end

H.run(function()
  vim.cmd("runtime plugin/agentls.lua")
  local wire = H.env.dir .. "/wire.bin"
  H.setup({ cmd = H.tee_cmd(wire) })
  H.fact("wire", wire)
  local path = H.env.ws .. "/AGENTS.md"
  local bufnr, client = H.open(path)
  local preview = require("agentls.preview")

  vim.cmd("AgentRemember we wrap errors with %w")
  H.wait("the proposal message", function()
    return notified("proposed for AGENTS.md") ~= nil
  end)
  H.fact("proposed_msg", notified("proposed for AGENTS.md").msg)
  H.wait("the proposal's preview in AGENTS.md", function()
    return #preview.hunks(bufnr) == 1
  end)
  local res = assert(require("agentls.client").request_sync(client, "agentls/proposals",
    { uri = vim.uri_from_bufnr(bufnr) }, 10000, bufnr))
  local p = (res.proposals or {})[1] or {}
  H.fact("pending", #(res.proposals or {}))
  H.fact("proposed_text", p.proposedText or "")
  H.fact("proposal_run", p.runId or "")
  H.fact("disk_before_accept", H.read(path))
  H.fact("buffer_before_accept", H.lines(bufnr))
  H.fact("log", H.run_log())

  vim.api.nvim_win_set_cursor(0, { preview.hunks(bufnr)[1].first + 1, 0 })
  vim.cmd("AgentAccept")
  H.wait("the bullet in the buffer", function()
    return H.lines(bufnr):find("- we wrap errors with %w", 1, true) ~= nil
  end)
  H.wait("the preview to clear", function()
    return #preview.hunks(bufnr) == 0
  end)
  H.fact("buffer_after_accept", H.lines(bufnr))
  vim.cmd("write")
  H.fact("disk_after_write", H.read(path))

  -- No argument: the note is asked for. The same rule (another case) is
  -- already there.
  local prompts = {}
  vim.ui.input = function(opts, cb)
    table.insert(prompts, opts.prompt)
    cb("We wrap errors with %w")
  end
  vim.cmd("AgentRemember")
  H.wait("already remembered", function()
    return notified("already remembered") ~= nil
  end)
  -- Dismissed: nothing is sent (the wire shows it).
  vim.ui.input = function(opts, cb)
    table.insert(prompts, opts.prompt)
    cb(nil)
  end
  vim.cmd("AgentRemember")
  H.fact("prompts", prompts)

  -- A note the server refuses: its reason, as an error.
  H.allow_errors = true
  vim.cmd("AgentRemember " .. string.rep("x", 600))
  H.wait("the refusal", function()
    return notified("more than 500") ~= nil
  end)
  local refusal = notified("more than 500")
  H.fact("refusal", refusal.msg)
  H.fact("refusal_level", refusal.level)
  H.fact("pending_end", #preview.hunks(bufnr))
end)
