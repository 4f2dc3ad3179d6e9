-- Progress by default: with no progress plugin, a run's $/progress shows
-- as one line in the message area ("agentls: reading greet.go"), every
-- line fitted so no hit-ENTER prompt can appear; the server's end-of-run
-- message is one line too. With a fidget-style plugin present, the plugin
-- leaves progress to it (the global $/progress handler still gets every
-- notification).
local H = dofile(vim.fn.fnamemodify(debug.getinfo(1, "S").source:sub(2), ":h") .. "/harness.lua")

H.run(function()
  vim.cmd("runtime plugin/agentls.lua")
  vim.o.columns = 60
  local echoed = {}
  local orig_echo = vim.api.nvim_echo
  vim.api.nvim_echo = function(chunks, history, opts)
    local text = {}
    for _, c in ipairs(chunks) do
      table.insert(text, c[1])
    end
    table.insert(echoed, table.concat(text))
    return orig_echo(chunks, history, opts)
  end
  local global_calls = 0
  local orig_progress = vim.lsp.handlers["$/progress"]
  vim.lsp.handlers["$/progress"] = function(...)
    global_calls = global_calls + 1
    return orig_progress(...)
  end

  H.setup({ settings = H.model_settings({ mode = "preview" }) })
  local path = H.env.ws .. "/greet.go"
  H.open(path)
  vim.cmd("AgentRun make it loud")
  H.wait_run_end()
  H.wait("the end-of-run message", function()
    for _, e in ipairs(echoed) do
      if e:find("finished", 1, true) then
        return true
      end
    end
    return false
  end)
  H.fact("echoed", echoed)
  H.fact("echospace", vim.v.echospace)
  H.fact("global_calls", global_calls)

  -- A fidget-style progress UI is present: the plugin stays quiet.
  echoed = {}
  global_calls = 0
  package.loaded["fidget"] = {}
  vim.cmd("AgentRun make it louder")
  H.wait_run_end()
  H.wait("the second run's progress to reach the global handler", function()
    return global_calls > 0
  end)
  local progress_lines = {}
  for _, e in ipairs(echoed) do
    if e:find("reading", 1, true) then
      table.insert(progress_lines, e)
    end
  end
  H.fact("echoed_with_fidget", progress_lines)
  H.fact("global_calls_with_fidget", global_calls)
end)
