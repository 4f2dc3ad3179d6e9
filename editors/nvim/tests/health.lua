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
end)
