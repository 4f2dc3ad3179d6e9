-- MCP elicitation forms: the server→client request agentls/elicit
-- (docs/protocol.md). An MCP server asks the user for input; the plugin
-- declares capabilities.experimental.agentls.elicitationForms, so the whole
-- form arrives here and is asked field by field with vim.ui.select (enums,
-- booleans, multi-select arrays) and vim.ui.input (strings and numbers,
-- checked against the schema and asked again when they do not fit).
--
-- Answers: { action = "accept", content = {...} }, { action = "decline" }
-- (the "Decline" choice of the first prompt) or { action = "cancel" } (Esc
-- at any prompt). Properties left out of an accepted form get the schema's
-- default on the server side; the prompts offer the default too.
--
-- Replying later: Neovim 0.9 and later run server-request handlers in a
-- coroutine, so the handler yields while vim.ui prompts run and the event
-- loop keeps going. Neovim 0.7 and 0.8 send whatever the handler returns at
-- once; there the form is asked synchronously, which works with the stock
-- vim.ui.select/input (inputlist()/input(), which keep processing events
-- while they wait). A replacement vim.ui that answers later cannot be waited
-- for on those versions without freezing the editor: the form is then
-- cancelled with a warning.
local log = require("agentls.log")

local M = {}

local function is_nil(v)
  return v == nil or v == vim.NIL
end

local function field_kind(p)
  if p.type == "boolean" then
    return "boolean"
  elseif p.type == "array" then
    return "multi"
  elseif p.enum ~= nil or p.oneOf ~= nil or p.anyOf ~= nil then
    return "enum"
  elseif p.type == "number" or p.type == "integer" then
    return p.type
  end
  return "string"
end

-- The choices of an enum (or of a multi-select's items): plain `enum` (with
-- the legacy `enumNames` as labels) or titled `oneOf`/`anyOf` of `const`s.
local function choices(p)
  local out = {}
  if type(p.enum) == "table" then
    for i, v in ipairs(p.enum) do
      local label = type(p.enumNames) == "table" and p.enumNames[i] or nil
      table.insert(out, { value = v, label = type(label) == "string" and label or tostring(v) })
    end
    return out
  end
  local alts = type(p.oneOf) == "table" and p.oneOf or type(p.anyOf) == "table" and p.anyOf or {}
  for _, alt in ipairs(alts) do
    if type(alt) == "table" and not is_nil(alt.const) then
      table.insert(out, { value = alt.const, label = type(alt.title) == "string" and alt.title or tostring(alt.const) })
    end
  end
  return out
end

--- The form's fields, sorted by property name (a decoded JSON object has
--- no order in Lua). Each: { name, schema, kind ("string"|"number"|
--- "integer"|"boolean"|"enum"|"multi"), required, title, description,
--- default, choices (enum, multi) }.
function M.fields(schema)
  schema = type(schema) == "table" and schema or {}
  local props = type(schema.properties) == "table" and schema.properties or {}
  local required = {}
  for _, n in ipairs(type(schema.required) == "table" and schema.required or {}) do
    required[n] = true
  end
  local names = vim.tbl_keys(props)
  table.sort(names)
  local out = {}
  for _, name in ipairs(names) do
    local p = type(props[name]) == "table" and props[name] or {}
    local f = {
      name = name,
      schema = p,
      kind = field_kind(p),
      required = required[name] == true,
      title = type(p.title) == "string" and p.title ~= "" and p.title or name,
      description = type(p.description) == "string" and p.description ~= "" and p.description or nil,
    }
    if not is_nil(p.default) then
      f.default = p.default
    end
    if f.kind == "enum" then
      f.choices = choices(p)
    elseif f.kind == "multi" then
      f.choices = choices(type(p.items) == "table" and p.items or {})
    end
    table.insert(out, f)
  end
  return out
end

-- Characters (code points) in a UTF-8 string, as JSON Schema counts length.
local function length(s)
  local _, n = s:gsub("[^\128-\191]", "")
  return n
end

local formats = {
  email = { "^[^@%s]+@[^@%s]+$", "an email address" },
  uri = { "^%a[%w+.-]*:%S+$", "an absolute URI (scheme:…)" },
  date = { "^%d%d%d%d%-%d%d%-%d%d$", "a date (YYYY-MM-DD)" },
  ["date-time"] = { "^%d%d%d%d%-%d%d%-%d%d[Tt ]%d%d:%d%d", "a date and time (YYYY-MM-DDTHH:MM:SSZ)" },
}

--- Checks the text typed for a string, number or integer field against its
--- schema. Returns the value to send, or nil and why it does not fit.
function M.parse(f, text)
  local p = f.schema
  if f.kind == "number" or f.kind == "integer" then
    local n = tonumber(vim.trim(text))
    if not n or n ~= n or n == math.huge or n == -math.huge then
      return nil, f.kind == "integer" and "enter a whole number" or "enter a number"
    end
    if f.kind == "integer" and math.floor(n) ~= n then
      return nil, "enter a whole number"
    end
    if type(p.minimum) == "number" and n < p.minimum then
      return nil, "must be at least " .. tostring(p.minimum)
    end
    if type(p.maximum) == "number" and n > p.maximum then
      return nil, "must be at most " .. tostring(p.maximum)
    end
    if type(p.exclusiveMinimum) == "number" and n <= p.exclusiveMinimum then
      return nil, "must be more than " .. tostring(p.exclusiveMinimum)
    end
    if type(p.exclusiveMaximum) == "number" and n >= p.exclusiveMaximum then
      return nil, "must be less than " .. tostring(p.exclusiveMaximum)
    end
    return n
  end
  local len = length(text)
  if type(p.minLength) == "number" and len < p.minLength then
    return nil, string.format("at least %d characters", p.minLength)
  end
  if type(p.maxLength) == "number" and len > p.maxLength then
    return nil, string.format("at most %d characters", p.maxLength)
  end
  local fmt = formats[p.format]
  if fmt and not text:match(fmt[1]) then
    return nil, "enter " .. fmt[2]
  end
  if type(p.pattern) == "string" then
    -- JSON Schema patterns are ECMAScript regexes; Vim's very magic syntax
    -- reads the common ones (classes, \d, \w, anchors, counts) alike; \C
    -- keeps it case sensitive whatever 'ignorecase' says. A pattern Vim
    -- cannot compile is left to the MCP server to check.
    local ok, re = pcall(vim.regex, "\\v\\C" .. p.pattern)
    if ok and re and not re:match_str(text) then
      return nil, "must match " .. p.pattern
    end
  end
  return text
end

local function label(f)
  local s = f.title
  if f.description then
    s = s .. " (" .. f.description .. ")"
  end
  if f.required then
    s = s .. " *"
  end
  return s
end

local function same(a, b)
  return a == b or (type(a) == "number" and type(b) == "number" and a == b)
end

local function contains(list, v)
  for _, x in ipairs(list) do
    if same(x, v) then
      return true
    end
  end
  return false
end

-- Asks one field; cb(ok, value): ok false when the user pressed Esc, value
-- nil when the field is left out.
local function ask(f, ui, cb)
  local prompt = label(f)
  if f.kind == "boolean" or f.kind == "enum" then
    local items = {}
    if f.kind == "boolean" then
      items = { { value = true, label = "Yes" }, { value = false, label = "No" } }
    else
      for _, c in ipairs(f.choices) do
        table.insert(items, c)
      end
    end
    for _, it in ipairs(items) do
      if f.default ~= nil and same(it.value, f.default) then
        it.label = it.label .. " (default)"
      end
    end
    if not f.required and f.default == nil then
      table.insert(items, { skip = true, label = "(leave empty)" })
    end
    ui.select(items, {
      prompt = prompt,
      kind = "agentls_elicit",
      format_item = function(it)
        return it.label
      end,
    }, function(item)
      if item == nil then
        return cb(false)
      end
      if item.skip then
        return cb(true, nil)
      end
      cb(true, item.value)
    end)
    return
  end
  if f.kind == "multi" then
    local chosen = {}
    for _, v in ipairs(type(f.default) == "table" and f.default or {}) do
      table.insert(chosen, v)
    end
    local p = f.schema
    local note
    local function again()
      local items = {}
      for _, c in ipairs(f.choices) do
        table.insert(items, { value = c.value, label = (contains(chosen, c.value) and "[x] " or "[ ] ") .. c.label })
      end
      table.insert(items, { done = true, label = "Done" })
      ui.select(items, {
        prompt = prompt .. (note and (" — " .. note) or ""),
        kind = "agentls_elicit",
        format_item = function(it)
          return it.label
        end,
      }, function(item)
        if item == nil then
          return cb(false)
        end
        note = nil
        if not item.done then
          local kept = {}
          for _, v in ipairs(chosen) do
            if not same(v, item.value) then
              table.insert(kept, v)
            end
          end
          if #kept == #chosen then
            -- keep the choices' order, not the order of clicks
            kept = {}
            for _, c in ipairs(f.choices) do
              if same(c.value, item.value) or contains(chosen, c.value) then
                table.insert(kept, c.value)
              end
            end
          end
          chosen = kept
          return again()
        end
        if type(p.minItems) == "number" and #chosen < p.minItems then
          note = string.format("choose at least %d", p.minItems)
          return again()
        end
        if type(p.maxItems) == "number" and #chosen > p.maxItems then
          note = string.format("choose at most %d", p.maxItems)
          return again()
        end
        if #chosen == 0 and f.required then
          note = "choose at least one"
          return again()
        end
        if #chosen == 0 then
          return cb(true, nil)
        end
        cb(true, chosen)
      end)
    end
    again()
    return
  end
  local function input(default, note)
    ui.input({
      prompt = prompt .. (note and (" [" .. note .. "]") or "") .. ": ",
      default = default,
    }, function(text)
      if text == nil then
        return cb(false)
      end
      if text == "" then
        if f.required then
          return input("", "required")
        end
        return cb(true, nil)
      end
      local v, why = M.parse(f, text)
      if v == nil then
        return input(text, why)
      end
      cb(true, v)
    end)
  end
  input(f.default ~= nil and tostring(f.default) or "")
end

--- Asks the user for params (agentls/elicit's) through `ui` ({ select,
--- input, open } shaped like vim.ui's) and calls done(answer) once.
function M.collect(params, ui, done)
  params = type(params) == "table" and params or {}
  local header = string.format("MCP server %q asks: %s", tostring(params.server or "?"), tostring(params.message or ""))
  local choose = function(first, cb)
    ui.select({ first, "Decline" }, { prompt = header, kind = "agentls_elicit" }, function(_, idx)
      if idx == nil then
        return done({ action = "cancel" })
      elseif idx ~= 1 then
        return done({ action = "decline" })
      end
      cb()
    end)
  end
  if params.mode == "url" then
    choose("Open " .. tostring(params.url), function()
      ui.open(params.url)
      done({ action = "accept" })
    end)
    return
  end
  local fields = M.fields(params.requestedSchema)
  local first = #fields == 0 and "Accept" or string.format("Answer (%d %s)", #fields, #fields == 1 and "field" or "fields")
  choose(first, function()
    local content = vim.empty_dict()
    local function step(i)
      if i > #fields then
        return done({ action = "accept", content = content })
      end
      ask(fields[i], ui, function(ok, value)
        if not ok then
          return done({ action = "cancel" })
        end
        content[fields[i].name] = value
        step(i + 1)
      end)
    end
    step(1)
  end)
end

local function open_url(url)
  if vim.ui.open then
    local ok, err = pcall(vim.ui.open, url)
    if ok then
      return
    end
    log.warn("vim.ui.open(%s): %s", url, err)
  end
  log.notify(vim.log.levels.INFO, "open %s", url)
end

-- vim.ui's functions looked up at call time, so a replacement installed
-- after the plugin loaded is used.
local function live_ui(state)
  local function guard(cb)
    return function(...)
      if state.dead then
        return -- answered already (see the synchronous path)
      end
      return cb(...)
    end
  end
  return {
    select = function(items, opts, cb)
      return vim.ui.select(items, opts, guard(cb))
    end,
    input = function(opts, cb)
      return vim.ui.input(opts, guard(cb))
    end,
    open = open_url,
  }
end

--- The agentls/elicit handler (vim.lsp handler signature).
function M.handler(_, params, _)
  local co, is_main = coroutine.running()
  if co and not is_main then
    M.collect(params, live_ui({}), function(answer)
      -- Resumed from the main loop: a vim.ui that answers at once would
      -- otherwise resume the coroutine before it has yielded.
      vim.schedule(function()
        local ok, err = coroutine.resume(co, answer)
        if not ok then
          log.error("agentls/elicit: %s", err)
        end
      end)
    end)
    return coroutine.yield()
  end
  local state = {}
  local answer
  M.collect(params, live_ui(state), function(a)
    answer = a
  end)
  state.dead = true
  if answer then
    return answer
  end
  log.notify(vim.log.levels.WARN,
    "an MCP server's form was cancelled: this Neovim cannot wait for a vim.ui.select/input that answers later (Neovim 0.9+ can)")
  return { action = "cancel" }
end

return M
