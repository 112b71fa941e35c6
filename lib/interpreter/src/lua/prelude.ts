/**
 * The Lua code that builds what scripts may see, run once per VM with the full standard library.
 * It returns `newEnv`, which makes the global table of one compiled script, and the real
 * `collectgarbage` for the host.
 *
 * What scripts get is what Karmada opens for them, and nothing else:
 * - base: assert, error, ipairs, next, pairs, pcall, print, require, select, tonumber, tostring,
 *   type, unpack, xpcall, _G, _VERSION. collectgarbage, dofile, getfenv, getmetatable, load,
 *   loadfile, loadstring, module, newproxy, rawequal, rawget, rawset, setfenv and setmetatable
 *   exist but raise an error when called.
 * - string (rep, gsub and dump raise an error; gfind is gmatch), table (concat, getn, insert, maxn,
 *   remove, sort), math (Lua 5.1's set, pow/mod/log10/atan2/frexp/ldexp/cosh/sinh/tanh included),
 *   os (time and date only), and `require("kube")`. No io, debug, coroutine, utf8 or file loading.
 *
 * Karmada runs Lua 5.1 semantics; this VM is Lua 5.4, so the prelude restores what 5.1 scripts
 * rely on: `unpack`, `table.getn`, the 5.1 math names, `tostring` of a whole float without ".0",
 * and `string.format` truncating a fractional number given to `%d`. `pairs` walks keys in sorted
 * order, so that a script's output never depends on a VM's hash seed.
 *
 * Every library table is a read-only view shared by all scripts of the VM, and each script's
 * globals live in its own table (a copy of the base functions), so one customization cannot
 * change what another one sees.
 * `pcall` and `xpcall` do not swallow the time limit: once a call is past its deadline, the error
 * goes on up.
 */
export const PRELUDE = String.raw`
local host = ...
local assert, error, ipairs, next, pcall, select, tonumber, tostring, type, xpcall, setmetatable =
  assert, error, ipairs, next, pcall, select, tonumber, tostring, type, xpcall, setmetatable
local string, table, math = string, table, math
local sformat, gmatch = string.format, string.gmatch
local concat, unpack = table.concat, table.unpack
local mtype, floor, abs, log, exp, atan, fmod, huge = math.type, math.floor, math.abs, math.log, math.exp, math.atan, math.fmod, math.huge
local expired, sink = host.expired, host.print

local function unavailable(name, hint)
  return function()
    error(name .. " is not available to resource interpreter scripts" .. (hint or ""), 2)
  end
end

local function readonly(t, name)
  return setmetatable({}, {
    __index = t,
    __newindex = function(_, k)
      error("cannot change " .. name .. "." .. tostring(k) .. ": libraries are shared by every script", 2)
    end,
    -- An iterator of its own, so that pairs never hands the real table to a script.
    __pairs = function()
      local k
      return function()
        local v
        k, v = next(t, k)
        return k, v
      end
    end,
    __metatable = false,
  })
end

-- Lua 5.1 printed whole floats without a fractional part.
local function tostring51(v)
  if mtype(v) == "float" and v == floor(v) and v >= -2^63 and v < 2^63 then
    return sformat("%d", v)
  end
  return tostring(v)
end

local function truncate(v)
  if mtype(v) == "float" and v == v and v ~= huge and v ~= -huge then
    return v >= 0 and floor(v) or -floor(-v)
  end
  return v
end

-- Lua 5.1 truncated a fractional number given to an integer conversion; 5.4 refuses it.
local function format51(fmt, ...)
  local ok, result = pcall(sformat, fmt, ...)
  if ok then return result end
  local n = select("#", ...)
  local args = { ... }
  local i = 0
  for conversion in gmatch(fmt, "%%[-+ #0]*%d*%.?%d*(.)") do
    if conversion ~= "%" then
      i = i + 1
      if conversion:find("^[diouxXc]$") then args[i] = truncate(args[i]) end
    end
  end
  local retried, formatted = pcall(sformat, fmt, unpack(args, 1, n))
  if retried then return formatted end
  error(result, 2)
end

string.rep = unavailable("string.rep")
string.gsub = unavailable("string.gsub", "; use string.find and string.sub")
string.dump = unavailable("string.dump")
string.format = format51
string.gfind = gmatch
string.pack, string.packsize, string.unpack = nil, nil, nil

local table51 = {
  concat = concat,
  insert = table.insert,
  remove = table.remove,
  sort = table.sort,
  getn = function(t) return #t end,
  maxn = function(t)
    local max = 0
    for k in next, t do
      if type(k) == "number" and k > max then max = k end
    end
    return max
  end,
}

local function frexp(x)
  if x == 0 or x ~= x or x == huge or x == -huge then return x, 0 end
  local e = floor(log(abs(x), 2)) + 1
  local m = x / 2.0^e
  if abs(m) >= 1 then m, e = m / 2, e + 1 elseif abs(m) < 0.5 then m, e = m * 2, e - 1 end
  return m, e
end

local math51 = {
  abs = abs, acos = math.acos, asin = math.asin, atan = atan, ceil = math.ceil, cos = math.cos,
  deg = math.deg, exp = exp, floor = floor, fmod = fmod, huge = huge, log = log, max = math.max,
  min = math.min, modf = math.modf, pi = math.pi, rad = math.rad, random = math.random,
  randomseed = math.randomseed, sin = math.sin, sqrt = math.sqrt, tan = math.tan,
  atan2 = function(y, x) return atan(y, x) end,
  cosh = function(x) return (exp(x) + exp(-x)) / 2 end,
  sinh = function(x) return (exp(x) - exp(-x)) / 2 end,
  tanh = function(x) local a, b = exp(x), exp(-x) return (a - b) / (a + b) end,
  frexp = frexp,
  ldexp = function(m, e) return m * 2.0^e end,
  log10 = function(x) return log(x, 10) end,
  mod = fmod,
  pow = function(x, y) return x ^ y end,
}

-- Lua 5.4 walks a table's hash part in an order that depends on a per-VM random seed; Karmada's
-- VM walks it in insertion order. Neither can be had here, so pairs walks keys in sorted order
-- (numbers, then strings, then anything else): the same result on every VM and every run.
local sort, rawmeta = table.sort, debug.getmetatable
local typeRank = { number = 1, string = 2 }
local function keyBefore(a, b)
  local ta, tb = type(a), type(b)
  if ta ~= tb then return (typeRank[ta] or 3) < (typeRank[tb] or 3) end
  if ta == "number" or ta == "string" then return a < b end
  return tostring(a) < tostring(b)
end
local function sortedPairs(t)
  local meta = rawmeta(t)
  if meta ~= nil and meta.__pairs ~= nil then return meta.__pairs(t) end
  local keys, n = {}, 0
  for k in next, t do n = n + 1 keys[n] = k end
  sort(keys, keyBefore)
  local i = 0
  return function()
    while i < n do
      i = i + 1
      local k = keys[i]
      local v = t[k]
      if v ~= nil then return k, v end
    end
    return nil
  end, t, nil
end

local function rethrowPastDeadline(ok, ...)
  if not ok and expired() then error((...), 0) end
  return ok, ...
end

local function print51(...)
  local parts = {}
  for i = 1, select("#", ...) do parts[i] = tostring51((select(i, ...))) end
  sink(concat(parts, "\t"))
end

local loaded = {
  kube = readonly(host.kube, "kube"),
  string = readonly(string, "string"),
  table = readonly(table51, "table"),
  math = readonly(math51, "math"),
  os = readonly({ time = host.time, date = host.date }, "os"),
}

local function require51(name)
  local module = loaded[name]
  if module == nil then
    error("module " .. tostring(name) .. " not found:\n\tno field package.preload['" .. tostring(name) .. "']", 2)
  end
  return module
end

local base = {
  assert = assert, error = error, ipairs = ipairs, next = next, pairs = sortedPairs, select = select,
  tonumber = tonumber, type = type, unpack = unpack, _VERSION = _VERSION,
  tostring = tostring51,
  print = print51,
  require = require51,
  pcall = function(f, ...) return rethrowPastDeadline(pcall(f, ...)) end,
  xpcall = function(f, handler, ...) return rethrowPastDeadline(xpcall(f, handler, ...)) end,
  string = loaded.string, table = loaded.table, math = loaded.math, os = loaded.os,
  package = readonly({
    loaded = readonly(loaded, "package.loaded"),
    preload = readonly({ kube = function() return loaded.kube end }, "package.preload"),
    loadlib = unavailable("package.loadlib"),
  }, "package"),
}
for _, name in ipairs({ "collectgarbage", "dofile", "getfenv", "getmetatable", "load", "loadfile",
    "loadstring", "module", "newproxy", "rawequal", "rawget", "rawset", "setfenv", "setmetatable" }) do
  base[name] = function()
    error("call function " .. name .. " is not supported in karmada customized resourceinterpreter.", 2)
  end
end

-- A copy, not a view: a script that assigns nil to a global (even to "error") must see nil
-- afterwards, as it would in a VM of its own.
local function newEnv()
  local env = {}
  for k, v in next, base do env[k] = v end
  env._G = env
  return env
end

return newEnv, collectgarbage
`;
