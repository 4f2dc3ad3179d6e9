-- agentls: user commands only. Every command loads its module on first use,
-- so startup costs nothing until the plugin is set up or a command runs.
if vim.g.loaded_agentls == 1 or vim.fn.has("nvim-0.7") == 0 then
  return
end
vim.g.loaded_agentls = 1

local function define(name, module, fn, opts)
  vim.api.nvim_create_user_command(name, function(args)
    require("agentls." .. module)[fn](args)
  end, opts)
end

local scopes = function()
  return { "file", "all" }
end

define("AgentRun", "run", "command", { nargs = "*", range = true, bang = true, desc = "agentls: run the agent (! = apply mode)" })
define("AgentPlan", "run", "plan_command", { nargs = "*", range = true, desc = "agentls: plan first (read-only run whose answer is a plan to approve)" })
define("AgentApprove", "run", "approve_command", { nargs = "?", desc = "agentls: carry out a finished plan (default: the latest) as proposals" })
define("AgentNew", "run", "command", { nargs = "*", range = true, bang = true, desc = "agentls: run the agent in a new session (like :AgentRun)" })
define("AgentFollowup", "run", "followup_command", { nargs = "*", desc = "agentls: continue this buffer's agent session with a follow-up" })
define("AgentCancel", "run", "cancel_command", { nargs = "?", desc = "agentls: cancel a run (default: the latest)" })
define("AgentLog", "run", "open_log", { nargs = 0, desc = "agentls: show the run log (the cursor moves into it)" })
define("AgentAnswer", "run", "answer_command", { nargs = "?", desc = "agentls: show a run's whole answer or plan (default: the latest)" })
define("AgentAccept", "review", "accept_command", { nargs = "?", complete = scopes, desc = "agentls: accept the hunk under the cursor, the file's or all proposals" })
define("AgentReject", "review", "reject_command", { nargs = "*", complete = scopes, desc = "agentls: reject the hunk under the cursor, the file's or all proposals [file|all] [reason]" })
define("AgentNextHunk", "review", "next_hunk", { nargs = 0, desc = "agentls: jump to the next proposed hunk" })
define("AgentExplain", "review", "explain", { nargs = 0, desc = "agentls: explain the hunk under the cursor (why it is conflicted, what it changes)" })
define("AgentPrevHunk", "review", "prev_hunk", { nargs = 0, desc = "agentls: jump to the previous proposed hunk" })
define("AgentRevert", "history", "revert_command", { nargs = "?", complete = function(lead) return require("agentls.history").complete_runs(lead) end, desc = "agentls: revert a run's accepted or applied changes (default: the latest run with changes)" })
define("AgentReport", "history", "report_command", { nargs = "*", complete = function(lead) return require("agentls.history").complete_runs(lead) end, desc = "agentls: open a run's report (default: the latest run); :AgentReport session [id] for a session" })
define("AgentModel", "history", "model_command", { nargs = "?", complete = function(lead) return require("agentls.history").complete_models(lead) end, desc = "agentls: choose the model of the next runs (no name: pick from the server's list)" })
define("AgentRuns", "history", "runs_command", { nargs = 0, desc = "agentls: list runs and sessions with their tokens and cost (revert, report, follow up)" })
define("AgentRemember", "remember", "command", { nargs = "*", desc = "agentls: propose a rule for the project's AGENTS.md (reviewed like any change)" })
