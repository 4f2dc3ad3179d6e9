-- Sessions: :AgentReject with a reason, then :AgentFollowup continues the
-- buffer's session (the server tells the model about the rejection).
local H = dofile(vim.fn.fnamemodify(debug.getinfo(1, "S").source:sub(2), ":h") .. "/harness.lua")

H.run(function()
  vim.cmd("runtime plugin/agentls.lua")
  H.setup({ settings = H.model_settings({ mode = "preview" }) })
  local path = H.env.ws .. "/greet.go"
  local bufnr = H.open(path)
  local preview = require("agentls.preview")
  vim.cmd("AgentRun shout both")
  local first = H.wait_run_end()
  H.wait("two previewed hunks", function()
    return #preview.hunks(bufnr) == 2
  end)
  vim.api.nvim_win_set_cursor(0, { preview.hunks(bufnr)[2].first + 1, 0 })
  vim.cmd("AgentReject keep bye lowercase, it is matched by a test")
  H.wait("one hunk left", function()
    return #preview.hunks(bufnr) == 1
  end)
  vim.cmd("AgentFollowup try again")
  H.wait("the follow-up to start", function()
    local r = H.last_run()
    return r ~= nil and r.id ~= first.id
  end)
  local second = H.wait_run_end()
  H.fact("sessions", { first.session_id or "", second.session_id or "" })
  H.fact("status", second.status)
end)
