-- A conflicted hunk explained where the user looks: its hint is short (no
-- reason cut at the window edge, no literal \t); accepting it opens a
-- float with the hunk, what changed and the options, and fills the
-- quickfix list; :AgentExplain shows the same float.
local H = dofile(vim.fn.fnamemodify(debug.getinfo(1, "S").source:sub(2), ":h") .. "/harness.lua")

local function floats()
  local out = {}
  for _, w in ipairs(vim.api.nvim_list_wins()) do
    if vim.api.nvim_win_get_config(w).relative ~= "" then
      table.insert(out, table.concat(vim.api.nvim_buf_get_lines(vim.api.nvim_win_get_buf(w), 0, -1, false), "\n"))
    end
  end
  return out
end

local function close_floats()
  for _, w in ipairs(vim.api.nvim_list_wins()) do
    if vim.api.nvim_win_get_config(w).relative ~= "" then
      vim.api.nvim_win_close(w, true)
    end
  end
end

H.run(function()
  vim.cmd("runtime plugin/agentls.lua")
  H.setup({ settings = H.model_settings({ mode = "preview" }) })
  local path = H.env.ws .. "/greet.go"
  local bufnr = H.open(path)
  local preview = require("agentls.preview")
  vim.cmd("AgentRun make it loud")
  H.wait_run_end()
  H.wait("a previewed hunk", function()
    return #preview.hunks(bufnr) == 1
  end)
  local row = preview.hunks(bufnr)[1].first
  -- The user edits the hunk's line: it becomes conflicted.
  vim.api.nvim_buf_set_lines(bufnr, row, row + 1, false, { '\treturn "hi there"' })
  H.wait("the hunk to turn conflicted", function()
    local h = preview.hunks(bufnr)[1]
    return h ~= nil and h.status == "conflicted"
  end)
  local hints = {}
  for _, m in ipairs(H.marks(bufnr)) do
    if m.hint ~= "" then
      table.insert(hints, m.hint)
    end
  end
  H.fact("hints", hints)

  vim.api.nvim_win_set_cursor(0, { row + 1, 0 })
  H.allow_errors = true
  vim.cmd("AgentAccept")
  H.wait("the conflict float", function()
    return #floats() > 0
  end)
  H.fact("float_after_accept", floats()[1])
  H.fact("qf", vim.tbl_map(function(it)
    return { lnum = it.lnum, text = it.text, bufname = vim.fn.bufname(it.bufnr) }
  end, vim.fn.getqflist()))
  H.fact("qf_title", vim.fn.getqflist({ title = 1 }).title)
  close_floats()

  vim.api.nvim_win_set_cursor(0, { row + 1, 0 })
  vim.cmd("AgentExplain")
  H.wait("the :AgentExplain float", function()
    return #floats() > 0
  end)
  H.fact("float_explain", floats()[1])
  H.fact("buffer", H.lines(bufnr))
end)
