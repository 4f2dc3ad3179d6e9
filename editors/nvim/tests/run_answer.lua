-- Long answers and plans are readable whole: a plan-mode run opens its
-- plan in a window of its own when it ends (the cursor stays in the code);
-- :AgentAnswer shows a run's whole answer and moves the cursor there;
-- :AgentLog moves the cursor into the log.
local H = dofile(vim.fn.fnamemodify(debug.getinfo(1, "S").source:sub(2), ":h") .. "/harness.lua")

local function answer_window()
  for _, w in ipairs(vim.api.nvim_list_wins()) do
    local name = vim.api.nvim_buf_get_name(vim.api.nvim_win_get_buf(w))
    if name:match("^agentls://answer/") then
      return w, name
    end
  end
end

H.run(function()
  vim.cmd("runtime plugin/agentls.lua")
  H.setup({ settings = H.model_settings() })
  local bufnr = H.open(H.env.ws .. "/greet.go")
  local code_win = vim.api.nvim_get_current_win()
  vim.cmd("AgentPlan make the greeting loud")
  local plan = H.wait_run_end()
  H.fact("plan_status", plan.status)
  H.wait("the plan window", function()
    return answer_window() ~= nil
  end)
  local w, name = answer_window()
  H.fact("plan_window_name", name)
  H.fact("plan_text", table.concat(vim.api.nvim_buf_get_lines(vim.api.nvim_win_get_buf(w), 0, -1, false), "\n"))
  H.fact("cursor_stayed", vim.api.nvim_get_current_win() == code_win and vim.api.nvim_get_current_buf() == bufnr)
  H.fact("plan_modifiable", vim.bo[vim.api.nvim_win_get_buf(w)].modifiable)

  -- A normal run with a long answer: :AgentAnswer shows it whole.
  vim.api.nvim_win_close(w, true)
  vim.cmd("AgentRun explain the greeting")
  H.wait("the second run to start", function()
    return #require("agentls.run").list() == 2
  end)
  local r = H.wait_run_end()
  H.fact("run_status", r.status)
  vim.cmd("AgentAnswer")
  w = answer_window()
  H.fact("answer_focused", w ~= nil and vim.api.nvim_get_current_win() == w)
  H.fact("answer_text", table.concat(vim.api.nvim_buf_get_lines(vim.api.nvim_win_get_buf(w), 0, -1, false), "\n"))

  vim.api.nvim_set_current_win(code_win)
  vim.cmd("AgentLog")
  H.fact("log_focused", vim.api.nvim_get_current_buf() == require("agentls.run").log_buffer())
end)
