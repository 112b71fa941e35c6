import { describe, expect, it } from 'vitest';
import { KubeError } from './errors.ts';
import { retryOnConflict, updateWithRetry } from './retry-on-conflict.ts';

/** A clock whose sleeps return at once and are remembered. */
function recordingClock(): {
  now: () => number;
  monotonic: () => number;
  sleep: (ms: number) => Promise<void>;
  slept: number[];
} {
  const slept: number[] = [];
  return {
    now: () => 0,
    monotonic: () => 0,
    sleep: (ms: number) => {
      slept.push(ms);
      return Promise.resolve();
    },
    slept,
  };
}

const conflict = (): KubeError => new KubeError('Conflict', 'the object has been modified', { status: 409 });

describe('retryOnConflict', () => {
  it('returns the first success', async () => {
    const clock = recordingClock();
    await expect(retryOnConflict(() => Promise.resolve('ok'), { clock })).resolves.toBe('ok');
    expect(clock.slept).toEqual([]);
  });

  it('retries conflicts with growing delays', async () => {
    const clock = recordingClock();
    let calls = 0;
    const result = await retryOnConflict(
      (attempt) => {
        calls++;
        return attempt < 3 ? Promise.reject(conflict()) : Promise.resolve(attempt);
      },
      { clock, random: () => 0.5 },
    );
    expect(result).toBe(3);
    expect(calls).toBe(4);
    expect(clock.slept).toEqual([10, 20, 40]);
  });

  it('gives up after the attempts and rethrows the last conflict', async () => {
    const clock = recordingClock();
    let calls = 0;
    const run = retryOnConflict(
      () => {
        calls++;
        return Promise.reject(conflict());
      },
      { clock, attempts: 3 },
    );
    await expect(run).rejects.toMatchObject({ code: 'Conflict' });
    expect(calls).toBe(3);
  });

  it('does not retry other errors', async () => {
    const clock = recordingClock();
    let calls = 0;
    const run = retryOnConflict(
      () => {
        calls++;
        return Promise.reject(new KubeError('Forbidden', 'no'));
      },
      { clock },
    );
    await expect(run).rejects.toMatchObject({ code: 'Forbidden' });
    expect(calls).toBe(1);
  });
});

describe('updateWithRetry', () => {
  interface Obj {
    readonly rv: number;
    readonly value: number;
  }

  it('re-reads after a conflict and writes the mutation of the fresh object', async () => {
    let server: Obj = { rv: 1, value: 1 };
    const writes: Obj[] = [];
    const result = await updateWithRetry<Obj>(
      {
        read: () => Promise.resolve(server),
        mutate: (cur) => ({ ...cur, value: cur.value * 10 }),
        write: (next) => {
          writes.push(next);
          if (next.rv !== server.rv) return Promise.reject(conflict());
          if (writes.length === 1) {
            server = { rv: 2, value: 2 }; // someone else wrote first
            return Promise.reject(conflict());
          }
          server = { rv: server.rv + 1, value: next.value };
          return Promise.resolve(server);
        },
      },
      { clock: recordingClock() },
    );
    expect(writes.map((w) => w.value)).toEqual([10, 20]);
    expect(result).toEqual({ rv: 3, value: 20 });
  });

  it('writes nothing when the mutation is not needed', async () => {
    let wrote = false;
    const current = { rv: 1, value: 1 };
    const result = await updateWithRetry(
      {
        read: () => Promise.resolve(current),
        mutate: () => undefined,
        write: (n) => {
          wrote = true;
          return Promise.resolve(n);
        },
      },
      { clock: recordingClock() },
    );
    expect(wrote).toBe(false);
    expect(result).toBe(current);
  });
});
