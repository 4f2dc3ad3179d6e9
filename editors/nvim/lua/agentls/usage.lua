-- Tokens and cost of agent runs (docs/protocol.md "Run history and
-- usage"): the server sends a runEvent "usage" after every model call and
-- the run's totals on its end event; this module keeps the figures on the
-- run records of run.lua and writes them the way the CLI's last line does:
-- "3,000 tokens in (1,200 cached) / 150 out · $0.0036".
local M = {}

--- `n` with thousands separators: 1234567 → "1,234,567".
function M.thousands(n)
  n = math.floor(tonumber(n) or 0)
  local s = tostring(math.abs(n))
  local out = s:reverse():gsub("(%d%d%d)", "%1,"):reverse():gsub("^,", "")
  return (n < 0 and "-" or "") .. out
end

--- `n` in few characters, for a statusline: 950, 3.2k, 1.5M.
function M.compact(n)
  n = tonumber(n) or 0
  if n < 1000 then
    return tostring(math.floor(n))
  end
  local v, unit = n / 1000, "k"
  if n >= 1e6 then
    v, unit = n / 1e6, "M"
  end
  local s = string.format(v >= 100 and "%.0f" or "%.1f", v):gsub("%.0$", "")
  return s .. unit
end

--- A cost in US dollars as the CLI and the report show it: "$0.0036".
function M.cost(c)
  return string.format("$%.4f", c)
end

local function num(v)
  return type(v) == "number" and v >= 0 and v or nil
end

--- Adds one model call (a "usage" runEvent) to run record `r`'s running
--- tally; the end event replaces the tally with the server's totals.
function M.add(r, ev)
  local u = r.usage or { prompt = 0, completion = 0, cached = 0 }
  u.prompt = u.prompt + (num(ev.promptTokens) or 0)
  u.completion = u.completion + (num(ev.completionTokens) or 0)
  u.cached = u.cached + (num(ev.cachedTokens) or 0)
  u.estimated = u.estimated or ev.estimated == true
  if num(ev.costUSD) then
    u.cost = (u.cost or 0) + ev.costUSD
  end
  r.usage = u
end

--- Takes the run's totals from its end event (finished, failed,
--- cancelled): `usage` {promptTokens, completionTokens, cachedTokens?} and
--- `costUSD`. An end event without them keeps the running tally.
function M.finish(r, ev)
  local t = type(ev.usage) == "table" and ev.usage or nil
  if not t or not (num(t.promptTokens) or num(t.completionTokens)) then
    return
  end
  r.usage = {
    prompt = num(t.promptTokens) or 0,
    completion = num(t.completionTokens) or 0,
    cached = num(t.cachedTokens) or 0,
    cost = num(ev.costUSD),
    estimated = r.usage and r.usage.estimated or nil,
  }
end

--- "3,000 tokens in (1,200 cached) / 150 out · $0.0036": one call's or a
--- run's figures (`u` as M.add keeps them); the cost only when priced.
function M.line(u)
  if type(u) ~= "table" then
    return ""
  end
  local s = string.format("%s tokens in (%s cached) / %s out", M.thousands(u.prompt), M.thousands(u.cached),
    M.thousands(u.completion))
  if u.cost then
    s = s .. " · " .. M.cost(u.cost)
  end
  if u.estimated then
    s = s .. " (estimated)"
  end
  return s
end

--- The log line of a "usage" runEvent: "  Σ turn 2: 1,000 tokens in …".
function M.event_line(ev)
  local u = {
    prompt = num(ev.promptTokens) or 0,
    completion = num(ev.completionTokens) or 0,
    cached = num(ev.cachedTokens) or 0,
    cost = num(ev.costUSD),
    estimated = ev.estimated == true,
  }
  return string.format("  Σ turn %s: %s", tostring(ev.turn or "?"), M.line(u))
end

--- The statusline part for run record `r`: "3.2k tok · $0.0036", or "".
function M.status_part(r)
  local u = r and r.usage
  if type(u) ~= "table" or u.prompt + u.completion == 0 then
    return ""
  end
  local s = M.compact(u.prompt + u.completion) .. " tok"
  if u.cost then
    s = s .. " · " .. M.cost(u.cost)
  end
  return s
end

--- A session's total from agentls/sessions ({tokens, costUSD?, runs}):
--- "5,100 tokens · $0.0061 over 2 runs".
function M.session_line(s)
  local line = M.thousands(s.tokens or 0) .. " tokens"
  if num(s.costUSD) then
    line = line .. " · " .. M.cost(s.costUSD)
  end
  return line .. string.format(" over %d run%s", s.runs or 0, s.runs == 1 and "" or "s")
end

return M
