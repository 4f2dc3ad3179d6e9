-- Rendering proposals as inline diffs (extmarks), finding the hunk under the
-- cursor, jumping between hunks, and the agentls.accept / agentls.reject
-- arguments the review commands send (captured on the wire).
local H = dofile(vim.fn.fnamemodify(debug.getinfo(1, "S").source:sub(2), ":h") .. "/harness.lua")

local function rng(sl, sc, el, ec)
  return { start = { line = sl, character = sc }, ["end"] = { line = el, character = ec } }
end

H.run(function()
  -- The review commands target hunks the server never proposed: it may
  -- answer with errors, which are not what this test checks.
  H.allow_errors = true
  vim.cmd("runtime plugin/agentls.lua")
  local wire = H.env.dir .. "/wire.log"
  H.fact("wire", wire)
  H.setup({ cmd = H.tee_cmd(wire) })
  local path = H.write("main.go", table.concat({
    "package main",
    "func a() {}",
    'x := "😀 emoji" // end',
    "\tindented",
    "last",
  }, "\n") .. "\n")
  local bufnr, client = H.open(path)
  vim.bo[bufnr].tabstop = 4
  local uri = vim.uri_from_bufnr(bufnr)
  local proposals = {
    {
      uri = uri, runId = "r1", status = "pending", proposedText = "",
      hunks = {
        { id = "h1", range = rng(1, 0, 2, 0), oldText = "func a() {}\n", newText = "func a() { return }\nfunc b() {}\n" },
        -- "emoji" starts at UTF-16 offset 9 (the emoji counts 2 units).
        { id = "h2", range = rng(2, 9, 2, 14), oldText = "emoji", newText = "EMOJI", lastError = "buffer changed" },
        { id = "h3", range = rng(3, 0, 3, 0), oldText = "", newText = "// inserted\n// twice\n" },
        { id = "h4", range = rng(4, 0, 5, 0), oldText = "last\n", newText = "",
          status = "conflicted", reason = "you edited these lines" },
      },
    },
    {
      uri = uri, runId = "r2", status = "conflicted", proposedText = "",
      hunks = { { id = "c1", range = rng(3, 1, 3, 9), oldText = "indented", newText = "INDENTED" } },
    },
    {
      uri = vim.uri_from_fname(H.env.ws .. "/other.go"), runId = "r1", status = "pending", proposedText = "",
      hunks = { { id = "o1", range = rng(0, 0, 0, 0), oldText = "", newText = "elsewhere\n" } },
    },
  }
  require("agentls.preview").render(bufnr, proposals, client.offset_encoding)
  H.fact("marks", H.marks(bufnr))
  H.fact("buffer", vim.api.nvim_buf_get_lines(bufnr, 0, -1, false))

  local review = require("agentls.review")
  local function at(row)
    vim.api.nvim_win_set_cursor(0, { row + 1, 0 })
    local h = review.hunk_at_cursor(bufnr)
    return h and h.id or vim.NIL
  end
  H.fact("at", { at(0), at(1), at(2), at(3), at(4) })

  -- Hunks follow edits: two lines inserted at the top move them down.
  vim.api.nvim_buf_set_lines(bufnr, 0, 0, false, { "// a", "// b" })
  H.fact("at_after_edit", { at(3), at(4) })

  local visits = {}
  vim.api.nvim_win_set_cursor(0, { 1, 0 })
  for _ = 1, 5 do
    review.next_hunk()
    table.insert(visits, vim.api.nvim_win_get_cursor(0)[1] - 1)
  end
  H.fact("next_rows", visits)
  visits = {}
  for _ = 1, 2 do
    review.prev_hunk()
    table.insert(visits, vim.api.nvim_win_get_cursor(0)[1] - 1)
  end
  H.fact("prev_rows", visits)

  -- Review commands: hunk under cursor, file, all.
  local done = 0
  local on_done = function()
    done = done + 1
  end
  vim.api.nvim_win_set_cursor(0, { 5, 0 }) -- the emoji line (row 4 now)
  review.accept(nil, on_done)
  review.reject("file", on_done)
  review.accept("all", on_done)
  vim.api.nvim_win_set_cursor(0, { 1, 0 })
  H.fact("no_hunk_accept", review.accept(nil, on_done))
  H.wait("three review answers", function()
    return done == 3
  end)
  H.fact("client_id", client.id)

  require("agentls.preview").clear(bufnr)
  H.fact("marks_after_clear", #H.marks(bufnr))
end)
