-- setup() starts one agentls server per root and attaches file buffers to
-- it; filetypes limit which; special buffers are left alone.
local H = dofile(vim.fn.fnamemodify(debug.getinfo(1, "S").source:sub(2), ":h") .. "/harness.lua")
local client_mod = require("agentls.client")

H.run(function()
  vim.cmd("runtime plugin/agentls.lua")
  vim.cmd("filetype on")
  local txt = H.write("notes.txt", "plain text\n")
  local go = H.write("main.go", "package main\n")

  -- Phase 1: only Go buffers.
  H.setup({ filetypes = { "go" } })
  vim.cmd("edit " .. vim.fn.fnameescape(txt))
  local txt_buf = vim.api.nvim_get_current_buf()
  local go_buf, client = H.open(go)
  H.fact("filetype_go", vim.bo[go_buf].filetype)
  H.fact("txt_attached_with_filter", client_mod.get(txt_buf) ~= nil)

  local info = client_mod.server_info(client.id) or {}
  H.fact("server_name", info.name)
  H.fact("server_version", info.version)
  H.fact("offset_encoding", client.offset_encoding)
  H.fact("root_dir", client.config.root_dir)
  H.fact("ws", vim.loop.fs_realpath(H.env.ws))

  -- Phase 2: setup() again without the filter attaches the loaded .txt
  -- buffer to the same server (same root).
  H.setup({ keymaps = { accept = "<Space>aa", next_hunk = "]a", run_range = "<Space>ar", bogus = "x" } })
  H.wait("notes.txt to attach", function()
    local c = client_mod.get(txt_buf)
    return c ~= nil and vim.lsp.buf_is_attached(txt_buf, c.id)
  end)
  H.fact("txt_client_same", client_mod.get(txt_buf).id == client.id)
  local maps = {}
  for _, mode in ipairs({ "n", "x" }) do
    for _, m in ipairs(vim.api.nvim_buf_get_keymap(txt_buf, mode)) do
      maps[mode .. " " .. m.lhs] = m.desc or ""
    end
  end
  H.fact("txt_keymaps", maps)
  -- The `keymaps` option's maps (the next-edit key is mapped on every
  -- attach, whatever the option says).
  local go_maps = 0
  for _, m in ipairs(vim.api.nvim_buf_get_keymap(go_buf, "n")) do
    if m.desc ~= "agentls: accept the next-edit suggestion" then
      go_maps = go_maps + 1
    end
  end
  H.fact("go_keymaps", go_maps)
  vim.wait(100, function() return #H.notifications > 0 end)
  local warned = {}
  for _, n in ipairs(H.notifications) do
    table.insert(warned, n.msg)
  end
  H.fact("notifications", warned)

  -- A file in a subdirectory shares the root's server.
  local sub_buf, sub_client = H.open(H.write("pkg/deep/util.go", "package deep\n"))
  H.fact("sub_client_same", sub_client.id == client.id)

  -- A file under another root (marked by .git) gets its own server.
  local other = H.env.dir .. "/other"
  vim.fn.mkdir(other .. "/.git", "p")
  local f = assert(io.open(other .. "/x.txt", "w"))
  f:write("other root\n")
  f:close()
  local _, other_client = H.open(other .. "/x.txt")
  H.fact("other_client_differs", other_client.id ~= client.id)
  H.fact("other_root", other_client.config.root_dir)
  H.fact("other_expected_root", vim.loop.fs_realpath(other))
  H.fact("client_count", #client_mod.clients())

  -- Scratch and help-like buffers are never attached.
  local scratch = vim.api.nvim_create_buf(true, true)
  vim.api.nvim_buf_set_name(scratch, H.env.ws .. "/scratch.txt")
  vim.api.nvim_set_current_buf(scratch)
  vim.cmd("doautocmd BufNewFile")
  H.fact("scratch_attached", client_mod.get(scratch) ~= nil)
  H.fact("sub_buf_valid", vim.api.nvim_buf_is_valid(sub_buf))
  H.fact("status", require("agentls").status())
end)
