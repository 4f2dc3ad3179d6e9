-- Headless Neovim text-sync check for agentls (run by nvim_test.go).
--
-- Starts the agentls binary as Neovim's LSP client, opens a CRLF file with
-- emoji and CJK, edits the buffer in several ways (API calls and normal-mode
-- commands) and after each group asks the server for agentls/document,
-- comparing its text with the buffer as Neovim would send it in full.
--
-- Environment: AGENTLS_BIN (server binary), AGENTLS_FILE (file to edit),
-- AGENTLS_RESULT (where to write the report), AGENTLS_ENCODING ("utf-16" or
-- "utf-8": the client's offset encoding, offered as general.positionEncodings).
-- The report's first line is "OK" or "FAIL"; the rest explains.

local bin = os.getenv("AGENTLS_BIN")
local file = os.getenv("AGENTLS_FILE")
local result_path = os.getenv("AGENTLS_RESULT")
local encoding = os.getenv("AGENTLS_ENCODING") or "utf-16"

local report = {}
local failed = false

local function log(msg)
  table.insert(report, msg)
end

local function finish()
  local f = assert(io.open(result_path, "w"))
  f:write((failed and "FAIL" or "OK") .. "\n" .. table.concat(report, "\n") .. "\n")
  f:close()
  vim.cmd("qa!")
end

-- buffer_text is the buffer as Neovim sends it whole (lsp.lua buf_get_full_text).
local function buffer_text(bufnr)
  local eol = ({ unix = "\n", dos = "\r\n", mac = "\r" })[vim.api.nvim_buf_get_option(bufnr, "fileformat")]
  local text = table.concat(vim.api.nvim_buf_get_lines(bufnr, 0, -1, true), eol)
  if vim.api.nvim_buf_get_option(bufnr, "eol") then
    text = text .. eol
  end
  return text
end

local function run()
  assert(bin and file and result_path, "AGENTLS_BIN, AGENTLS_FILE and AGENTLS_RESULT must be set")
  local root = vim.fn.fnamemodify(file, ":h")
  local config = {
    name = "agentls",
    cmd = { bin, "serve", "--log-level", "debug" },
    root_dir = root,
    workspace_folders = { { uri = vim.uri_from_fname(root), name = "root" } },
    offset_encoding = encoding,
    flags = { debounce_text_changes = 0 },
  }
  if encoding ~= "utf-16" then
    local caps = vim.lsp.protocol.make_client_capabilities()
    caps.general = { positionEncodings = { encoding } }
    config.capabilities = caps
  end
  -- vim.lsp.start exists from 0.8; 0.7.2 (Debian) only has start_client.
  local client_id = assert(vim.lsp.start_client(config), "start_client failed")
  log("api: " .. (vim.lsp.start and "vim.lsp.start available" or "0.7 start_client"))

  vim.cmd("edit " .. vim.fn.fnameescape(file))
  local bufnr = vim.api.nvim_get_current_buf()
  log("fileformat: " .. vim.api.nvim_buf_get_option(bufnr, "fileformat"))
  vim.lsp.buf_attach_client(bufnr, client_id)
  local client
  local ready = vim.wait(20000, function()
    client = vim.lsp.get_client_by_id(client_id)
    return client ~= nil and client.initialized
  end, 10)
  assert(ready, "agentls did not initialize")
  log("positionEncoding: " .. tostring(client.server_capabilities and client.server_capabilities.positionEncoding))

  local checks = 0
  local function check(label)
    checks = checks + 1
    local resp, err = client.request_sync("agentls/document", { uri = vim.uri_from_bufnr(bufnr) }, 10000, bufnr)
    if not resp or resp.err then
      failed = true
      log(label .. ": request failed: " .. vim.inspect(err or resp.err))
      return
    end
    local want = buffer_text(bufnr)
    if resp.result.text ~= want then
      failed = true
      log(label .. ": MISMATCH\n server: " .. vim.inspect(resp.result.text) .. "\n buffer: " .. vim.inspect(want))
    else
      log(label .. ": ok (version " .. tostring(resp.result.version) .. ", " .. #want .. " bytes)")
    end
  end

  check("after open")

  -- API edits (columns are bytes in the Neovim API).
  local line0 = vim.api.nvim_buf_get_lines(bufnr, 0, 1, true)[1]
  local s, e = line0:find("wörld", 1, true)
  vim.api.nvim_buf_set_text(bufnr, 0, s - 1, 0, e, { "😀X界" })
  vim.api.nvim_buf_set_lines(bufnr, 1, 1, true, { "新しい行 🎉 inserted" })
  vim.api.nvim_buf_set_text(bufnr, 1, #"新し", 2, #"日本", { "A", "B日🇫🇷" })
  check("after API edits")

  -- Normal-mode edits.
  vim.cmd("normal! ggA tail😀")
  vim.cmd("normal! 3G0x")
  vim.cmd("normal! ggJ")
  vim.cmd("normal! Gdd")
  vim.cmd("normal! Oinserted above last 語")
  check("after normal-mode edits")

  vim.cmd("normal! u")
  vim.cmd("normal! u")
  vim.cmd("silent! %s/é/E/g")
  vim.cmd("normal! gg0i\t")
  check("after undo and substitute")

  -- Replace every line, then type a new one. (Not `ggdG`: Neovim 0.7's
  -- incremental sync sends a change for it that drops the buffer's final
  -- line ending, so the editor's own changes disagree with its buffer; the
  -- server applies what it is sent.)
  vim.api.nvim_buf_set_lines(bufnr, 0, -1, true, { "whole 新 buffer 🎉", "second" })
  vim.cmd("normal! Gotyped 語 line")
  check("after replacing every line")

  log("checks: " .. checks)
  vim.lsp.stop_client(client_id)
end

local ok, err = pcall(run)
if not ok then
  failed = true
  log("error: " .. tostring(err))
end
finish()
