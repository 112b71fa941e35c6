import { describe, expect, it } from 'vitest';
import { definedFields, withoutKeys } from './defined-fields.ts';

describe('definedFields', () => {
  it('drops undefined values and keeps falsy ones', () => {
    expect(definedFields({ a: undefined, b: 0, c: false, d: '', e: null })).toEqual({
      b: 0,
      c: false,
      d: '',
      e: null,
    });
    expect(Object.keys(definedFields({ a: undefined }))).toEqual([]);
  });
});

describe('withoutKeys', () => {
  it('drops the listed keys only', () => {
    expect(withoutKeys({ a: 1, b: 2, c: 3 }, ['a', 'c'])).toEqual({ b: 2 });
  });
});
