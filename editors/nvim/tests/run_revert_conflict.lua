-- :AgentRevert when the user changed the run's lines after accepting: the
-- server leaves them alone and says why; the plugin shows it in the run
-- log, the quickfix list and a warning, and the buffer keeps the user's
-- text.
local H = dofile(vim.fn.fnamemodify(debug.getinfo(1, "S").source:sub(2), ":h") .. "/harness.lua")

H.run(function()
  vim.cmd("runtime plugin/agentls.lua")
  H.setup({ settings = H.model_settings({ mode = "preview" }) })
  local bufnr = H.open(H.env.ws .. "/greet.go")
  vim.cmd("AgentRun make it loud")
  local r = H.wait_run_end()
  local done = false
  require("agentls.review").accept("all", function()
    done = true
  end)
  H.wait("the accept's answer", function()
    return done
  end)
  -- The user edits the line the run changed.
  local row
  for i, l in ipairs(vim.api.nvim_buf_get_lines(bufnr, 0, -1, false)) do
    if l:find("HELLO", 1, true) then
      row = i
    end
  end
  vim.api.nvim_buf_set_lines(bufnr, row - 1, row, false, { '\treturn "HELLO, mine"' })
  H.allow_errors = true
  local result
  require("agentls.history").revert(r.id, function(res)
    result = res or vim.NIL
  end)
  H.wait("the revert's answer", function()
    return result ~= nil
  end)
  vim.wait(100)
  H.fact("result", result)
  H.fact("buffer", H.lines(bufnr))
  H.fact("log", H.run_log())
  H.fact("qf", vim.tbl_map(function(it)
    return { bufname = vim.api.nvim_buf_get_name(it.bufnr), text = it.text }
  end, vim.fn.getqflist()))
  H.fact("qf_title", vim.fn.getqflist({ title = 1 }).title)
end)
