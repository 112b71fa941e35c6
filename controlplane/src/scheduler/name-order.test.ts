import { describe, expect, it } from 'vitest';
import { compareNames, fnv1a32, nameOrderFor } from './name-order.ts';

describe('fnv1a32', () => {
  it.each([
    ['', 0x811c9dc5],
    ['a', 0xe40c292c],
    ['foobar', 0xbf9cf968],
  ])('hashes %j like the FNV-1a test vectors', (text, hash) => {
    expect(fnv1a32(text)).toBe(hash);
  });
});

describe('nameOrderFor', () => {
  it.each([
    ['empty UID (even though its hash is odd)', '', 'ascending'],
    ['even hash', 'uid-2', 'ascending'],
    ['odd hash', 'uid-1', 'descending'],
  ] as const)('%s → %s', (_name, uid, order) => {
    expect(nameOrderFor(uid)).toBe(order);
  });
});

describe('compareNames', () => {
  it('orders byte-wise, not by locale', () => {
    expect(['b', 'B', 'a', 'a-1', 'a1'].sort(compareNames)).toEqual(['B', 'a', 'a-1', 'a1', 'b']);
    expect(compareNames('x', 'x')).toBe(0);
  });
});
