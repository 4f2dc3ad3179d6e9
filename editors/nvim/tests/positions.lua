-- LSP character offsets <-> byte columns in every encoding.
local H = dofile(vim.fn.fnamemodify(debug.getinfo(1, "S").source:sub(2), ":h") .. "/harness.lua")
local pos = require("agentls.position")

H.run(function()
  local line = "a😀b日c" -- bytes: a=1, 😀=4, b=1, 日=3, c=1
  local cases = {}
  local function case(name, got)
    cases[name] = got
  end
  -- utf-16: a(0) 😀(1,2) b(3) 日(4) c(5)
  case("u16_to_byte_0", pos.to_byte(line, 0, "utf-16"))
  case("u16_to_byte_1", pos.to_byte(line, 1, "utf-16"))
  case("u16_to_byte_2_mid_pair", pos.to_byte(line, 2, "utf-16"))
  case("u16_to_byte_3", pos.to_byte(line, 3, "utf-16"))
  case("u16_to_byte_4", pos.to_byte(line, 4, "utf-16"))
  case("u16_to_byte_5", pos.to_byte(line, 5, "utf-16"))
  case("u16_to_byte_6_end", pos.to_byte(line, 6, "utf-16"))
  case("u16_to_byte_99_clamp", pos.to_byte(line, 99, "utf-16"))
  -- utf-32: a(0) 😀(1) b(2) 日(3) c(4)
  case("u32_to_byte_2", pos.to_byte(line, 2, "utf-32"))
  case("u32_to_byte_3", pos.to_byte(line, 3, "utf-32"))
  case("u8_to_byte_5", pos.to_byte(line, 5, "utf-8"))
  case("u8_to_byte_99_clamp", pos.to_byte(line, 99, "utf-8"))
  case("u16_from_byte_5", pos.from_byte(line, 5, "utf-16"))
  case("u16_from_byte_9", pos.from_byte(line, 9, "utf-16"))
  case("u16_from_byte_end", pos.from_byte(line, #line, "utf-16"))
  case("u32_from_byte_end", pos.from_byte(line, #line, "utf-32"))
  case("u8_from_byte_6", pos.from_byte(line, 6, "utf-8"))
  case("empty_u16", pos.to_byte("", 3, "utf-16"))
  -- Round trip every byte column that starts a character.
  local round = true
  for _, enc in ipairs({ "utf-8", "utf-16", "utf-32" }) do
    for _, col in ipairs({ 0, 1, 5, 6, 9, 10 }) do
      if pos.to_byte(line, pos.from_byte(line, col, enc), enc) ~= col then
        round = false
      end
    end
  end
  case("round_trip", round)

  vim.cmd("enew")
  local buf = vim.api.nvim_get_current_buf()
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, { "first", "x 😀😀", "third" })
  case("line_range", pos.line_range(buf, 1, 2, "utf-16"))
  case("line_range_u8", pos.line_range(buf, 2, 2, "utf-8"))
  H.fact("cases", cases)
end)
