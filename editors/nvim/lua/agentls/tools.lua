-- Tools this editor gives the agent (agentls/registerTools): the model sees
-- them as editor__get_diagnostics and editor__open_buffers, and each call
-- arrives as agentls/invokeClientTool, answered here from the editor's own
-- state: the diagnostics of every language server attached to Neovim, the
-- buffers the user has open.
local M = {}

local function read_only()
  return { readOnlyHint = true }
end

--- The tool definitions sent at initialization.
function M.defs()
  return {
    {
      name = "get_diagnostics",
      description = "Diagnostics Neovim has from all its language servers, as path:line:col: severity: message [source]. "
        .. "Default: every open file; paths limits it.",
      inputSchema = {
        type = "object",
        properties = {
          paths = { type = "array", items = { type = "string" }, description = "files (workspace-relative or absolute)" },
        },
      },
      annotations = read_only(),
    },
    {
      name = "open_buffers",
      description = "Files open in Neovim: one per line, current first, [modified] when unsaved.",
      inputSchema = { type = "object", properties = vim.empty_dict() },
      annotations = read_only(),
    },
  }
end

local severity_names = { "error", "warning", "info", "hint" }

-- vim.diagnostic (0.6+) with the pre-0.6 vim.lsp.diagnostic as a fallback.
local function buf_diagnostics(bufnr)
  if vim.diagnostic and vim.diagnostic.get then
    return vim.diagnostic.get(bufnr)
  end
  local out = {}
  if vim.lsp.diagnostic and vim.lsp.diagnostic.get then
    for _, d in ipairs(vim.lsp.diagnostic.get(bufnr) or {}) do
      table.insert(out, {
        lnum = d.range.start.line,
        col = d.range.start.character,
        severity = d.severity,
        message = d.message,
        source = d.source,
      })
    end
  end
  return out
end

local function rel(path, root)
  if root and path:sub(1, #root + 1) == root .. "/" then
    return path:sub(#root + 2)
  end
  return path
end

local function buf_path(bufnr)
  local name = vim.api.nvim_buf_get_name(bufnr)
  if name == "" then
    return nil
  end
  return vim.fn.fnamemodify(name, ":p")
end

-- The loaded buffers to report: those of `paths` (relative to root or
-- absolute) or every listed file buffer.
local function buffers(paths, root)
  local out = {}
  if type(paths) == "table" and #paths > 0 then
    for _, p in ipairs(paths) do
      local abs = p
      if p:sub(1, 1) ~= "/" and root then
        abs = root .. "/" .. p
      end
      local b = vim.fn.bufnr(vim.fn.fnamemodify(abs, ":p"))
      if b > 0 and vim.api.nvim_buf_is_loaded(b) then
        table.insert(out, b)
      end
    end
    return out
  end
  for _, b in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_is_loaded(b) and vim.bo[b].buflisted and buf_path(b) then
      table.insert(out, b)
    end
  end
  return out
end

local function get_diagnostics(args, root)
  local lines = {}
  for _, b in ipairs(buffers(args.paths, root)) do
    local path = rel(buf_path(b), root)
    local diags = buf_diagnostics(b)
    table.sort(diags, function(x, y)
      if x.lnum ~= y.lnum then
        return x.lnum < y.lnum
      end
      return (x.col or 0) < (y.col or 0)
    end)
    for _, d in ipairs(diags) do
      -- agentls's own preview diagnostics show proposals, not problems.
      if d.source ~= "agentls" then
        local msg = (d.message or ""):gsub("\n", " ")
        local line = string.format("%s:%d:%d: %s: %s", path, d.lnum + 1, (d.col or 0) + 1,
          severity_names[d.severity] or "error", msg)
        if d.source and d.source ~= "" then
          line = line .. " [" .. d.source .. "]"
        end
        table.insert(lines, line)
      end
    end
  end
  if #lines == 0 then
    return "no diagnostics"
  end
  return table.concat(lines, "\n")
end

local function open_buffers(_, root)
  local cur = vim.api.nvim_get_current_buf()
  local lines = {}
  local bufs = buffers(nil, root)
  table.sort(bufs, function(x, y)
    if x == cur or y == cur then
      return x == cur
    end
    return x < y
  end)
  for _, b in ipairs(bufs) do
    local line = rel(buf_path(b), root)
    if vim.bo[b].modified then
      line = line .. " [modified]"
    end
    table.insert(lines, line)
  end
  if #lines == 0 then
    return "no open files"
  end
  return table.concat(lines, "\n")
end

local impl = { get_diagnostics = get_diagnostics, open_buffers = open_buffers }

--- The agentls/invokeClientTool handler: { runId, name, arguments } ->
--- { content, isError? }.
function M.handler(_, params, ctx)
  params = params or {}
  local fn = impl[params.name]
  if not fn then
    return { content = string.format("Neovim has no tool %q", tostring(params.name)), isError = true }
  end
  local client = ctx and vim.lsp.get_client_by_id(ctx.client_id)
  local root = client and client.config and client.config.root_dir
  local ok, out = pcall(fn, type(params.arguments) == "table" and params.arguments or {}, root)
  if not ok then
    return { content = "Neovim failed: " .. tostring(out), isError = true }
  end
  return { content = out }
end

--- Client ids whose server accepted the tools.
M.registered = {}

--- Registers the tools with the server of `client` (called once it is
--- initialized). A server that does not know the method answers with an
--- error, which is logged and otherwise ignored.
function M.register(client)
  local params = { tools = M.defs() }
  local function done(err)
    if err then
      require("agentls.log").info("agentls/registerTools: %s", err.message or vim.inspect(err))
    else
      M.registered[client.id] = true
    end
  end
  if vim.fn.has("nvim-0.11") == 1 then
    client:request("agentls/registerTools", params, done)
  else
    client.request("agentls/registerTools", params, done)
  end
end

return M
