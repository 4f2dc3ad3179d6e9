-- Next edits with the one-key accept, typed for real: a rename in insert
-- mode brings the server's next-edit suggestion (the scripted model's
-- edit_file call), <M-n> takes it in insert mode with the cursor on
-- another line; a second rename in normal mode, <M-n> again from another
-- line; with no suggestion, <M-n> changes nothing.
local H = dofile(vim.fn.fnamemodify(debug.getinfo(1, "S").source:sub(2), ":h") .. "/harness.lua")

local nextedit = require("agentls.nextedit")

H.run(function()
  vim.cmd("runtime plugin/agentls.lua")
  H.setup({
    -- No ghost text: the scripted model answers chat only.
    ghost = false,
    settings = H.model_settings({ completion = { nextEdit = true, nextEditDelayMs = 50 } }),
  })
  local bufnr = H.open(H.env.ws .. "/f.py")
  H.fact("mapped_n", vim.fn.maparg("<M-n>", "n") ~= "")
  H.fact("mapped_i", vim.fn.maparg("<M-n>", "i") ~= "")

  -- Insert mode: rename the parameter a → b, wait for the suggestion,
  -- take it without leaving insert mode or moving.
  vim.api.nvim_win_set_cursor(0, { 1, 6 })
  H.in_insert("s", function()
    H.type_keys("b")
    H.co_wait("the next-edit suggestion", function()
      return nextedit.current(bufnr) ~= nil
    end)
    local hint
    for _, m in ipairs(H.marks(bufnr)) do
      hint = hint or m.hint
    end
    H.fact("hint", hint or "")
    H.fact("suggestion_row", nextedit.current(bufnr).first)
    H.type_keys("<M-n>")
    H.co_wait("the accepted next edit", function()
      return vim.api.nvim_buf_get_lines(bufnr, 1, 2, false)[1] ~= "    return a + 1"
    end)
    H.fact("mode_after_insert_accept", vim.api.nvim_get_mode().mode)
    H.fact("cursor_after_insert_accept", vim.api.nvim_win_get_cursor(0))
  end)
  H.fact("after_insert_accept", H.lines(bufnr))
  H.wait("the suggestion to be gone", function()
    return nextedit.current(bufnr) == nil
  end)

  -- Normal mode: rename b → c with r, then <M-n> from the first line.
  vim.api.nvim_win_set_cursor(0, { 1, 6 })
  vim.api.nvim_feedkeys(H.term("rc"), "xt", false)
  H.wait("the second suggestion", function()
    return nextedit.current(bufnr) ~= nil
  end)
  vim.api.nvim_win_set_cursor(0, { 1, 0 })
  vim.api.nvim_feedkeys(H.term("<M-n>"), "xt", false)
  H.wait("the second accepted next edit", function()
    return vim.api.nvim_buf_get_lines(bufnr, 1, 2, false)[1] ~= "    return b + 1"
  end)
  H.fact("after_normal_accept", H.lines(bufnr))
  H.wait("the second suggestion to be gone", function()
    return nextedit.current(bufnr) == nil
  end)

  -- No suggestion: the key is itself (nothing in normal mode).
  local tick = vim.b[bufnr].changedtick
  vim.api.nvim_feedkeys(H.term("<M-n>"), "xt", false)
  H.fact("unchanged_without_suggestion", vim.b[bufnr].changedtick == tick)
  H.fact("final", H.lines(bufnr))
end)
