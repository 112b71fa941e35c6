import { describe, expect, it } from 'vitest';
import { isSameJson, jsonEqual, sameJsonKey } from './json-equal.ts';

describe('jsonEqual', () => {
  it.each([
    [{ a: 1, b: [1, { c: 2 }] }, { b: [1, { c: 2 }], a: 1 }, true],
    [{ a: 1, b: undefined }, { a: 1 }, true],
    [[1, 2], [2, 1], false],
    [{ a: 1 }, { a: '1' }, false],
    [{ a: null }, {}, false],
    [[], {}, false],
    ['x', 'x', true],
  ])('jsonEqual(%j, %j) is %s', (a, b, equal) => {
    expect(jsonEqual(a, b)).toBe(equal);
  });
});

describe('isSameJson', () => {
  it.each<[unknown, unknown, boolean]>([
    [{ a: 1 }, { a: 1 }, true],
    [{ a: 1 }, { a: 2 }, false],
    [{ a: [] }, {}, true],
    [{ a: null }, {}, true],
    [{ a: {} }, { a: undefined }, true],
    [[1, 2], [2, 1], false],
    [{ a: [{ b: 'x' }] }, { a: [{ b: 'x', c: [] }] }, true],
    ['1', 1, false],
  ])('%j vs %j → %s', (a, b, same) => {
    expect(isSameJson(a, b)).toBe(same);
  });
});

describe('sameJsonKey', () => {
  const pairs: readonly [unknown, unknown][] = [
    [{ a: 1 }, { a: 1 }],
    [{ a: 1 }, { a: 2 }],
    [{ a: [] }, {}],
    [{ a: null }, {}],
    [{ a: {} }, { a: undefined }],
    [
      [1, 2],
      [2, 1],
    ],
    [{ a: [{ b: 'x' }] }, { a: [{ b: 'x', c: [] }] }],
    ['1', 1],
    [
      { b: 1, a: { d: [1, null], c: 'x' } },
      { a: { c: 'x', d: [1, null] }, b: 1 },
    ],
    [
      [null, 1],
      [[], 1],
    ],
    [[null, 1], [1]],
    [{ a: [1] }, { a: 1 }],
    [{ a: true }, { a: 'true' }],
    [{ 'a,b': 1 }, { a: 1, b: 1 }],
    [{ spec: { replicas: 0 } }, { spec: {} }],
    [{ s: '' }, {}],
  ];

  it.each(pairs)('agrees with isSameJson: %j vs %j', (a, b) => {
    expect(sameJsonKey(a) === sameJsonKey(b)).toBe(isSameJson(a, b));
  });

  it('writes keys sorted whatever order they came in, and positions of empty list elements', () => {
    const text = '{"a":{"c":3,"d":[2,null,"x"]},"b":1,"e":true}';
    expect(sameJsonKey({ a: { c: 3, d: [2, [], 'x'] }, b: 1, e: true })).toBe(text);
    expect(sameJsonKey({ e: true, b: 1, a: { d: [2, null, 'x'], c: 3 } })).toBe(text);
    expect(sameJsonKey({ a: { c: 3, d: [2, {}, 'x'] }, e: true, b: 1, z: [] })).toBe(text);
    expect(sameJsonKey({ 'k"q': '\n' })).toBe('{"k\\"q":"\\n"}');
  });

  it('is looser than isSameJson only for objects of empty values, at any depth', () => {
    expect(isSameJson({ a: { b: null } }, {})).toBe(false);
    expect(sameJsonKey({ a: { b: null } })).toBe(sameJsonKey({}));
  });
});
