-- What the server sees (agentls/document) matches the buffer after edits,
-- with CRLF line endings, emoji (surrogate pairs in UTF-16), CJK and tabs.
local H = dofile(vim.fn.fnamemodify(debug.getinfo(1, "S").source:sub(2), ":h") .. "/harness.lua")

local function version(bufnr)
  local util = vim.lsp.util
  return (util.buf_versions and util.buf_versions[bufnr]) or vim.b[bufnr].changedtick
end

H.run(function()
  vim.cmd("runtime plugin/agentls.lua")
  H.setup({})
  local content = "one\r\ntwo 😀 three\r\n日本語\r\n\tTabbed\r\n"
  local bufnr, client = H.open(H.write("crlf.txt", content))
  H.fact("fileformat", vim.bo[bufnr].fileformat)
  local doc = H.document(client, bufnr)
  H.fact("opened_text", doc.text)
  H.fact("file_text", content)

  -- Insert after the emoji (a 4-byte UTF-8 sequence, 2 UTF-16 units).
  local line = vim.api.nvim_buf_get_lines(bufnr, 1, 2, false)[1]
  local after_emoji = line:find("😀", 1, true) + #"😀" - 1
  vim.api.nvim_buf_set_text(bufnr, 1, after_emoji, 1, after_emoji, { "X" })
  -- Replace inside the CJK line, spanning a character boundary.
  vim.api.nvim_buf_set_text(bufnr, 2, 3, 2, 6, { "本!", "新しい" })
  -- Add and delete whole lines.
  vim.api.nvim_buf_set_lines(bufnr, -1, -1, false, { "appended 🎉", "" })
  vim.api.nvim_buf_set_lines(bufnr, 0, 1, false, {})
  -- Many small edits in a row (typing).
  for i = 1, 50 do
    vim.api.nvim_buf_set_text(bufnr, 0, 0, 0, 0, { tostring(i % 10) })
  end

  doc = H.document(client, bufnr)
  H.fact("edited_text", doc.text)
  H.fact("buffer_text", H.buffer_text(bufnr))
  H.fact("server_version", doc.version)
  H.fact("client_version", version(bufnr))

  -- A second buffer with LF endings, edited and then reloaded from disk.
  local lf, lf_client = H.open(H.write("lf.txt", "alpha\nbeta\n"))
  vim.api.nvim_buf_set_lines(lf, 1, 2, false, { "béta ✓" })
  H.fact("lf_text", H.document(lf_client, lf).text)
  H.fact("lf_buffer_text", H.buffer_text(lf))
end)
