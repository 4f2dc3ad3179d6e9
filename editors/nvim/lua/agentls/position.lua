-- Conversions between LSP positions (character offsets in the negotiated
-- encoding: utf-16 by default, utf-8 or utf-32) and Neovim byte columns, and
-- matching server URIs to buffers.
--
-- Written in plain Lua rather than with vim.str_byteindex or
-- vim.lsp.util._str_*_enc: their signatures changed between 0.7 and 0.11,
-- and the private helpers may go away.
local M = {}

local uv = vim.uv or vim.loop -- vim.loop is deprecated from 0.10

local function seq_len(byte)
  if byte < 0x80 then
    return 1
  elseif byte >= 0xF0 then
    return 4
  elseif byte >= 0xE0 then
    return 3
  elseif byte >= 0xC0 then
    return 2
  end
  return 1 -- stray continuation byte: count it alone
end

local function units(n, encoding)
  if encoding == "utf-16" and n == 4 then
    return 2
  end
  return 1
end

--- Byte column (0-based) in `line` of LSP character offset `char`.
--- An offset past the end clamps to the line's length; one inside a
--- character (between the halves of a surrogate pair) snaps to its start.
---@param line string
---@param char integer
---@param encoding string "utf-8"|"utf-16"|"utf-32"
---@return integer
function M.to_byte(line, char, encoding)
  if encoding == "utf-8" then
    return math.max(0, math.min(char, #line))
  end
  local count, i = 0, 1
  while i <= #line do
    if count >= char then
      return i - 1
    end
    local n = seq_len(line:byte(i))
    count = count + units(n, encoding)
    if count > char then
      return i - 1
    end
    i = i + n
  end
  return #line
end

--- LSP character offset of byte column `col` (0-based) in `line`.
---@param line string
---@param col integer
---@param encoding string "utf-8"|"utf-16"|"utf-32"
---@return integer
function M.from_byte(line, col, encoding)
  col = math.max(0, math.min(col, #line))
  if encoding == "utf-8" then
    return col
  end
  local count, i = 0, 1
  while i <= col do
    local n = seq_len(line:byte(i))
    count = count + units(n, encoding)
    i = i + n
  end
  return count
end

--- LSP range covering whole lines `first`..`last` (1-based, inclusive) of
--- buffer `bufnr`: from the start of `first` to the end of `last`.
---@return table LSP Range
function M.line_range(bufnr, first, last, encoding)
  local last_line = vim.api.nvim_buf_get_lines(bufnr, last - 1, last, false)[1] or ""
  return {
    start = { line = first - 1, character = 0 },
    ["end"] = { line = last - 1, character = M.from_byte(last_line, #last_line, encoding) },
  }
end

local function normalize(path)
  if not path or path == "" then
    return nil
  end
  path = vim.fn.fnamemodify(path, ":p")
  return uv.fs_realpath(path) or path
end

--- The file path of buffer `bufnr`, absolute and with symlinks resolved;
--- nil for unnamed and special buffers.
function M.buf_path(bufnr)
  if vim.bo[bufnr].buftype ~= "" then
    return nil
  end
  return normalize(vim.api.nvim_buf_get_name(bufnr))
end

--- Whether `uri` (as the server sent it: the server re-encodes URIs, so the
--- string may differ from Neovim's) names the file of buffer `bufnr`.
function M.uri_matches(uri, bufnr)
  if type(uri) ~= "string" then
    return false
  end
  if uri == vim.uri_from_bufnr(bufnr) then
    return true
  end
  if not uri:match("^file:") then
    return false
  end
  local path = M.buf_path(bufnr)
  return path ~= nil and path == normalize(vim.uri_to_fname(uri))
end

return M
