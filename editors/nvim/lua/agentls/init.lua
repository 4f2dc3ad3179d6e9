-- agentls for Neovim: the public API. Call require("agentls").setup{} once;
-- it starts the agentls language server for file buffers and attaches them.
-- See :help agentls.
local M = {}

---@class agentls.Config
---@field cmd string[] server command line (default {"agentls"})
---@field cmd_env table<string,string>|nil extra environment for the server
---@field filetypes string[]|nil attach only these filetypes (nil: every file buffer)
---@field autostart boolean attach buffers automatically (default true)
---@field root_markers string[] files marking a workspace root (default {".agentls", ".git"})
---@field root_dir string|fun(bufnr:integer):string|nil fixed root, or a function choosing it
---@field settings table agentls settings (docs/protocol.md "Configuration"): model, mode, maxTurns, mcpServers, tools
---@field keymaps table<string,string|false>|false buffer-local keymaps, by action name
---@field preview {enabled:boolean, hint:boolean} inline diff previews of pending proposals
---@field progress boolean|"auto"|"echo"|"notify" run progress: one line in the message area ("auto"/true: unless fidget.nvim or another progress UI is present; false: off)
---@field log_level string plugin log level: "debug", "info", "warn" (default) or "error"
---@field debounce_text_changes integer|nil milliseconds to batch didChange (nil: Neovim's default)
---@field ghost {enabled:boolean, debounce_ms:integer, keys:table<string,string|false>}|false ghost text (inline completions) in insert mode
---@field next_edit {key:string|false}|false the key accepting the buffer's next-edit suggestion (normal and insert mode)

local defaults = {
  cmd = { "agentls" },
  cmd_env = nil,
  filetypes = nil,
  autostart = true,
  root_markers = { ".agentls", ".git" },
  root_dir = nil,
  settings = {},
  keymaps = false,
  preview = { enabled = true, hint = true },
  progress = "auto",
  log_level = "warn",
  debounce_text_changes = nil,
  ghost = {
    enabled = true,
    debounce_ms = 30,
    keys = { accept = "<M-l>", accept_word = "<M-w>", accept_line = "<M-j>", dismiss = false, trigger = false },
  },
  next_edit = { key = "<M-n>" },
}

local config = nil

-- Keys whose values are lists: a user's list replaces the default instead of
-- being merged into it index by index.
local list_keys = { "cmd", "filetypes", "root_markers" }

-- vim.validate's table form is deprecated from 0.11 and its new form does
-- not exist on 0.7, so options are checked here.
local function check(name, value, types, optional)
  if value == nil and optional then
    return
  end
  for _, t in ipairs(types) do
    if type(value) == t then
      return
    end
  end
  error(string.format("agentls: option %s must be a %s, got %s", name, table.concat(types, " or "), type(value)), 0)
end

local function validate(cfg)
  check("cmd", cfg.cmd, { "table" })
  check("cmd_env", cfg.cmd_env, { "table" }, true)
  check("filetypes", cfg.filetypes, { "table" }, true)
  check("autostart", cfg.autostart, { "boolean" })
  check("root_markers", cfg.root_markers, { "table" })
  check("root_dir", cfg.root_dir, { "string", "function" }, true)
  check("settings", cfg.settings, { "table" })
  check("keymaps", cfg.keymaps, { "table", "boolean" })
  check("preview", cfg.preview, { "table" })
  check("progress", cfg.progress, { "boolean", "string" })
  check("log_level", cfg.log_level, { "string" })
  check("ghost", cfg.ghost, { "table", "boolean" })
  if type(cfg.ghost) == "table" then
    check("ghost.enabled", cfg.ghost.enabled, { "boolean" }, true)
    check("ghost.debounce_ms", cfg.ghost.debounce_ms, { "number" }, true)
    check("ghost.keys", cfg.ghost.keys, { "table" }, true)
  end
  check("next_edit", cfg.next_edit, { "table", "boolean" })
  if type(cfg.next_edit) == "table" then
    check("next_edit.key", cfg.next_edit.key, { "string", "boolean" }, true)
  end
  if #cfg.cmd == 0 or type(cfg.cmd[1]) ~= "string" then
    error("agentls: cmd must be a non-empty list of strings, e.g. { 'agentls' }", 0)
  end
end

local function merge(opts)
  if type(opts.cmd) == "string" then
    opts.cmd = { opts.cmd }
  end
  local cfg = vim.tbl_deep_extend("force", vim.deepcopy(defaults), opts)
  for _, key in ipairs(list_keys) do
    if opts[key] ~= nil then
      cfg[key] = vim.deepcopy(opts[key])
    end
  end
  return cfg
end

--- The current configuration (nil before setup).
---@return agentls.Config|nil
function M.get_config()
  return config
end

--- Whether buffer `bufnr` is one agentls should attach to automatically.
local function wanted(bufnr)
  if not config or not config.autostart or not vim.api.nvim_buf_is_valid(bufnr) then
    return false
  end
  if vim.bo[bufnr].buftype ~= "" then
    return false
  end
  local name = vim.api.nvim_buf_get_name(bufnr)
  if name == "" or name:match("^%a[%w+.-]*://") then -- unnamed, or fugitive:// and the like
    return false
  end
  return config.filetypes == nil or vim.tbl_contains(config.filetypes, vim.bo[bufnr].filetype)
end

--- Attaches buffer `bufnr` (0 or nil: current) to agentls, starting the
--- server for its root if needed. Works with autostart = false too.
---@return integer|nil client id
function M.attach(bufnr)
  if not config then
    error("agentls: call require('agentls').setup() first")
  end
  bufnr = (bufnr == nil or bufnr == 0) and vim.api.nvim_get_current_buf() or bufnr
  return require("agentls.client").attach(bufnr, config)
end

--- Configures agentls. Calling it again replaces the configuration and sends
--- the new settings to running servers (workspace/didChangeConfiguration).
---@param opts agentls.Config|nil
function M.setup(opts)
  local cfg = merge(opts or {})
  validate(cfg)
  local first = config == nil
  config = cfg
  require("agentls.log").set_level(cfg.log_level)
  require("agentls.preview").define_highlights()

  local group = vim.api.nvim_create_augroup("agentls", { clear = true })
  vim.api.nvim_create_autocmd({ "BufReadPost", "BufNewFile", "FileType" }, {
    group = group,
    callback = function(args)
      if wanted(args.buf) then
        M.attach(args.buf)
      end
    end,
  })
  vim.api.nvim_create_autocmd("ColorScheme", {
    group = group,
    callback = function()
      require("agentls.preview").define_highlights()
    end,
  })

  require("agentls.client").reset_failures()
  if not first then
    require("agentls.client").update_settings(cfg.settings)
  end
  for _, bufnr in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_is_loaded(bufnr) and wanted(bufnr) then
      M.attach(bufnr)
    end
  end
end

--- Replaces the agentls settings and sends them to running servers.
---@param settings table docs/protocol.md "Configuration" object
function M.update_settings(settings)
  if not config then
    error("agentls: call require('agentls').setup() first")
  end
  config.settings = settings
  require("agentls.client").update_settings(settings)
end

--- A short string for the statusline: the running agent runs, or "".
---@return string
function M.status()
  return require("agentls.run").status()
end

return M
