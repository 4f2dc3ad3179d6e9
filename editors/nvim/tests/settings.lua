-- settings reach the server: as initializationOptions, and as
-- workspace/didChangeConfiguration {settings = {agentls = ...}} when
-- update_settings() or setup() runs again. The command line tees what
-- Neovim sends into a file the Go test parses.
local H = dofile(vim.fn.fnamemodify(debug.getinfo(1, "S").source:sub(2), ":h") .. "/harness.lua")

H.run(function()
  vim.cmd("runtime plugin/agentls.lua")
  local wire = H.env.dir .. "/wire.log"
  H.fact("wire", wire)
  local s1 = {
    model = { baseURL = "http://127.0.0.1:9/v1", name = "first-model", apiKeyEnv = "MY_KEY", contextWindow = 32000 },
    mode = "preview", maxTurns = 7,
    mcpServers = { fs = { command = "node", args = { "server.js" }, env = { A = "1" } } },
    tools = { runCommand = "off" },
  }
  H.setup({ cmd = H.tee_cmd(wire), settings = s1 })
  local bufnr, client = H.open(H.write("a.txt", "a\n"))

  require("agentls").update_settings({ model = { name = "second-model" }, mode = "apply" })
  H.wait("didChangeConfiguration with second-model", function()
    return H.read(wire):find("second-model", 1, true) ~= nil
  end)

  H.setup({ cmd = H.tee_cmd(wire), settings = { model = { name = "third-model" }, maxTurns = 3 } })
  H.wait("didChangeConfiguration with third-model", function()
    return H.read(wire):find("third-model", 1, true) ~= nil
  end)

  -- The server is still serving after the settings changes.
  vim.api.nvim_buf_set_lines(bufnr, 0, -1, false, { "after settings" })
  H.fact("document", H.document(client, bufnr).text)
  H.fact("client_count", #require("agentls.client").clients())
end)
