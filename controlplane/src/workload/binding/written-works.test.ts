import { describe, expect, it } from 'vitest';
import { WrittenWorks } from './written-works.ts';

describe('WrittenWorks', () => {
  it('holds a written Work until the cache shows a copy other than the one planned from', () => {
    const w = new WrittenWorks({ holdMs: 10_000 });
    w.wrote('ns/a', '100', '101', 0);
    expect(w.heldForMs('ns/a', 1_000)).toBe(9_000);
    // The same copy again (a relist, another binding event): still held.
    w.observed('ns/a', '100');
    expect(w.heldForMs('ns/a', 2_000)).toBe(8_000);
    // The write (or anything after it) arrives: planned from the cache again.
    w.observed('ns/a', '101');
    expect(w.heldForMs('ns/a', 2_000)).toBe(0);
  });

  it('lets go of a Work at any copy newer than the one planned from, not only its own write', () => {
    const w = new WrittenWorks();
    w.wrote('ns/a', '100', '101', 0);
    w.observed('ns/a', '102');
    expect(w.heldForMs('ns/a', 1)).toBe(0);
    expect(w.size).toBe(0);
  });

  it('holds a created Work until the cache has it', () => {
    const w = new WrittenWorks();
    w.wrote('ns/a', undefined, '5', 0);
    w.observed('ns/a', undefined);
    expect(w.heldForMs('ns/a', 1)).toBeGreaterThan(0);
    w.observed('ns/a', '5');
    expect(w.heldForMs('ns/a', 1)).toBe(0);
  });

  it('lets go of a Work whose deletion the cache shows', () => {
    const w = new WrittenWorks();
    w.wrote('ns/a', '7', '8', 0);
    w.observed('ns/a', undefined);
    expect(w.heldForMs('ns/a', 1)).toBe(0);
  });

  it('never holds past its deadline, even when the watch delivers nothing', () => {
    const w = new WrittenWorks({ holdMs: 500 });
    w.wrote('ns/a', '1', '2', 1_000);
    expect(w.heldForMs('ns/a', 1_499)).toBe(1);
    expect(w.heldForMs('ns/a', 1_500)).toBe(0);
    expect(w.size).toBe(0);
  });

  it('keeps Works apart and holds nothing it did not write', () => {
    const w = new WrittenWorks();
    w.wrote('ns/a', '1', '2', 0);
    w.observed('ns/b', '2');
    expect(w.heldForMs('ns/b', 0)).toBe(0);
    expect(w.heldForMs('ns/a', 0)).toBeGreaterThan(0);
  });

  it('takes the event of its own write for an echo, whichever of observed and isEcho runs first', () => {
    for (const observedFirst of [true, false]) {
      const w = new WrittenWorks();
      w.wrote('ns/a', '100', '101', 0);
      if (observedFirst) w.observed('ns/a', '101');
      expect(w.isEcho({ key: 'ns/a', resourceVersion: '101' })).toBe(true);
      if (!observedFirst) w.observed('ns/a', '101');
      expect(w.heldForMs('ns/a', 1)).toBe(0);
      expect(w.size).toBe(0);
    }
  });

  it('lets the echo wake the binding once a reconcile found the Work held back', () => {
    const w = new WrittenWorks();
    w.wrote('ns/a', '100', '101', 0);
    expect(w.heldForMs('ns/a', 1)).toBeGreaterThan(0);
    w.observed('ns/a', '101');
    expect(w.isEcho({ key: 'ns/a', resourceVersion: '101' })).toBe(false);
    expect(w.size).toBe(0);
  });

  it('takes no other copy for an echo: the planned-from one, a later one, another Work, a write with no version', () => {
    const w = new WrittenWorks();
    w.wrote('ns/a', '100', '101', 0);
    expect(w.isEcho({ key: 'ns/a', resourceVersion: '100' })).toBe(false);
    expect(w.isEcho({ key: 'ns/b', resourceVersion: '101' })).toBe(false);
    expect(w.isEcho({ key: 'ns/a', resourceVersion: '102' })).toBe(false);
    w.wrote('ns/c', '1', undefined, 0);
    expect(w.isEcho({ key: 'ns/c', resourceVersion: undefined })).toBe(false);
  });

  it('starts afresh beyond its bound, which only costs a wake', () => {
    const w = new WrittenWorks({ maxWorks: 2 });
    w.wrote('ns/a', '1', '2', 0);
    w.wrote('ns/b', '1', '2', 0);
    w.wrote('ns/a', '2', '3', 0); // the same Work again: no growth
    expect(w.size).toBe(2);
    w.wrote('ns/c', '1', '2', 0);
    expect(w.size).toBe(1);
    expect(w.isEcho({ key: 'ns/a', resourceVersion: '3' })).toBe(false);
    expect(w.isEcho({ key: 'ns/c', resourceVersion: '2' })).toBe(true);
  });
});
