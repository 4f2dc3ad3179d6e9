-- Sessions survive a server restart: a run leaves two hunks pending, the
-- server is stopped and a new one started for the buffer; the previews come
-- back (the plugin asks agentls/proposals on attach) and accepting applies.
local H = dofile(vim.fn.fnamemodify(debug.getinfo(1, "S").source:sub(2), ":h") .. "/harness.lua")

H.run(function()
  vim.cmd("runtime plugin/agentls.lua")
  H.setup({ settings = H.model_settings({ mode = "preview" }) })
  local path = H.env.ws .. "/greet.go"
  local bufnr, client = H.open(path)
  local preview = require("agentls.preview")
  vim.cmd("AgentRun shout both")
  local first = H.wait_run_end()
  H.wait("two previewed hunks", function()
    return #preview.hunks(bufnr) == 2
  end)
  local old = client.id
  vim.lsp.stop_client(old, true)
  H.wait("the server to stop", function()
    return vim.lsp.get_client_by_id(old) == nil
  end)
  vim.cmd("bwipeout!")
  local bufnr2, client2 = H.open(path)
  H.fact("new_client", client2.id ~= old)
  H.wait("the restored previews", function()
    return #preview.hunks(bufnr2) == 2
  end)
  H.fact("restored_hunks", #preview.hunks(bufnr2))
  -- The accept's answer, not just its edit: the server tells the session
  -- before it answers, and the follow-up below must come after that.
  local answered = false
  require("agentls.review").accept("all", function()
    answered = true
  end)
  H.wait("the accept's answer", function()
    return answered
  end)
  H.wait("both changes in the buffer", function()
    local text = H.lines(bufnr2)
    return text:find('"HELLO"', 1, true) ~= nil and text:find('"BYE"', 1, true) ~= nil
  end)
  H.fact("buffer", H.lines(bufnr2))

  -- As after an editor restart, the plugin remembers no session: the
  -- follow-up continues the newest one the server restored.
  require("agentls.run").last_session = nil
  vim.cmd("AgentFollowup anything else?")
  H.wait("the follow-up to start", function()
    local r = H.last_run()
    return r ~= nil and r.id ~= first.id
  end)
  local second = H.wait_run_end()
  H.fact("sessions", { first.session_id or "", second.session_id or "" })
end)
