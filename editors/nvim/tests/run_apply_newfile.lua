-- :AgentRun! (apply mode) with a run that creates a file and then edits
-- it: Neovim opens a buffer for the new path and the edits land there;
-- :write saves exactly the text the agent wrote (no blank line more from
-- the buffer's implicit final newline), and the run's second edit of the
-- file is applied too.
local H = dofile(vim.fn.fnamemodify(debug.getinfo(1, "S").source:sub(2), ":h") .. "/harness.lua")

H.run(function()
  vim.cmd("runtime plugin/agentls.lua")
  H.setup({ settings = H.model_settings() })
  H.open(H.env.ws .. "/greet.go")
  vim.cmd("AgentRun! write the notes")
  local r = H.wait_run_end()
  H.fact("status", r.status)
  local target = H.env.ws .. "/notes.md"
  local bufnr = vim.fn.bufnr(target)
  H.fact("has_buffer", bufnr > 0)
  if bufnr > 0 then
    H.fact("buffer_text", H.buffer_text(bufnr))
    vim.api.nvim_buf_call(bufnr, function()
      vim.cmd("silent write")
    end)
  end
  H.fact("disk", H.read(target))
  H.fact("log", H.run_log())
end)
