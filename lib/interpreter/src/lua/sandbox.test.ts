import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JsonValue } from '../json.ts';
import { LuaSandbox, type CallOutcome, type CompiledScript } from './sandbox.ts';
import type { HostLibrary } from './sandbox.ts';

const printed: string[] = [];
const host: HostLibrary = {
  kube: { echo: (args) => args.json(1) },
  print: (args) => {
    printed.push(args.string(1));
    return undefined;
  },
  time: () => 42,
  date: () => 'today',
};
const MEMORY = 8 * 1024 * 1024;
/** Room for the memory tests to reach the limit on a busy machine before any deadline. */
const UNHURRIED = 10_000;

let sandbox: LuaSandbox;
beforeAll(async () => {
  sandbox = await LuaSandbox.create(MEMORY, host);
});
afterAll(() => {
  sandbox.close();
});

function compiled(source: string): CompiledScript {
  const outcome = sandbox.compile(source, 'script');
  if (!outcome.ok) throw new Error(outcome.message);
  return outcome.script;
}

function call(source: string, timeoutMs = 1000): CallOutcome {
  return sandbox.call(compiled(source), { entry: 'F', args: [], nresults: 1, timeoutMs });
}

function value(expression: string): JsonValue | undefined {
  const outcome = call(`function F() return ${expression} end`);
  if (!outcome.ok) throw new Error(outcome.message);
  return outcome.results[0]?.json;
}

describe('what scripts may use', () => {
  it.each([
    'io',
    'debug',
    'coroutine',
    'utf8',
    'os.exit',
    'os.getenv',
    'os.execute',
    'os.remove',
    'rawlen',
    'warn',
  ])('%s is absent', (name) => {
    expect(value(`${name} == nil`)).toBe(true);
  });

  it.each([
    'collectgarbage',
    'dofile',
    'getfenv',
    'getmetatable',
    'load',
    'loadfile',
    'loadstring',
    'module',
    'newproxy',
    'rawequal',
    'rawget',
    'rawset',
    'setfenv',
    'setmetatable',
  ])('%s raises an error when called', (name) => {
    expect(call(`function F() return ${name}() end`)).toMatchObject({
      ok: false,
      kind: 'runtime',
      message: `call function ${name} is not supported in karmada customized resourceinterpreter.`,
    });
  });

  it('requires only the kube module and the opened libraries', () => {
    expect(value('type(require("kube").echo)')).toBe('function');
    expect(value('require("string") == string')).toBe(true);
    expect(call('function F() return require("os.path") end')).toMatchObject({
      ok: false,
      message: expect.stringContaining(
        "module os.path not found:\n\tno field package.preload['os.path']",
      ) as unknown,
    });
    expect(call('function F() return package.loadlib("x", "y") end')).toMatchObject({ ok: false });
  });

  it('has the string, table and math functions of Karmada', () => {
    expect(
      value('string.upper("a") .. ("b"):upper() .. string.sub("xyz", 2) .. string.format("%05.1f", 3.14159)'),
    ).toBe('AByz003.1');
    expect(value('string.find("a.b", ".", 1, true)')).toBe(2);
    expect(value('table.concat({ 1, 2 }, ",")')).toBe('1,2');
    expect(
      value(
        '(function() local t = { 3, 1, 2 } table.sort(t) table.insert(t, 4) table.remove(t, 1) return t end)()',
      ),
    ).toEqual([2, 3, 4]);
    expect(value('math.max(1, 5) + math.floor(2.5) + math.abs(-1)')).toBe(8);
  });

  it('restores the Lua 5.1 names scripts rely on', () => {
    expect(value('select(2, unpack({ 1, 2 }))')).toBe(2);
    expect(value('table.getn({ 1, 2, 3 })')).toBe(3);
    expect(value('table.maxn({ [1] = 1, [5] = 5 })')).toBe(5);
    expect(value('math.pow(2, 10) + math.mod(7, 3) + math.log10(100) + math.atan2(0, 1)')).toBe(1027);
    expect(value('{ math.frexp(8) }')).toEqual([0.5, 4]);
    expect(value('math.ldexp(0.5, 4) + math.cosh(0) + math.sinh(0) + math.tanh(0)')).toBe(9);
    expect(value('string.gfind == string.gmatch')).toBe(true);
  });

  it('prints whole floats without a fractional part, like Lua 5.1', () => {
    expect(value('tostring(4 / 2) .. " " .. tostring(1.5) .. " " .. tostring(3)')).toBe('2 1.5 3');
  });

  it('truncates fractional numbers given to %d, like Lua 5.1', () => {
    expect(value('string.format("%d items, %.1f%%", 2.7, 2.75)')).toBe('2 items, 2.8%');
    expect(call('function F() return string.format("%d", "x") end')).toMatchObject({
      ok: false,
      kind: 'runtime',
    });
  });

  it.each(['rep', 'gsub', 'dump'])('string.%s raises an error', (name) => {
    const outcome = call(`function F() local r = string.${name}("a", "a", "b") return r end`);
    expect(outcome).toMatchObject({
      ok: false,
      message: `script:1: string.${name} is not available to resource interpreter scripts${name === 'gsub' ? '; use string.find and string.sub' : ''}`,
    });
  });

  it('walks pairs in sorted key order, skipping keys removed on the way', () => {
    const walk = `(function()
      local t = { b = 1, a = 2, [2] = "x", [1] = "y", c = 3 }
      local keys = {}
      for k in pairs(t) do keys[#keys + 1] = tostring(k) t.c = nil end
      return table.concat(keys, ",")
    end)()`;
    expect(value(walk)).toBe('1,2,a,b');
  });

  it('lets pcall catch ordinary errors', () => {
    expect(value('{ pcall(error, "boom", 0) }')).toEqual([false, 'boom']);
  });

  it('offers os.time and os.date from the host', () => {
    expect(value('os.time() .. os.date()')).toBe('42today');
  });

  it('sends print to the host', () => {
    printed.length = 0;
    value('print("a", 1, 2.0, nil, true) or 0');
    expect(printed).toEqual(['a\t1\t2\tnil\ttrue']);
  });
});

describe('isolation between scripts', () => {
  it('gives each script its own globals', () => {
    const writer = compiled('function F() shared = "mine" error = nil return shared end');
    const reader = compiled('function F() return tostring(shared) .. " " .. type(error) end');
    expect(sandbox.call(writer, { entry: 'F', args: [], nresults: 1, timeoutMs: 1000 })).toMatchObject({
      ok: true,
    });
    expect(sandbox.call(reader, { entry: 'F', args: [], nresults: 1, timeoutMs: 1000 })).toMatchObject({
      ok: true,
      results: [{ json: 'nil function' }],
    });
  });

  it('keeps a script globals between its calls, and reruns its top level each call', () => {
    const script = compiled(
      'local calls = 0 function F() calls = calls + 1 count = (count or 0) + 1 return calls * 10 + count end',
    );
    const run = (): CallOutcome =>
      sandbox.call(script, { entry: 'F', args: [], nresults: 1, timeoutMs: 1000 });
    expect(run()).toMatchObject({ results: [{ json: 11 }] });
    expect(run()).toMatchObject({ results: [{ json: 12 }] });
  });

  it('makes the shared libraries read-only', () => {
    expect(call('function F() string.upper = nil end')).toMatchObject({
      ok: false,
      message: 'script:1: cannot change string.upper: libraries are shared by every script',
    });
    expect(call('function F() require("kube").echo = nil end')).toMatchObject({ ok: false });
    expect(value('(function() local n = 0 for _ in pairs(math) do n = n + 1 end return n > 20 end)()')).toBe(
      true,
    );
    // pairs over a library hands out an iterator, never the table behind the view.
    expect(value('select("#", pairs(string)) == 1 and select(2, pairs(require("kube"))) == nil')).toBe(true);
  });
});

describe('bounds', () => {
  it('stops an endless loop at the deadline and stays usable', () => {
    const started = Date.now();
    expect(call('function F() while true do end end', 100)).toMatchObject({ ok: false, kind: 'timeout' });
    expect(Date.now() - started).toBeLessThan(1000);
    expect(value('1 + 1')).toBe(2);
  });

  it('does not let pcall swallow the deadline', () => {
    const loop = 'function F() while true do pcall(function() while true do end end) end end';
    expect(call(loop, 100)).toMatchObject({ ok: false, kind: 'timeout' });
    const xloop =
      'function F() while true do xpcall(function() while true do end end, function(e) return e end) end end';
    expect(call(xloop, 100)).toMatchObject({ ok: false, kind: 'timeout' });
  });

  it('stops a huge table at the memory limit and stays usable', () => {
    expect(call('function F() local t = {} for i = 1, 1e9 do t[i] = { i } end end', UNHURRIED)).toMatchObject(
      {
        ok: false,
        kind: 'memory',
      },
    );
    sandbox.collectGarbage();
    expect(sandbox.memoryUsed).toBeLessThan(MEMORY / 4);
    expect(value('"still here"')).toBe('still here');
  });

  it('stops a huge string at the memory limit', () => {
    expect(
      call('function F() local s = "x" for i = 1, 40 do s = s .. s end return #s end', UNHURRIED),
    ).toMatchObject({
      ok: false,
      kind: 'memory',
    });
    sandbox.collectGarbage();
  });

  it('stops endless recursion', () => {
    const outcome = call(
      'local function f(n) return 1 + f(n + 1) end function F() return f(1) end',
      UNHURRIED,
    );
    expect(outcome.ok).toBe(false);
    expect(value('2')).toBe(2);
  });
});

describe('errors', () => {
  it('reports a syntax error with its line', () => {
    expect(sandbox.compile('function F()\n  return (\nend', 'script')).toEqual({
      ok: false,
      kind: 'compile',
      message: "script:3: unexpected symbol near 'end'",
    });
  });

  it('refuses precompiled chunks', () => {
    expect(sandbox.compile('\x1bLua', 'script')).toMatchObject({ ok: false, kind: 'compile' });
  });

  it('reports a runtime error with its line', () => {
    expect(call('function F()\n  local x = nil\n  return x.field\nend')).toEqual({
      ok: false,
      kind: 'runtime',
      message: "script:3: attempt to index a nil value (local 'x')",
    });
  });

  it('reports an error raised at the top level of the script', () => {
    expect(call('error("broken at load")')).toMatchObject({
      ok: false,
      kind: 'runtime',
      message: 'script:1: broken at load',
    });
  });

  it('reports an error value that is not a string', () => {
    expect(call('function F() error({}) end')).toMatchObject({ message: '(error object is a table value)' });
    expect(call('function F() error(42) end')).toMatchObject({ message: '42' });
  });

  it('reports a missing function or a global of another type', () => {
    expect(call('function G() end')).toEqual({
      ok: false,
      kind: 'missing-function',
      message: 'not found function F',
    });
    expect(call('F = 1')).toEqual({
      ok: false,
      kind: 'missing-function',
      message: 'F is not a function: number',
    });
  });

  it('raises host errors at the calling line', () => {
    expect(call('function F()\n  return require("kube").echo(function() end)\nend')).toMatchObject({
      ok: false,
      message: 'script:2: cannot encode function to JSON',
    });
  });

  it('forgets released scripts', () => {
    const script = compiled('function F() return 1 end');
    sandbox.release(script);
    expect(value('"after release"')).toBe('after release');
  });
});
