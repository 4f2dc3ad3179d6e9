-- Code actions through Neovim's own vim.lsp.buf.code_action with the
-- plugin's client: the plugin advertises codeAction resolveSupport for
-- "command", so the server lists titles only and Neovim resolves the
-- picked action (codeAction/resolve) before running its command. Both
-- hunks of a preview are accepted this way.
local H = dofile(vim.fn.fnamemodify(debug.getinfo(1, "S").source:sub(2), ":h") .. "/harness.lua")

H.run(function()
  vim.cmd("runtime plugin/agentls.lua")
  H.setup({ settings = H.model_settings({ mode = "preview" }) })
  local path = H.env.ws .. "/greet.go"
  local bufnr, client = H.open(path)
  local caps = client.config.capabilities.textDocument.codeAction
  H.fact("resolve_properties", caps.resolveSupport and caps.resolveSupport.properties or {})
  H.fact("resolve_provider", client.server_capabilities.codeActionProvider.resolveProvider == true)
  local preview = require("agentls.preview")
  vim.cmd("AgentRun shout both")
  H.wait_run_end()
  H.wait("two previewed hunks", function()
    return #preview.hunks(bufnr) == 2
  end)

  local listed = {}
  local function accept_at(row, left)
    vim.api.nvim_win_set_cursor(0, { row + 1, 0 })
    vim.ui.select = function(items, _, on_choice)
      for _, item in ipairs(items) do
        if item[2].title == "Agent: Accept change" then
          table.insert(listed, { title = item[2].title, has_command = item[2].command ~= nil })
          return on_choice(item)
        end
      end
      on_choice(nil)
    end
    vim.lsp.buf.code_action()
    H.wait(left .. " hunk(s) left", function()
      return #preview.hunks(bufnr) == left
    end)
  end
  local hunks = preview.hunks(bufnr)
  local second = hunks[2].first
  accept_at(hunks[1].first, 1)
  accept_at(second, 0)
  H.fact("listed", listed)
  H.fact("buffer", H.lines(bufnr))
end)
