import { describe, expect, it } from 'vitest';
import { WrittenWorks } from './written-works.ts';

describe('WrittenWorks', () => {
  it('holds a written Work until the cache shows a copy other than the one planned from', () => {
    const w = new WrittenWorks({ holdMs: 10_000 });
    w.wrote('ns/a', '100', 0);
    expect(w.heldForMs('ns/a', 1_000)).toBe(9_000);
    // The same copy again (a relist, another binding event): still held.
    w.observed('ns/a', '100');
    expect(w.heldForMs('ns/a', 2_000)).toBe(8_000);
    // The write (or anything after it) arrives: planned from the cache again.
    w.observed('ns/a', '101');
    expect(w.heldForMs('ns/a', 2_000)).toBe(0);
    expect(w.size).toBe(0);
  });

  it('holds a created Work until the cache has it', () => {
    const w = new WrittenWorks();
    w.wrote('ns/a', undefined, 0);
    w.observed('ns/a', undefined);
    expect(w.heldForMs('ns/a', 1)).toBeGreaterThan(0);
    w.observed('ns/a', '5');
    expect(w.heldForMs('ns/a', 1)).toBe(0);
  });

  it('lets go of a Work whose deletion the cache shows', () => {
    const w = new WrittenWorks();
    w.wrote('ns/a', '7', 0);
    w.observed('ns/a', undefined);
    expect(w.heldForMs('ns/a', 1)).toBe(0);
  });

  it('never holds past its deadline, even when the watch delivers nothing', () => {
    const w = new WrittenWorks({ holdMs: 500 });
    w.wrote('ns/a', '1', 1_000);
    expect(w.heldForMs('ns/a', 1_499)).toBe(1);
    expect(w.heldForMs('ns/a', 1_500)).toBe(0);
    expect(w.size).toBe(0);
  });

  it('keeps Works apart and holds nothing it did not write', () => {
    const w = new WrittenWorks();
    w.wrote('ns/a', '1', 0);
    w.observed('ns/b', '2');
    expect(w.heldForMs('ns/b', 0)).toBe(0);
    expect(w.heldForMs('ns/a', 0)).toBeGreaterThan(0);
  });
});
