-- Two runs of the same prompt propose the same block (both pending), then
-- the user accepts in the order AGENTLS_TEST_ORDER names: "file"
-- (:AgentAccept file), "hunk2" (the second run's hunk, then the file) or
-- "all" (:AgentAccept all). The block lands once; the other proposal's
-- hunk is shown as not applicable and a later :AgentAccept applies nothing.
local H = dofile(vim.fn.fnamemodify(debug.getinfo(1, "S").source:sub(2), ":h") .. "/harness.lua")

H.run(function()
  vim.cmd("runtime plugin/agentls.lua")
  H.setup({ settings = H.model_settings({ mode = "preview" }) })
  local path = H.env.ws .. "/calc.go"
  local bufnr, client = H.open(path)
  local preview = require("agentls.preview")
  local run_ids = {}
  for i = 1, 2 do
    vim.cmd("AgentRun add a helper")
    H.wait("run " .. i .. " to start", function()
      return #require("agentls.run").list() == i
    end)
    local r = H.wait_run_end()
    run_ids[i] = r.id
    H.wait("preview of run " .. i, function()
      return #preview.hunks(bufnr) == i
    end)
  end
  H.fact("runs", run_ids)
  H.fact("before", H.buffer_text(bufnr))
  H.allow_errors = false

  local order = vim.env.AGENTLS_TEST_ORDER or "file"
  if order == "hunk2" then
    local h2
    for _, h in ipairs(preview.hunks(bufnr)) do
      if h.runId == run_ids[2] then
        h2 = h
      end
    end
    vim.api.nvim_win_set_cursor(0, { h2.first + 1, 0 })
    vim.cmd("AgentAccept")
    H.wait("the block in the buffer", function()
      return H.lines(bufnr):find("func helper", 1, true) ~= nil
    end)
    H.wait("the preview to settle", function()
      local hs = preview.hunks(bufnr)
      return #hs == 1 and hs[1].status == "conflicted"
    end)
    vim.cmd("AgentAccept file")
  elseif order == "all" then
    vim.cmd("AgentAccept all")
  else
    vim.cmd("AgentAccept file")
  end
  H.wait("the block in the buffer", function()
    return H.lines(bufnr):find("func helper", 1, true) ~= nil
  end)
  H.wait("the other run's hunk shown as not applicable", function()
    local hs = preview.hunks(bufnr)
    return #hs == 1 and hs[1].status == "conflicted"
  end)
  vim.wait(300) -- any late edit would show here
  H.fact("after", H.buffer_text(bufnr))
  local left = preview.hunks(bufnr)[1]
  H.fact("left", { runId = left.runId, status = left.status, supersededBy = left.supersededBy or vim.NIL })
  H.fact("marks", H.marks(bufnr))
  local explain = require("agentls.review").explain_lines(left)
  H.fact("explain", table.concat(explain, "\n"))

  -- Accepting the left hunk applies nothing, and says so.
  vim.api.nvim_win_set_cursor(0, { left.first + 1, 0 })
  local done, result
  require("agentls.review").accept(nil, function(_, res)
    done, result = true, res
  end)
  H.wait("the second accept's answer", function()
    return done
  end)
  H.fact("second_accept", result)
  vim.wait(300)
  H.fact("after_second_accept", H.buffer_text(bufnr))
  vim.cmd("AgentReject")
  H.wait("no hunk left", function()
    return #preview.hunks(bufnr) == 0
  end)
  local res = assert(require("agentls.client").request_sync(client, "agentls/proposals",
    { uri = vim.uri_from_bufnr(bufnr) }, 10000, bufnr))
  H.fact("pending_after", #(res.proposals or {}))
  H.fact("server_text", H.document(client, bufnr).text)
end)
