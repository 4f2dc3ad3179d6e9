-- Starting the agentls language server, attaching buffers to it, and the
-- handlers for its custom notifications. Works on Neovim 0.7 (start_client +
-- buf_attach_client, one client per root kept here) and on 0.8+ (vim.lsp.start,
-- which reuses a client with the same name and root itself).
local log = require("agentls.log")
local position = require("agentls.position")

local uv = vim.uv or vim.loop -- vim.loop is deprecated from 0.10

local M = {}

--- The client name; every agentls client Neovim runs carries it.
M.name = "agentls"

-- Client methods became colon methods in 0.11 (client:request); the dot
-- form warns there and is to be removed.
local colon_methods = vim.fn.has("nvim-0.11") == 1

local function invoke(client, name, ...)
  if colon_methods then
    return client[name](client, ...)
  end
  return client[name](...)
end

local server_info = {} -- client id -> initialize result's serverInfo
local by_root = {} -- Neovim 0.7 only: root dir -> client id
local failed = {} -- command lines that could not be started (not retried until setup() runs again)

--- The serverInfo the client's server sent in its initialize result.
---@return table|nil {name=string, version=string?}
function M.server_info(client_id)
  return server_info[client_id]
end

--- All running agentls clients.
---@return table[]
function M.clients()
  local out = {}
  local all = vim.lsp.get_clients and vim.lsp.get_clients({ name = M.name }) or vim.lsp.get_active_clients()
  for _, c in ipairs(all) do
    if c.name == M.name then
      table.insert(out, c)
    end
  end
  return out
end

--- The agentls client attached to buffer `bufnr` (0: current), or nil.
function M.get(bufnr)
  bufnr = (bufnr == nil or bufnr == 0) and vim.api.nvim_get_current_buf() or bufnr
  if vim.lsp.get_clients then
    return vim.lsp.get_clients({ bufnr = bufnr, name = M.name })[1]
  end
  for _, c in pairs(vim.lsp.buf_get_clients(bufnr)) do
    if c.name == M.name then
      return c
    end
  end
  return nil
end

--- The workspace root for buffer `bufnr`: cfg.root_dir (a string or a
--- function(bufnr) returning one) if given, else the nearest ancestor holding
--- one of cfg.root_markers, else the current directory when the file lies
--- inside it, else the file's directory.
function M.find_root(bufnr, cfg)
  if type(cfg.root_dir) == "function" then
    local r = cfg.root_dir(bufnr)
    if r then
      return r
    end
  elseif type(cfg.root_dir) == "string" then
    return cfg.root_dir
  end
  local path = position.buf_path(bufnr) or vim.fn.fnamemodify(vim.api.nvim_buf_get_name(bufnr), ":p")
  local dir = vim.fn.fnamemodify(path, ":h")
  local cur = dir
  while true do
    for _, marker in ipairs(cfg.root_markers or {}) do
      if uv.fs_stat(cur .. "/" .. marker) then
        return cur
      end
    end
    local parent = vim.fn.fnamemodify(cur, ":h")
    if parent == cur then
      break
    end
    cur = parent
  end
  local cwd = uv.fs_realpath(vim.fn.getcwd()) or vim.fn.getcwd()
  if path:sub(1, #cwd + 1) == cwd .. "/" then
    return cwd
  end
  return dir
end

-- Closes the current undo block of buffer `bufnr`, so that the next change
-- starts one of its own: setting 'undolevels', even to its own value,
-- syncs undo (see :help 'undolevels'). An edit applied from a callback
-- would otherwise join the block of whatever changed the buffer before.
local function break_undo(bufnr)
  vim.api.nvim_buf_call(bufnr, function()
    vim.bo[bufnr].undolevels = vim.bo[bufnr].undolevels
  end)
end

-- Neovim's workspace/applyEdit handler silently skips (and reports as
-- applied) a versioned edit for a buffer that changed since that version.
-- Answer applied=false instead, so the server keeps the proposal pending
-- with a reason rather than believing it landed. Each buffer the edit
-- changes gets it as one undo step of its own (an accept, a revert), so
-- `u` takes back exactly that.
local function apply_edit(err, params, ctx, config)
  local util = vim.lsp.util
  local loaded, deleted = {}, {}
  for _, change in ipairs((params and params.edit and params.edit.documentChanges) or {}) do
    if change.kind == "delete" and type(change.uri) == "string" then
      table.insert(deleted, vim.uri_to_fname(change.uri))
    end
    local doc = change.textDocument
    if doc and type(doc.version) == "number" then
      local bufnr = vim.fn.bufnr(vim.uri_to_fname(doc.uri))
      if bufnr > 0 and vim.api.nvim_buf_is_loaded(bufnr) then
        local current = (util.buf_versions and util.buf_versions[bufnr]) or vim.b[bufnr].changedtick
        if current and current > doc.version then
          local reason = string.format("%s changed since version %d (now %d)", doc.uri, doc.version, current)
          log.warn("refusing stale workspace edit: %s", reason)
          return { applied = false, failureReason = reason }
        end
      end
    end
    if doc and doc.uri then
      local bufnr = vim.fn.bufnr(vim.uri_to_fname(doc.uri))
      if bufnr > 0 and vim.api.nvim_buf_is_loaded(bufnr) then
        table.insert(loaded, bufnr)
      end
    end
  end
  for _, bufnr in ipairs(loaded) do
    break_undo(bufnr)
  end
  local res = vim.lsp.handlers["workspace/applyEdit"](err, params, ctx, config)
  for _, bufnr in ipairs(loaded) do
    if vim.api.nvim_buf_is_valid(bufnr) and vim.api.nvim_buf_is_loaded(bufnr) then
      break_undo(bufnr)
    end
  end
  -- A DeleteFile (a revert taking back a file the run created) of a file
  -- that exists only in its buffer (Neovim's CreateFile with
  -- ignoreIfExists makes no file) leaves that buffer behind, holding the
  -- run's text: it goes too, as it would with the file. The server sends
  -- it only when the text is still exactly the run's.
  for _, fname in ipairs(deleted) do
    local bufnr = vim.fn.bufnr(fname)
    if bufnr > 0 and vim.api.nvim_buf_is_valid(bufnr) and not uv.fs_stat(fname) then
      pcall(vim.api.nvim_buf_delete, bufnr, { force = true })
    end
  end
  return res
end

local handlers = {
  ["agentls/runEvent"] = function(_, params, ctx)
    require("agentls.run").on_event(ctx.client_id, params)
  end,
  ["agentls/proposalsChanged"] = function(_, params, ctx)
    require("agentls.preview").on_changed(ctx.client_id, params)
  end,
  ["workspace/applyEdit"] = apply_edit,
  -- An MCP server's form (elicit.lua).
  ["agentls/elicit"] = function(...)
    return require("agentls.elicit").handler(...)
  end,
  -- The model calling one of this editor's tools (tools.lua).
  ["agentls/invokeClientTool"] = function(...)
    return require("agentls.tools").handler(...)
  end,
  ["$/progress"] = function(...)
    return require("agentls.progress").handler(...)
  end,
  ["window/showMessage"] = function(...)
    return require("agentls.progress").show_message(...)
  end,
  -- Run reports (agentls.openReport) open with the system's opener, once,
  -- on every Neovim version (history.lua).
  ["window/showDocument"] = function(...)
    return require("agentls.history").show_document(...)
  end,
}

local function capabilities(cfg)
  local caps = vim.lsp.protocol.make_client_capabilities()
  -- Ghost text (ghost.lua) shows the server's inline completions; saying so
  -- keeps the server from also offering them as completion-list items.
  local ghost = cfg.ghost
  if ghost ~= false and not (type(ghost) == "table" and ghost.enabled == false) then
    caps.textDocument = caps.textDocument or {}
    caps.textDocument.inlineCompletion = { dynamicRegistration = false }
  end
  caps.workspace = caps.workspace or {}
  caps.workspace.workspaceEdit = caps.workspace.workspaceEdit or {}
  -- Versioned edits: the server's edits carry the buffer version they were
  -- computed for, so a stale one is refused rather than misplaced.
  caps.workspace.workspaceEdit.documentChanges = true
  -- MCP servers' forms arrive whole as agentls/elicit (elicit.lua) rather
  -- than as window/showMessageRequest, which fits only one choice.
  caps.experimental = caps.experimental or {}
  -- Plans and long answers open in the plugin's own window (run.lua), so
  -- the server need not show them with window/showDocument.
  caps.experimental.agentls = { elicitationForms = true, answerViews = true }
  -- window/showDocument is answered by the plugin (history.lua), also on
  -- Neovim versions whose own client does not.
  caps.window = caps.window or {}
  caps.window.showDocument = { support = true }
  -- Code actions arrive as titles, their commands on codeAction/resolve:
  -- the server skips building a command for every action of every cursor
  -- move. Neovim (0.7.2 on) resolves a picked action that has no edit
  -- (vim.lsp.buf on_user_choice), so one without a command is resolved too.
  local ca = caps.textDocument and caps.textDocument.codeAction
  if ca then
    ca.dataSupport = true
    ca.resolveSupport = ca.resolveSupport or { properties = {} }
    local props = ca.resolveSupport.properties
    if not vim.tbl_contains(props, "command") then
      table.insert(props, "command")
    end
  end
  return caps
end

local function set_keymaps(bufnr, keymaps)
  if type(keymaps) ~= "table" then
    return
  end
  local actions = {
    run = { "n", function() require("agentls.run").command({ args = "", range = 0 }) end },
    run_range = { "x", ":AgentRun<CR>" },
    accept = { "n", function() require("agentls.review").accept() end },
    reject = { "n", function() require("agentls.review").reject() end },
    accept_file = { "n", function() require("agentls.review").accept("file") end },
    reject_file = { "n", function() require("agentls.review").reject("file") end },
    next_hunk = { "n", function() require("agentls.review").next_hunk() end },
    prev_hunk = { "n", function() require("agentls.review").prev_hunk() end },
    cancel = { "n", function() require("agentls.run").cancel() end },
    log = { "n", function() require("agentls.run").open_log() end },
    revert = { "n", function() require("agentls.history").revert() end },
    report = { "n", function() require("agentls.history").report() end },
    model = { "n", function() require("agentls.history").pick_model() end },
    runs = { "n", function() require("agentls.history").runs_command() end },
  }
  for name, lhs in pairs(keymaps) do
    local action = actions[name]
    if not action then
      log.notify(vim.log.levels.WARN, "unknown keymap action %q (known: %s)", name,
        table.concat(vim.tbl_keys(actions), ", "))
    elseif lhs then
      vim.keymap.set(action[1], lhs, action[2], { buffer = bufnr, desc = "agentls: " .. name })
    end
  end
end

--- The vim.lsp client configuration for root `root` under plugin config `cfg`.
function M.make_config(cfg, root)
  return {
    name = M.name,
    cmd = cfg.cmd,
    cmd_env = cfg.cmd_env,
    root_dir = root,
    -- The plugin draws proposals itself (preview.lua): the server's preview
    -- diagnostics would show every hunk a second time.
    init_options = vim.tbl_deep_extend("force", { preview = { diagnostics = false } }, cfg.settings or {}),
    settings = { agentls = cfg.settings }, -- answers workspace/configuration
    handlers = handlers,
    capabilities = capabilities(cfg),
    flags = { debounce_text_changes = cfg.debounce_text_changes },
    on_init = function(client, result)
      server_info[client.id] = result and result.serverInfo or {}
      log.info("client %d initialized for %s: %s", client.id, root, server_info[client.id])
      -- Give the agent this editor's tools (get_diagnostics, open_buffers).
      vim.schedule(function()
        require("agentls.tools").register(client)
      end)
    end,
    on_attach = function(client, bufnr)
      -- A running client is reused after setup() is called again: read the
      -- configuration now, not the one the client was started with.
      local cur = require("agentls").get_config() or cfg
      set_keymaps(bufnr, cur.keymaps)
      require("agentls.ghost").attach(bufnr)
      require("agentls.nextedit").attach(bufnr)
      if cur.preview and cur.preview.enabled ~= false then
        require("agentls.preview").refresh(bufnr, client)
      end
    end,
    on_exit = function(code, signal, client_id)
      server_info[client_id] = nil
      vim.schedule(function()
        require("agentls.preview").on_exit(client_id)
        require("agentls.run").on_exit(client_id, code, signal)
      end)
    end,
  }
end

--- Attaches buffer `bufnr` to the agentls client for its root, starting the
--- server if none runs yet. Returns the client id, or nil when the server
--- could not be started.
function M.attach(bufnr, cfg)
  local existing = M.get(bufnr)
  if existing then
    return existing.id
  end
  local cmdline = table.concat(cfg.cmd, " ")
  if failed[cmdline] then
    return nil -- already reported
  end
  local root = M.find_root(bufnr, cfg)
  local conf = M.make_config(cfg, root)
  local id
  if vim.lsp.start then
    id = vim.api.nvim_buf_call(bufnr, function()
      return vim.lsp.start(conf, { bufnr = bufnr })
    end)
  else
    id = by_root[root]
    local c = id and vim.lsp.get_client_by_id(id)
    if not c or c.is_stopped() then
      id = vim.lsp.start_client(conf)
      by_root[root] = id
    end
    if id then
      vim.lsp.buf_attach_client(bufnr, id)
    end
  end
  if not id then
    failed[cmdline] = true
    local why = ""
    if vim.fn.executable(conf.cmd[1]) ~= 1 then
      local msg, advice = require("agentls.health").missing_binary(conf.cmd[1])
      why = ": " .. msg .. ". " .. advice[1]
    end
    log.notify(vim.log.levels.ERROR, "could not start %s%s (details: :checkhealth agentls)", cmdline, why)
  end
  return id
end

--- Forgets start failures, so that the next attach tries again (setup()
--- calls it: the user may have fixed the command).
function M.reset_failures()
  failed = {}
end

-- Buffer 0 must be resolved before the client sees it: Neovim 0.7 flushes
-- pending didChange notifications only for a real buffer number.
local function real_buf(bufnr)
  if bufnr == nil or bufnr == 0 then
    return vim.api.nvim_get_current_buf()
  end
  return bufnr
end

--- Sends a request after the buffer's pending didChange notifications;
--- `cb(err, result)` runs on the main loop. Returns false when the request
--- could not be sent (client stopped), else true and the request id (for
--- M.cancel).
function M.request(client, method, params, cb, bufnr)
  bufnr = real_buf(bufnr)
  local ok, id = invoke(client, "request", method, params, function(err, result)
    cb(err, result)
  end, bufnr)
  return ok, id
end

--- Cancels request `id` of `client` ($/cancelRequest).
function M.cancel(client, id)
  return invoke(client, "cancel_request", id)
end

--- Sends a request and waits up to `timeout_ms` for its answer.
---@return table|nil result, string|nil error
function M.request_sync(client, method, params, timeout_ms, bufnr)
  bufnr = real_buf(bufnr)
  local resp, err = invoke(client, "request_sync", method, params, timeout_ms, bufnr)
  if not resp then
    return nil, err or "no response"
  end
  if resp.err then
    return nil, resp.err.message or vim.inspect(resp.err)
  end
  return resp.result, nil
end

--- Runs an agentls.* command through workspace/executeCommand with `arg` as
--- its only argument; `cb(err, result)`.
function M.execute(client, command, arg, cb, bufnr)
  local ok = M.request(client, "workspace/executeCommand", { command = command, arguments = { arg } }, cb, bufnr)
  return ok
end

--- Sends new settings to every running server
--- (workspace/didChangeConfiguration with settings.agentls).
function M.update_settings(settings)
  for _, c in ipairs(M.clients()) do
    c.config.settings = { agentls = settings }
    invoke(c, "notify", "workspace/didChangeConfiguration", { settings = { agentls = settings } })
  end
end

return M
