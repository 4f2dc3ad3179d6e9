-- How ghost text is drawn and taken, without a server: ghost.show() puts a
-- completion at the cursor as the server's answer would, then the keys
-- are typed in insert mode. Inside a line the first line goes after the
-- line's end ('eol'; Neovim 0.7 has no inline virtual text); further
-- lines are virtual lines; <M-j> takes a line at a time, <M-w> a word.
local H = dofile(vim.fn.fnamemodify(debug.getinfo(1, "S").source:sub(2), ":h") .. "/harness.lua")

local function marks(bufnr)
  local out = {}
  for _, m in ipairs(vim.api.nvim_buf_get_extmarks(bufnr, require("agentls.ghost").ns, 0, -1, { details = true })) do
    local d = m[4]
    local vl = {}
    for _, l in ipairs(d.virt_lines or {}) do
      table.insert(vl, l[1][1])
    end
    table.insert(out, { row = m[2], col = m[3], pos = d.virt_text_pos, text = d.virt_text[1][1], lines = vl })
  end
  return out
end

H.run(function()
  vim.cmd("runtime plugin/agentls.lua")
  H.setup({ autostart = false })
  local ghost = require("agentls.ghost")
  vim.cmd("enew")
  local bufnr = vim.api.nvim_get_current_buf()
  vim.bo[bufnr].autoindent = false
  vim.bo[bufnr].tabstop = 4
  vim.api.nvim_buf_set_lines(bufnr, 0, -1, false, { "call(x)", "if ok:" })
  ghost.attach(bufnr) -- what attaching agentls does

  -- Inside a line: after the line's end.
  vim.api.nvim_win_set_cursor(0, { 1, 6 })
  H.in_insert("i", function()
    ghost.show(bufnr, 0, 6, ", y")
    H.fact("inside", marks(bufnr))
    H.type_keys("<M-l>")
    H.co_wait("the accepted text", function()
      return vim.api.nvim_get_current_line() == "call(x, y)"
    end)
  end)

  -- At the end of a line, several lines: overlay plus virtual lines, one
  -- line or word at a time.
  vim.api.nvim_win_set_cursor(0, { 2, 5 })
  H.in_insert("a", function()
    ghost.show(bufnr, 1, 6, " # check\n\treturn x\n\tdone()")
    H.fact("multi", marks(bufnr))
    H.type_keys("<M-j>")
    H.co_wait("the first line", function()
      return vim.api.nvim_get_current_line() == "if ok: # check"
    end)
    H.fact("after_line", marks(bufnr))
    H.type_keys("<M-j>")
    H.co_wait("the second line", function()
      return vim.api.nvim_buf_line_count(bufnr) == 3
    end)
    H.fact("after_second_line", marks(bufnr))
    H.fact("cursor_second_line", vim.api.nvim_win_get_cursor(0))
    H.type_keys("<M-w>")
    H.co_wait("the line break", function()
      return vim.api.nvim_buf_line_count(bufnr) == 4
    end)
    H.type_keys("<M-w>")
    H.co_wait("the word", function()
      return vim.api.nvim_get_current_line() == "\tdone"
    end)
    H.fact("after_words", marks(bufnr))
    H.type_keys("<M-l>")
    H.co_wait("the rest", function()
      return vim.api.nvim_get_current_line() == "\tdone()"
    end)
  end)
  H.fact("lines", vim.api.nvim_buf_get_lines(bufnr, 0, -1, false))
  H.fact("left", #marks(bufnr))
end)
