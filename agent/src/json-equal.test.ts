import { expect, it } from 'vitest';
import { jsonEqual } from './json-equal.ts';

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
