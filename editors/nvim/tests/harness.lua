-- Shared helpers for the headless Neovim tests. The Go test (nvim_test.go)
-- starts `nvim --headless --clean -u NONE` with the plugin on 'runtimepath'
-- and these environment variables:
--   AGENTLS_TEST_BIN   the agentls binary
--   AGENTLS_TEST_WS    a workspace folder (holds .agentls, so it is the root)
--   AGENTLS_TEST_DIR   a scratch directory for logs
--   AGENTLS_TEST_OUT   where to write the JSON result
--   AGENTLS_TEST_MODEL the scripted model server's base URL (run tests)
-- A test script records facts with H.fact; the Go side asserts on them.
local H = {}

H.env = {
  bin = vim.env.AGENTLS_TEST_BIN,
  ws = vim.env.AGENTLS_TEST_WS,
  dir = vim.env.AGENTLS_TEST_DIR,
  out = vim.env.AGENTLS_TEST_OUT,
  model = vim.env.AGENTLS_TEST_MODEL,
}

H.facts = vim.empty_dict()
H.notifications = {}

--- When false (the default), H.wait fails as soon as the plugin shows an
--- ERROR notification, instead of waiting out its timeout.
H.allow_errors = false

-- Every vim.notify (the plugin's user-facing messages) is recorded.
local orig_notify = vim.notify
vim.notify = function(msg, level, opts)
  table.insert(H.notifications, { msg = tostring(msg), level = level or vim.log.levels.INFO })
  return orig_notify(msg, level, opts)
end

--- Records a fact for the Go test.
function H.fact(key, value)
  if value == nil then
    value = vim.NIL
  end
  H.facts[key] = value
end

--- Waits for pred() to be true, or fails the test naming `what`.
function H.wait(what, pred, ms)
  local failure
  local ok = vim.wait(ms or 15000, function()
    if pred() then
      return true
    end
    if not H.allow_errors then
      for _, n in ipairs(H.notifications) do
        if n.level == vim.log.levels.ERROR then
          failure = n.msg
          return true
        end
      end
    end
    return false
  end, 10)
  if failure then
    error("while waiting for " .. what .. ": the plugin reported an error: " .. failure, 2)
  end
  if not ok then
    error("timed out waiting for " .. what, 2)
  end
end

--- The server command line: the binary with a debug log in the scratch dir.
function H.cmd()
  return { H.env.bin, "--log-file", H.env.dir .. "/server.log", "--log-level", "debug" }
end

--- A command line that also copies everything Neovim sends the server to
--- `wire` (Content-Length framed), so tests can check what reached it.
function H.tee_cmd(wire)
  return { "sh", "-c", 'tee "$0" | exec "$@"', wire, unpack(H.cmd()) }
end

--- Sets the plugin up with the test binary; `opts` override.
function H.setup(opts)
  require("agentls").setup(vim.tbl_extend("force", { cmd = H.cmd(), log_level = "debug" }, opts or {}))
end

--- Writes a file under the workspace (binary-exact) and returns its path.
function H.write(rel, content)
  local path = H.env.ws .. "/" .. rel
  vim.fn.mkdir(vim.fn.fnamemodify(path, ":h"), "p")
  local f = assert(io.open(path, "wb"))
  f:write(content)
  f:close()
  return path
end

--- Edits `path` and waits until the agentls client is attached and
--- initialized. Returns bufnr, client.
function H.open(path)
  vim.cmd("edit " .. vim.fn.fnameescape(path))
  local bufnr = vim.api.nvim_get_current_buf()
  local client
  H.wait("agentls to attach to " .. path, function()
    client = require("agentls.client").get(bufnr)
    return client ~= nil and client.initialized == true and vim.lsp.buf_is_attached(bufnr, client.id)
  end)
  return bufnr, client
end

--- The server's view of buffer `bufnr` (agentls/document).
function H.document(client, bufnr)
  local res, err = require("agentls.client").request_sync(client, "agentls/document",
    { uri = vim.uri_from_bufnr(bufnr) }, 10000, bufnr)
  if not res then
    error("agentls/document: " .. tostring(err))
  end
  return res
end

--- The buffer's text as Neovim sends it (lines joined by its line ending,
--- with the final newline when 'eol' is set).
function H.buffer_text(bufnr)
  local eol = ({ dos = "\r\n", mac = "\r" })[vim.bo[bufnr].fileformat] or "\n"
  local text = table.concat(vim.api.nvim_buf_get_lines(bufnr, 0, -1, false), eol)
  if vim.bo[bufnr].eol then
    text = text .. eol
  end
  return text
end

--- The preview extmarks of buffer `bufnr`, simplified for assertions:
--- { row, end_row, hl, virt = { {text, hl} }, above, hint (end-of-line text) }.
function H.marks(bufnr)
  local ns = require("agentls.preview").ns
  local out = {}
  for _, m in ipairs(vim.api.nvim_buf_get_extmarks(bufnr, ns, 0, -1, { details = true })) do
    local d = m[4]
    local virt = {}
    for _, vl in ipairs(d.virt_lines or {}) do
      local parts, hl = {}, nil
      for _, chunk in ipairs(vl) do
        table.insert(parts, chunk[1])
        hl = hl or chunk[2]
      end
      table.insert(virt, { text = table.concat(parts), hl = hl or "" })
    end
    local hint = {}
    for _, chunk in ipairs(d.virt_text or {}) do
      table.insert(hint, chunk[1])
    end
    table.insert(out, {
      hint = table.concat(hint),
      row = m[2],
      end_row = d.end_row or vim.NIL,
      hl = d.hl_group or "",
      virt = virt,
      above = d.virt_lines_above or false,
    })
  end
  return out
end

--- Settings pointing the server at the scripted model server.
function H.model_settings(extra)
  return vim.tbl_deep_extend("force", { model = { baseURL = H.env.model, name = "test-model" } }, extra or {})
end

--- The newest run the plugin knows about (a copy), or nil.
function H.last_run()
  local runs = require("agentls.run").list()
  return runs[#runs]
end

--- Waits until the newest run has ended and returns it.
function H.wait_run_end(ms)
  local r
  H.wait("the agent run to end", function()
    r = H.last_run()
    return r ~= nil and r.status ~= "running"
  end, ms)
  return r
end

--- The run log buffer's lines.
function H.run_log()
  return vim.api.nvim_buf_get_lines(require("agentls.run").log_buffer(), 0, -1, false)
end

--- The buffer's lines joined with "\n".
function H.lines(bufnr)
  return table.concat(vim.api.nvim_buf_get_lines(bufnr, 0, -1, false), "\n")
end

--- Reads a whole file ("" when missing).
function H.read(path)
  local f = io.open(path, "rb")
  if not f then
    return ""
  end
  local s = f:read("*a")
  f:close()
  return s
end

--- `keys` with <…> notation replaced by the keys it names.
function H.term(keys)
  return vim.api.nvim_replace_termcodes(keys, true, false, true)
end

--- Runs `steps` (a function) while Neovim is in insert mode, entered with
--- `enter`: feedkeys with "x!" keeps insert mode until a step types <Esc>,
--- and the steps run from timers meanwhile, so typed keys, autocommands and
--- server answers are all processed between them (H.wait's vim.wait would
--- not process typed keys). An error in a step leaves insert mode and is
--- raised here.
function H.in_insert(enter, steps)
  local failure
  local co = coroutine.create(function()
    local ok, err = xpcall(steps, debug.traceback)
    if not ok then
      failure = err
    end
    vim.api.nvim_feedkeys(H.term("<Esc>"), "n", false)
  end)
  vim.defer_fn(function()
    assert(coroutine.resume(co))
  end, 0)
  vim.api.nvim_feedkeys(H.term(enter), "x!", false)
  if failure then
    error(failure, 0)
  end
end

--- Inside H.in_insert's steps: lets Neovim run for `ms`.
function H.co_sleep(ms)
  local co = coroutine.running()
  vim.defer_fn(function()
    assert(coroutine.resume(co))
  end, ms)
  coroutine.yield()
end

--- Inside H.in_insert's steps: waits for pred() or fails naming `what`.
function H.co_wait(what, pred)
  local deadline = vim.loop.now() + 15000
  while not pred() do
    if vim.loop.now() > deadline then
      error("timed out waiting for " .. what, 2)
    end
    H.co_sleep(10)
  end
end

--- Types `keys` as a user would (mappings apply).
function H.type_keys(keys)
  vim.api.nvim_feedkeys(H.term(keys), "t", false)
end

local function finish(ok, err)
  local result = {
    ok = ok,
    error = err or "",
    facts = H.facts,
    notifications = H.notifications,
    nvim = vim.version(),
  }
  local f = assert(io.open(H.env.out, "w"))
  f:write(vim.json.encode(result))
  f:close()
end

--- Runs the test body, writes the result file and quits Neovim.
function H.run(body)
  local ok, err = xpcall(body, debug.traceback)
  local wok, werr = pcall(finish, ok, not ok and tostring(err) or nil)
  if not wok then
    io.stderr:write("harness: cannot write result: " .. tostring(werr) .. "\n")
  end
  vim.cmd("qa!")
end

return H
