import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LuaSandbox, type CallOutcome, type LuaResult } from './sandbox.ts';
import { MAX_DEPTH } from './push.ts';

const host = {
  kube: {},
  print: () => undefined,
  time: () => 0,
  date: () => '',
};

let sandbox: LuaSandbox;
beforeAll(async () => {
  sandbox = await LuaSandbox.create(32 * 1024 * 1024, host);
});
afterAll(() => {
  sandbox.close();
});

function call(source: string, args: readonly unknown[] = [], nresults = 1): CallOutcome {
  const compiled = sandbox.compile(source, 'script');
  if (!compiled.ok) throw new Error(compiled.message);
  return sandbox.call(compiled.script, { entry: 'F', args, nresults, timeoutMs: 1000 });
}

function results(source: string, args: readonly unknown[] = [], nresults = 1): readonly LuaResult[] {
  const outcome = call(source, args, nresults);
  if (!outcome.ok) throw new Error(outcome.message);
  return outcome.results;
}

/** What a script sees of `value`: `describe(x)` in Lua, returned as a string. */
function seen(value: unknown, expression: string): unknown {
  return results(`function F(x) return ${expression} end`, [value])[0]?.json;
}

describe('JSON to Lua', () => {
  it('passes strings, booleans and nested objects as they are', () => {
    const object = { s: 'héllo ✓', empty: '', t: true, f: false, nested: { list: ['a', 'b'] } };
    expect(results('function F(x) return x end', [object])[0]?.json).toEqual(object);
  });

  it('makes whole numbers Lua integers and others floats', () => {
    // Concatenation shows the difference: an integer has no fractional part, a float has one.
    expect(seen(3, 'x .. ""')).toBe('3');
    expect(seen(-7, 'x .. ""')).toBe('-7');
    expect(seen(2.5, 'x .. ""')).toBe('2.5');
    expect(seen(2 ** 60, 'x .. ""')).toBe('1.1529215046068e+18');
    expect(seen(7, 'x // 2')).toBe(3);
    expect(seen(7, 'x / 2')).toBe(3.5);
  });

  it('drops null fields, so they read as nil', () => {
    expect(seen({ a: null, b: 1 }, 'x.a == nil and x.b')).toBe(1);
  });

  it('skips null array items, moving the later ones up', () => {
    expect(seen(['a', null, 'c'], '#x .. ":" .. x[1] .. x[2]')).toBe('2:ac');
  });

  it('gives arrays indices from 1 and objects string keys', () => {
    expect(seen([10, 20], 'x[1] + x[2]')).toBe(30);
    expect(seen({ '1': 'one' }, 'x["1"]')).toBe('one');
  });

  it('refuses values JSON cannot hold, and input nested too deep', () => {
    const failed = (value: unknown): CallOutcome => call('function F(x) return x end', [value]);
    expect(failed(() => 1)).toMatchObject({
      ok: false,
      kind: 'input',
      message: 'cannot pass a function to Lua',
    });
    let deep: unknown = 'leaf';
    for (let i = 0; i < MAX_DEPTH + 1; i++) deep = [deep];
    expect(failed(deep)).toMatchObject({ ok: false, kind: 'input' });
  });
});

describe('Lua to JSON', () => {
  const json = (expression: string): LuaResult | undefined =>
    results(`function F() return ${expression} end`)[0];

  it('writes nil as null, and numbers, strings and booleans as they are', () => {
    expect(json('nil')).toEqual({ type: 'nil', json: null });
    expect(json('1.5')?.json).toBe(1.5);
    expect(json('"x"')?.json).toBe('x');
    expect(json('false')?.json).toBe(false);
  });

  it('writes a whole float as a plain number', () => {
    expect(json('4 / 2')?.json).toBe(2);
  });

  it('writes an empty table as an empty list', () => {
    expect(json('{}')?.json).toEqual([]);
  });

  it('writes a table keyed 1..n as a list, whatever order the keys were set in', () => {
    expect(json('{ "a", "b" }')?.json).toEqual(['a', 'b']);
    expect(json('(function() local t = {} t[2] = "b" t[1] = "a" return t end)()')?.json).toEqual(['a', 'b']);
  });

  it('writes a table keyed by strings as an object, including __proto__', () => {
    const object = json('{ a = 1, ["__proto__"] = 2 }')?.json as Record<string, unknown>;
    expect(Object.getPrototypeOf(object)).toBe(Object.prototype);
    expect(Object.entries(object)).toEqual(
      expect.arrayContaining([
        ['a', 1],
        ['__proto__', 2],
      ]),
    );
  });

  it.each([
    ['a sparse list', '{ [1] = 1, [3] = 3 }', 'cannot encode sparse array'],
    ['a fractional key', '{ [1.5] = 1 }', 'cannot encode sparse array'],
    ['a list starting at 0', '{ [0] = 1 }', 'cannot encode sparse array'],
    ['mixed keys', '{ 1, a = 2 }', 'cannot encode mixed or invalid key types'],
    ['a boolean key', '{ [true] = 1 }', 'cannot encode mixed or invalid key types'],
    ['a function', 'function() end', 'cannot encode function to JSON'],
    ['a function inside a table', '{ f = print }', 'cannot encode function to JSON'],
    ['NaN', '{ x = 0/0 }', 'cannot encode NaN to JSON'],
    ['infinity', 'math.huge', 'cannot encode Infinity to JSON'],
  ])('refuses %s', (_name, expression, message) => {
    expect(json(expression)?.notJson).toBe(message);
  });

  it('refuses a table placed twice, not only a cycle', () => {
    const shared = json('(function() local t = { 1 } return { a = t, b = t } end)()');
    expect(shared?.notJson).toMatch(/^cannot encode recursively nested tables to JSON/);
    const cycle = json('(function() local t = {} t.self = t return t end)()');
    expect(cycle?.notJson).toMatch(/^cannot encode recursively nested tables to JSON/);
  });

  it('reads each returned value on its own, so two results may share a table', () => {
    const [a, b] = results('function F() local t = { 1 } return t, t end', [], 2);
    expect([a?.json, b?.json]).toEqual([[1], [1]]);
  });

  it('refuses a result nested too deep', () => {
    const deep = json(
      `(function() local t = {} for i = 1, ${MAX_DEPTH + 1} do t = { t } end return t end)()`,
    );
    expect(deep?.notJson).toMatch(/nested deeper than/);
  });
});
