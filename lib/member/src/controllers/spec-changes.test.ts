import { expect, it } from 'vitest';
import { isSpecChange } from './spec-changes.ts';

const m = (generation: number, extra: Record<string, unknown> = {}) => ({
  metadata: { generation, ...extra },
});

it.each([
  ['a new object', m(1), undefined, true],
  ['a status write', m(1), m(1), false],
  ['a spec change', m(2), m(1), true],
  ['a deletion', m(1, { deletionTimestamp: 't' }), m(1), true],
  ['a finalizer change', m(1, { finalizers: ['x'] }), m(1), true],
])('%s → %s', (_name, obj, old, expected) => {
  expect(isSpecChange(obj, old)).toBe(expected);
});
