-- Ghost text in insert mode, typed for real: keys go through Neovim's
-- typeahead (feedkeys), so the plugin's autocommands, timers, mappings and
-- asynchronous requests run as they do for a user. The server replays
-- examples/hello's cassette, whose one completion answers a new function
-- at the end of greet.py (lspserver's TestExampleHelloGhostText).
--   AGENTLS_TEST_CASSETTE  the cassette file
local H = dofile(vim.fn.fnamemodify(debug.getinfo(1, "S").source:sub(2), ":h") .. "/harness.lua")

local term, in_insert, wait_until, type_keys = H.term, H.in_insert, H.co_wait, H.type_keys

-- The ghost extmarks of buffer `bufnr`: their text as shown, where and how.
local function ghosts(bufnr)
  local out = {}
  for _, m in ipairs(vim.api.nvim_buf_get_extmarks(bufnr, require("agentls.ghost").ns, 0, -1, { details = true })) do
    local d = m[4]
    local lines = {}
    local first = {}
    for _, chunk in ipairs(d.virt_text or {}) do
      table.insert(first, chunk[1])
    end
    table.insert(lines, table.concat(first))
    for _, vl in ipairs(d.virt_lines or {}) do
      local l = {}
      for _, chunk in ipairs(vl) do
        table.insert(l, chunk[1])
      end
      table.insert(lines, table.concat(l))
    end
    table.insert(out, { row = m[2], col = m[3], pos = d.virt_text_pos, text = table.concat(lines, "\n") })
  end
  return out
end

local function ghost_text(bufnr)
  local g = ghosts(bufnr)[1]
  return g and g.text or ""
end

local function line(bufnr)
  return vim.api.nvim_get_current_line()
end

H.run(function()
  vim.cmd("runtime plugin/agentls.lua")
  H.setup({ cmd = H.tee_cmd(H.env.dir .. "/wire"), settings = { model = { replay = vim.env.AGENTLS_TEST_CASSETTE } } })
  local bufnr, client = H.open(H.env.ws .. "/greet.py")
  H.fact("inlineProvider", client.server_capabilities.inlineCompletionProvider ~= nil)
  H.fact("completionProvider", client.server_capabilities.completionProvider ~= nil)
  -- The keys below type the indentation themselves (Python's indent
  -- script would add its own after the colon).
  vim.bo[bufnr].indentexpr = ""
  vim.bo[bufnr].autoindent = false
  vim.bo[bufnr].smartindent = false

  -- A new function at the end of the file; the ghost text comes by itself.
  in_insert("Go", function()
    type_keys("<CR>def farewell(name):<CR>    ")
    wait_until("the ghost text", function()
      return ghost_text(bufnr):find("Goodbye", 1, true) ~= nil
    end)
    H.fact("ghost", ghosts(bufnr))
    H.fact("line_with_ghost", line(bufnr))
    type_keys("<M-l>")
    wait_until("the accepted line", function()
      return line(bufnr) ~= "    "
    end)
    H.fact("accepted", line(bufnr))
    H.fact("cursor_after_accept", vim.api.nvim_win_get_cursor(0))
    H.fact("ghosts_after_accept", #ghosts(bufnr))
  end)
  H.fact("lines_after_accept", vim.api.nvim_buf_get_lines(bufnr, -4, -1, false))

  -- Again, typing through the ghost text, then one word of it.
  local row = vim.api.nvim_buf_line_count(bufnr) - 1
  vim.api.nvim_buf_set_lines(bufnr, row, row + 1, false, { "   " })
  vim.api.nvim_win_set_cursor(0, { row + 1, 3 })
  in_insert("A", function()
    type_keys(" ")
    wait_until("the ghost text again", function()
      return ghost_text(bufnr):find("Goodbye", 1, true) ~= nil
    end)
    type_keys("r")
    wait_until("the typed character", function()
      return line(bufnr) == "    r"
    end)
    H.fact("ghost_typed_through", ghost_text(bufnr))
    type_keys("<M-w>")
    wait_until("the accepted word", function()
      return line(bufnr) ~= "    r"
    end)
    H.fact("word", line(bufnr))
    H.fact("ghost_after_word", ghost_text(bufnr))
    H.fact("ghosts_before_leave", #ghosts(bufnr))
  end)
  H.fact("ghosts_after_leave", #ghosts(bufnr))

  -- A key that does not continue the ghost text hides it.
  vim.api.nvim_buf_set_lines(bufnr, row, row + 1, false, { "   " })
  vim.api.nvim_win_set_cursor(0, { row + 1, 3 })
  in_insert("A", function()
    type_keys(" ")
    wait_until("the ghost text once more", function()
      return ghost_text(bufnr):find("Goodbye", 1, true) ~= nil
    end)
    -- Asking twice at once: the first request is still running when
    -- the second starts, so it is cancelled ($/cancelRequest).
    require("agentls.ghost").trigger()
    require("agentls.ghost").trigger()
    type_keys("X")
    wait_until("the typed X", function()
      return line(bufnr) == "    X"
    end)
    H.fact("ghosts_after_mismatch", #ghosts(bufnr))
  end)
end)
