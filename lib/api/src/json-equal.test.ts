import { describe, expect, it } from 'vitest';
import { isSameJson, jsonEqual } from './json-equal.ts';

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
