-- MCP elicitation through the plugin: a run's MCP tool (mcptest's "ask",
-- served over HTTP at AGENTLS_TEST_MCP) asks the user for a form; the
-- server sends agentls/elicit because the plugin declares
-- experimental.agentls.elicitationForms, and the plugin asks field by field
-- with vim.ui.select / vim.ui.input, here scripted. Each run's final answer
-- is the tool's result: "<action> <content JSON as the MCP server got it>".
-- Neovim 0.7 and 0.8 take the synchronous path; the coroutine path (0.9+)
-- is driven directly below with a vim.ui that answers later.
local H = dofile(vim.fn.fnamemodify(debug.getinfo(1, "S").source:sub(2), ":h") .. "/harness.lua")

local ESC = false -- a scripted answer: the user pressed Esc

local answers = {} -- the scripted answers still to give, in order
local prompts = {} -- every prompt shown: { kind, prompt, items | default }
local async_ui = false -- answer from a timer instead of at once
local fired = 0 -- answers given from a timer

local function later(fn)
  if async_ui then
    vim.defer_fn(function()
      fired = fired + 1
      fn()
    end, 1)
  else
    fn()
  end
end

vim.ui.select = function(items, opts, cb)
  local labels = {}
  for i, it in ipairs(items) do
    labels[i] = opts.format_item and opts.format_item(it) or tostring(it)
  end
  table.insert(prompts, { kind = "select", prompt = opts.prompt, items = labels })
  local a = table.remove(answers, 1)
  if a == nil then
    error("no scripted answer left for select " .. vim.inspect(opts.prompt) .. " " .. vim.inspect(labels))
  end
  if a == ESC then
    return later(function() cb(nil, nil) end)
  end
  for i, l in ipairs(labels) do
    if l == a then
      return later(function() cb(items[i], i) end)
    end
  end
  error(string.format("scripted answer %q is none of %s", a, vim.inspect(labels)))
end

vim.ui.input = function(opts, cb)
  table.insert(prompts, { kind = "input", prompt = opts.prompt, default = opts.default or "" })
  local a = table.remove(answers, 1)
  if a == nil then
    error("no scripted answer left for input " .. vim.inspect(opts.prompt))
  end
  later(function() cb(a ~= ESC and a or nil) end)
end

local function run(prompt, script)
  answers, prompts = script, {}
  local before = #require("agentls.run").list()
  vim.cmd("AgentRun " .. prompt)
  H.wait("run " .. prompt .. " to start", function()
    return #require("agentls.run").list() > before
  end)
  local r = H.wait_run_end(30000)
  return { status = r.status, result = r.result or vim.NIL, error = r.error or vim.NIL, prompts = prompts, unused = #answers }
end

H.run(function()
  vim.cmd("runtime plugin/agentls.lua")
  H.setup({
    settings = H.model_settings({ mcpServers = { helper = { type = "http", url = vim.env.AGENTLS_TEST_MCP } } }),
  })
  H.open(H.write("notes.txt", "notes\n"))
  H.fact("nvim_async", vim.fn.has("nvim-0.9") == 1)

  -- Fields come sorted by name: age, code, color, name, nick, ratio,
  -- subscribe, tags. Bad answers are asked again.
  H.fact("fill", run("fill", {
    "Answer (8 fields)",
    "abc", "200", "42", -- age: not a number, above the maximum, then fine
    "abc", "XYZ", -- code: does not match the pattern, then fine
    "Green", -- color: by its label
    "", "A", "Ada", -- name: required, too short, then fine
    "", -- nick: cleared, so the server's default applies
    "0.5", -- ratio: the default offered, kept
    "No", -- subscribe: the default is Yes
    "[ ] alpha", "[ ] gamma", "Done", -- tags: two toggled on
  }))
  H.fact("decline", run("decline", { "Decline" }))
  H.fact("cancel", run("cancel", { "Answer (8 fields)", "42", ESC }))

  -- The coroutine path (Neovim 0.9+ runs server-request handlers in a
  -- coroutine), with a vim.ui that answers from a timer.
  local elicit = require("agentls.elicit")
  async_ui = true
  answers = { "Answer (2 fields)", "Blue", "7" }
  local got
  coroutine.wrap(function()
    got = elicit.handler(nil, {
      server = "s",
      message = "Pick",
      mode = "form",
      requestedSchema = {
        type = "object",
        properties = {
          a = { type = "string", oneOf = { { const = "r", title = "Red" }, { const = "b", title = "Blue" } } },
          b = { type = "integer", minimum = 1 },
        },
        required = { "a" },
      },
    }, {})
  end)()
  H.wait("the coroutine form to be answered", function() return got ~= nil end)
  H.fact("async", got)

  -- The synchronous path (Neovim 0.7/0.8) cannot wait for a vim.ui that
  -- answers later: the form is cancelled with a warning, and the late
  -- answer asks nothing more.
  answers = { "Answer (1 field)", "late" }
  prompts = {}
  local n = #H.notifications
  local before = fired
  local sync = elicit.handler(nil, { server = "s", message = "Name?", mode = "form",
    requestedSchema = { type = "object", properties = { n = { type = "string" } } } }, {})
  H.wait("the late answer", function() return fired > before end)
  H.fact("sync_async_ui", { answer = sync, prompts = #prompts, warned = #H.notifications > n
    and H.notifications[#H.notifications].msg or "" })
end)
