import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { EvictionPacer } from './pacer.ts';

const pacing = { ratePerSecond: 2, burst: 2 };

function pacer(): { p: EvictionPacer; depth: () => number } {
  let depth = 0;
  const p = new EvictionPacer(pacing, 0, (d) => {
    depth = d;
  });
  return { p, depth: () => depth };
}

describe('EvictionPacer', () => {
  it('lets the burst through at once, then one key per token', () => {
    const { p } = pacer();
    expect(p.request('a', 0)).toEqual({ ok: true });
    expect(p.request('b', 0)).toEqual({ ok: true });
    expect(p.request('c', 0)).toEqual({ ok: false, waitMs: 500 });
    expect(p.request('c', 500)).toEqual({ ok: true });
  });

  it('tells each waiting key when its own turn comes, not merely the next token', () => {
    const { p } = pacer();
    p.request('a', 0);
    p.request('b', 0);
    expect(p.request('c', 0)).toEqual({ ok: false, waitMs: 500 });
    expect(p.request('d', 0)).toEqual({ ok: false, waitMs: 1_000 });
    expect(p.request('e', 250)).toEqual({ ok: false, waitMs: 1_250 }); // 2.5 tokens short at 250 ms
    expect(p.request('d', 600)).toEqual({ ok: false, waitMs: 400 }); // c has not taken its token yet
    expect(p.request('c', 600)).toEqual({ ok: true });
    expect(p.request('d', 1_000)).toEqual({ ok: true });
    expect(p.request('e', 1_500)).toEqual({ ok: true });
  });

  // With a burst of 1 a key coming back a fraction of a ms after its token (wait times are whole
  // ms) loses that fraction to the full bucket, and the next key may be told to look 1 ms later.
  it('every key of a queue that comes back when told finds its token then (burst ≥ 2)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 60 }),
        fc.record({
          ratePerSecond: fc.integer({ min: 1, max: 100 }),
          burst: fc.integer({ min: 2, max: 20 }),
        }),
        (n, p) => {
          const q = new EvictionPacer(p, 0, () => undefined);
          const wakes: { key: string; atMs: number }[] = [];
          for (let i = 0; i < n; i++) {
            const key = `k${String(i).padStart(3, '0')}`;
            const turn = q.request(key, 0);
            if (!turn.ok) wakes.push({ key, atMs: turn.waitMs });
          }
          wakes.sort((a, b) => a.atMs - b.atMs || (a.key < b.key ? -1 : 1));
          for (const w of wakes) expect(q.request(w.key, w.atMs), w.key).toEqual({ ok: true });
        },
      ),
    );
  });

  it('keeps a token for an older waiting key rather than giving it to a newer one', () => {
    const { p } = pacer();
    p.request('a', 0);
    p.request('b', 0);
    expect(p.request('old', 100).ok).toBe(false); // waits since 100
    expect(p.request('new', 600).ok).toBe(false); // the token of 500 ms belongs to "old"
    expect(p.request('old', 600)).toEqual({ ok: true });
    expect(p.request('new', 1_000)).toEqual({ ok: true });
  });

  it('forgets keys that no longer wait, so they block nobody', () => {
    const { p, depth } = pacer();
    p.request('a', 0);
    p.request('b', 0);
    p.hold('gone', 0);
    expect(depth()).toBe(1);
    p.release('gone');
    expect(depth()).toBe(0);
    expect(p.request('c', 500)).toEqual({ ok: true });
  });

  it('says only the first time that a key is held', () => {
    const { p } = pacer();
    expect(p.hold('k', 0)).toBe(true);
    expect(p.hold('k', 10)).toBe(false);
    p.release('k');
    expect(p.hold('k', 20)).toBe(true);
  });

  it('counts held and waiting keys as the queue depth', () => {
    const { p, depth } = pacer();
    p.hold('paused', 0);
    p.request('a', 0);
    expect(depth()).toBe(1);
  });
});
