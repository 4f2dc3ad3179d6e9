-- The words explaining a hunk another run's accepted change superseded:
-- "twice" only when that change was the same one.
local H = dofile(vim.fn.fnamemodify(debug.getinfo(1, "S").source:sub(2), ":h") .. "/harness.lua")

H.run(function()
  vim.cmd("runtime plugin/agentls.lua")
  local review = require("agentls.review")
  local function explain(reason)
    return table.concat(review.explain_lines({ status = "conflicted", supersededBy = "r2#1", first = 2, reason = reason,
      oldText = "a\n", newText = "b\n" }), "\n")
  end
  H.fact("same", explain("change r2#1 of run r2, which was accepted, already makes this change; reject it, or ask the agent again on the text as it is now"))
  H.fact("different", explain("overlaps change r2#1 of run r2, which was accepted; reject it, or ask the agent again on the text as it is now"))
end)
