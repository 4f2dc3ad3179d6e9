-- :checkhealth agentls before setup, with no model, and with a model.
local H = dofile(vim.fn.fnamemodify(debug.getinfo(1, "S").source:sub(2), ":h") .. "/harness.lua")

local function checkhealth()
  vim.cmd("checkhealth agentls")
  local lines = vim.api.nvim_buf_get_lines(0, 0, -1, false)
  vim.cmd("bwipeout!")
  return table.concat(lines, "\n")
end

H.run(function()
  vim.cmd("runtime plugin/agentls.lua")
  H.fact("before_setup", checkhealth())
  H.setup({})
  H.open(H.write("a.txt", "a\n"))
  H.fact("no_model", checkhealth())
  H.setup({ settings = { model = { baseURL = "http://127.0.0.1:9/v1", name = "health-model" } } })
  H.fact("with_model", checkhealth())
  H.setup({ settings = { model = { replay = "demo.cassette.json" } } })
  H.fact("with_replay", checkhealth())
  require("agentls").setup({ cmd = { H.env.dir .. "/no-such-agentls" } })
  H.fact("missing_binary", checkhealth())

  -- Files under a new root need a new server, which cannot start: one
  -- error for the command, not one per buffer.
  H.allow_errors = true
  local other = H.env.dir .. "/elsewhere"
  vim.fn.mkdir(other .. "/.git", "p")
  vim.cmd("edit " .. vim.fn.fnameescape(other .. "/one.txt"))
  vim.cmd("edit " .. vim.fn.fnameescape(other .. "/two.txt"))
  local function reported()
    local n = 0
    for _, note in ipairs(H.notifications) do
      if note.msg:find("could not start", 1, true) then
        n = n + 1
      end
    end
    return n
  end
  -- Both :edit commands queued their notifications before this wait; the
  -- loop that delivers the first delivers any second one too.
  H.wait("the start failure to be reported", function()
    return reported() >= 1
  end)
  H.fact("start_failures_reported", reported())

  -- Installed by `go install` into a bin directory that is not on PATH
  -- (a new shell without the README's export): the fix named is PATH.
  local gobin = H.env.dir .. "/gobin"
  vim.fn.mkdir(gobin, "p")
  vim.fn.writefile({ "#!/bin/sh", "exit 1" }, gobin .. "/agentls-not-on-path")
  vim.fn.setfperm(gobin .. "/agentls-not-on-path", "rwxr-xr-x")
  vim.env.GOBIN = gobin
  require("agentls").setup({ cmd = { "agentls-not-on-path" } })
  H.fact("not_on_path", checkhealth())
  local third = H.env.dir .. "/third"
  vim.fn.mkdir(third .. "/.git", "p")
  vim.cmd("edit " .. vim.fn.fnameescape(third .. "/one.txt"))
  local msg
  H.wait("the start failure naming PATH", function()
    for _, note in ipairs(H.notifications) do
      if note.msg:find("could not start agentls-not-on-path", 1, true) then
        msg = note.msg
      end
    end
    return msg ~= nil
  end)
  H.fact("start_error_not_on_path", msg)
end)
