-- Headless Neovim review check for agentls (run by review_nvim_test.go).
--
-- Plain Neovim LSP, no plugin: starts the agentls binary, opens a file,
-- runs an agent task in preview mode (the model is a scripted server), then
-- reviews the proposal the way a plugin-less user does: the cursor on a
-- changed line, vim.lsp.buf.code_action(), "Agent: Accept change" picked in
-- vim.ui.select; Neovim's own code action → workspace/executeCommand →
-- workspace/applyEdit handling changes the buffer. The second change is
-- rejected the same way. The buffer must then be exactly AGENTLS_EXPECT.
--
-- Environment: AGENTLS_BIN, AGENTLS_FILE, AGENTLS_RESULT, AGENTLS_EXPECT
-- (file holding the expected buffer text), AGENTLS_MODEL_URL,
-- AGENTLS_ENCODING ("utf-16" or "utf-8"). The report's first line is "OK"
-- or "FAIL"; the rest explains.

local bin = os.getenv("AGENTLS_BIN")
local file = os.getenv("AGENTLS_FILE")
local result_path = os.getenv("AGENTLS_RESULT")
local expect_path = os.getenv("AGENTLS_EXPECT")
local model_url = os.getenv("AGENTLS_MODEL_URL")
local encoding = os.getenv("AGENTLS_ENCODING") or "utf-16"

local report = {}
local failed = false

local function log(msg)
  table.insert(report, msg)
end

local function fail(msg)
  failed = true
  log("FAIL: " .. msg)
end

local function finish()
  local f = assert(io.open(result_path, "w"))
  f:write((failed and "FAIL" or "OK") .. "\n" .. table.concat(report, "\n") .. "\n")
  f:close()
  vim.cmd("qa!")
end

local function read_all(path)
  local f = assert(io.open(path, "rb"))
  local s = f:read("*a")
  f:close()
  return s
end

local function buffer_text(bufnr)
  local text = table.concat(vim.api.nvim_buf_get_lines(bufnr, 0, -1, true), "\n")
  if vim.api.nvim_buf_get_option(bufnr, "eol") then
    text = text .. "\n"
  end
  return text
end

local function run()
  assert(bin and file and result_path and expect_path and model_url, "environment incomplete")
  local root = vim.fn.fnamemodify(file, ":h")
  local run_end
  local config = {
    name = "agentls",
    cmd = { bin, "serve", "--log-level", "debug" },
    root_dir = root,
    workspace_folders = { { uri = vim.uri_from_fname(root), name = "root" } },
    offset_encoding = encoding,
    flags = { debounce_text_changes = 0 },
    init_options = { model = { baseURL = model_url, name = "test-model" }, mode = "preview" },
    handlers = {
      -- Plain Neovim asks the reject's "why?" with inputlist, which a
      -- headless Neovim cannot answer: pick the first action ("No reason"),
      -- as Enter would.
      ["window/showMessageRequest"] = function(_, params)
        return params.actions and params.actions[1] or vim.NIL
      end,
      ["agentls/runEvent"] = function(_, ev)
        if ev.kind == "finished" or ev.kind == "failed" or ev.kind == "cancelled" then
          run_end = ev
        end
      end,
    },
  }
  if encoding ~= "utf-16" then
    local caps = vim.lsp.protocol.make_client_capabilities()
    caps.general = { positionEncodings = { encoding } }
    config.capabilities = caps
  end
  local client_id = assert(vim.lsp.start_client(config), "start_client failed")
  vim.cmd("edit " .. vim.fn.fnameescape(file))
  local bufnr = vim.api.nvim_get_current_buf()
  vim.lsp.buf_attach_client(bufnr, client_id)
  local client
  assert(vim.wait(20000, function()
    client = vim.lsp.get_client_by_id(client_id)
    return client ~= nil and client.initialized
  end, 10), "agentls did not initialize")
  local uri = vim.uri_from_bufnr(bufnr)
  log("positionEncoding: " .. tostring(client.server_capabilities and client.server_capabilities.positionEncoding))

  -- 1. An agent run in preview mode.
  local resp = client.request_sync("workspace/executeCommand", {
    command = "agentls.run",
    arguments = { { prompt = "Translate the two words.", uri = uri } },
  }, 10000, bufnr)
  if not resp or resp.err or not resp.result or not resp.result.runId then
    return fail("agentls.run: " .. vim.inspect(resp))
  end
  if not vim.wait(30000, function() return run_end ~= nil end, 10) then
    return fail("the run did not end")
  end
  log("run: " .. run_end.kind .. " pending=" .. tostring(run_end.pending))

  local function proposals()
    local r = client.request_sync("agentls/proposals", { uri = uri }, 10000, bufnr)
    assert(r and not r.err, "agentls/proposals failed: " .. vim.inspect(r))
    return r.result.proposals
  end
  local props = proposals()
  if #props ~= 1 or #props[1].hunks ~= 2 then
    return fail("proposals after the run: " .. vim.inspect(props))
  end
  local function hunk_count()
    local n = 0
    for _, p in ipairs(proposals()) do
      n = n + #p.hunks
    end
    return n
  end
  local hunks = props[1].hunks
  log("hunks: " .. #hunks .. " at lines " .. hunks[1].range.start.line .. ", " .. hunks[2].range.start.line)
  if buffer_text(bufnr) ~= read_all(file) then
    return fail("preview changed the buffer before any accept")
  end

  -- 1b. Preview without a plugin: Neovim's own diagnostics hold each hunk
  -- (what `vim.diagnostic` shows as virtual text / float), and hover on a
  -- hunk returns its diff.
  local function agent_diags()
    local out = {}
    for _, d in ipairs(vim.diagnostic.get(bufnr)) do
      if d.source == "agentls" then
        table.insert(out, d)
      end
    end
    table.sort(out, function(a, b) return a.lnum < b.lnum end)
    return out
  end
  if not vim.wait(10000, function() return #agent_diags() == 2 end, 10) then
    return fail("diagnostics after the run: " .. vim.inspect(vim.diagnostic.get(bufnr)))
  end
  local diags = agent_diags()
  for i, d in ipairs(diags) do
    log(string.format("diagnostic %d: line %d severity %d: %s", i, d.lnum, d.severity, d.message))
    if d.lnum ~= hunks[i].range.start.line or d.severity ~= vim.diagnostic.severity.INFO then
      fail("diagnostic " .. i .. " is not at its hunk: " .. vim.inspect(d))
    end
  end
  local hover = client.request_sync("textDocument/hover", {
    textDocument = { uri = uri }, position = { line = hunks[1].range.start.line, character = 1 },
  }, 10000, bufnr)
  local hv = hover and hover.result and hover.result.contents and hover.result.contents.value or ""
  log("hover: " .. (hv:find("```diff", 1, true) and "diff" or vim.inspect(hover)))

  -- 2. Code actions as a user picks them.
  local function pick(title, hunk, want_left)
    vim.api.nvim_win_set_cursor(0, { hunk.range.start.line + 1, 2 })
    local offered = {}
    vim.ui.select = function(items, opts, on_choice)
      local chosen
      for _, item in ipairs(items) do
        local t = opts.format_item and opts.format_item(item) or item[2].title
        table.insert(offered, t)
        if item[2].title == title then
          chosen = item
        end
      end
      on_choice(chosen)
    end
    vim.lsp.buf.code_action()
    local ok = vim.wait(10000, function() return hunk_count() == want_left end, 20)
    log(title .. ": offered {" .. table.concat(offered, " | ") .. "}")
    if not ok then
      fail(title .. " did not take effect: " .. vim.inspect(proposals()))
    end
  end
  pick("Agent: Accept change", hunks[1], 1)
  pick("Agent: Reject change", hunks[2], 0)
  if not vim.wait(10000, function() return #agent_diags() == 0 end, 10) then
    return fail("diagnostics after the review: " .. vim.inspect(agent_diags()))
  end
  log("diagnostics after review: none")

  local want = read_all(expect_path)
  local got = buffer_text(bufnr)
  if got ~= want then
    return fail("buffer after review:\n" .. vim.inspect(got) .. "\nwant\n" .. vim.inspect(want))
  end
  log("buffer: ok (" .. #got .. " bytes)")
  local doc = client.request_sync("agentls/document", { uri = uri }, 10000, bufnr)
  if not doc or doc.err or doc.result.text ~= got then
    return fail("server's view of the document differs: " .. vim.inspect(doc))
  end
  log("server view: ok (version " .. tostring(doc.result.version) .. ")")
end

local ok, err = pcall(run)
if not ok then
  fail("error: " .. tostring(err))
end
finish()
