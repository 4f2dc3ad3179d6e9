-- The plugin loads on a bare Neovim, defines its commands, and its modules
-- load; commands used before setup() fail with a clear message.
local H = dofile(vim.fn.fnamemodify(debug.getinfo(1, "S").source:sub(2), ":h") .. "/harness.lua")

H.run(function()
  vim.cmd("runtime plugin/agentls.lua")
  H.fact("loaded", vim.g.loaded_agentls)
  local commands = {}
  for _, name in ipairs({ "AgentRun", "AgentCancel", "AgentLog", "AgentAccept", "AgentReject", "AgentNextHunk", "AgentPrevHunk" }) do
    commands[name] = vim.fn.exists(":" .. name)
  end
  H.fact("commands", commands)
  -- Nothing but the plugin file ran: no module is loaded until used.
  H.fact("lazy", package.loaded["agentls"] == nil and package.loaded["agentls.client"] == nil)

  local modules = {}
  for _, m in ipairs({ "agentls", "agentls.client", "agentls.preview", "agentls.run", "agentls.review",
    "agentls.health", "agentls.log", "agentls.position", "agentls.elicit" }) do
    local ok, err = pcall(require, m)
    modules[m] = ok and "ok" or tostring(err)
  end
  H.fact("modules", modules)

  local ok, err = pcall(require("agentls").setup, { cmd = {} })
  H.fact("bad_cmd_error", not ok and tostring(err) or "")
  ok, err = pcall(require("agentls").setup, { settings = "model" })
  H.fact("bad_settings_error", not ok and tostring(err) or "")

  -- No setup, no server: the commands say so instead of throwing.
  vim.cmd("enew")
  local before = #H.notifications
  vim.cmd("AgentRun explain this")
  vim.cmd("AgentAccept")
  vim.wait(200, function() return #H.notifications >= before + 2 end)
  local msgs = {}
  for i = before + 1, #H.notifications do
    table.insert(msgs, H.notifications[i].msg)
  end
  H.fact("no_server_messages", msgs)
  H.fact("errmsg", vim.v.errmsg)

  -- The help file has valid tags and :help finds it (on a copy: helptags
  -- writes a tags file next to it).
  local plugin_doc = vim.api.nvim_get_runtime_file("doc/agentls.txt", false)[1]
  vim.fn.mkdir(H.env.dir .. "/doc", "p")
  vim.fn.writefile(vim.fn.readfile(plugin_doc, "b"), H.env.dir .. "/doc/agentls.txt", "b")
  vim.v.errmsg = ""
  vim.cmd("helptags " .. vim.fn.fnameescape(H.env.dir .. "/doc"))
  H.fact("helptags_error", vim.v.errmsg)
  H.fact("help_tags", #vim.fn.readfile(H.env.dir .. "/doc/tags"))
  vim.opt.rtp:prepend(H.env.dir)
  vim.cmd("help :AgentRun")
  H.fact("help_buffer", vim.fn.expand("%:t"))
  H.fact("help_line", vim.api.nvim_get_current_line())
end)
