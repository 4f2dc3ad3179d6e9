-- A plugin author's deterministic end-to-end test: the same :AgentRun,
-- first recorded against the scripted model (model.record), then replayed
-- with only model.replay configured (no model server, no key).
--   AGENTLS_TEST_CASSETTE  the cassette file
--   AGENTLS_TEST_MODEL     set: record against it; unset: replay
local H = dofile(vim.fn.fnamemodify(debug.getinfo(1, "S").source:sub(2), ":h") .. "/harness.lua")

H.run(function()
  local cassette = vim.env.AGENTLS_TEST_CASSETTE
  local settings
  if H.env.model then
    settings = H.model_settings({ model = { record = cassette } })
  else
    settings = { model = { replay = cassette } }
  end
  vim.cmd("runtime plugin/agentls.lua")
  H.setup({ settings = settings })
  local bufnr, client = H.open(H.env.ws .. "/greet.go")
  vim.cmd("AgentRun make it loud")
  local r = H.wait_run_end()
  H.fact("status", r.status)
  H.fact("error", r.error or "")
  H.wait("the proposal preview", function()
    return #require("agentls.preview").hunks(bufnr) > 0
  end)
  local res = assert(require("agentls.client").request_sync(client, "agentls/proposals",
    { uri = vim.uri_from_bufnr(bufnr) }, 10000, bufnr))
  H.fact("proposed", (res.proposals or {})[1] and res.proposals[1].proposedText or "")
  H.fact("log", H.run_log())
end)
