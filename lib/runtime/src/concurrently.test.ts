import { describe, expect, it } from 'vitest';
import { mapConcurrently } from './concurrently.ts';

/** A promise the test opens when it chooses. */
function gate(): { readonly promise: Promise<undefined>; readonly open: () => void } {
  let open = (): void => undefined;
  const promise = new Promise<undefined>((resolve) => {
    open = () => {
      resolve(undefined);
    };
  });
  return { promise, open };
}

/** Lets every pending promise callback run. */
async function settle(): Promise<void> {
  await new Promise((r) => setImmediate(r));
}

describe('mapConcurrently', () => {
  it('resolves to the results in the items order, whatever order the calls finish in', async () => {
    const gates = [gate(), gate(), gate()];
    const running = mapConcurrently(['a', 'b', 'c'], 3, async (item, i) => {
      await gates[i]?.promise;
      return `${item}${i}`;
    });
    for (const i of [2, 0, 1]) gates[i]?.open();
    expect(await running).toEqual(['a0', 'b1', 'c2']);
  });

  it('never has more than `limit` calls in flight, and keeps that many busy', async () => {
    let inFlight = 0;
    let most = 0;
    const gates = Array.from({ length: 7 }, gate);
    const started: number[] = [];
    const running = mapConcurrently([0, 1, 2, 3, 4, 5, 6], 3, async (n) => {
      started.push(n);
      inFlight++;
      most = Math.max(most, inFlight);
      await gates[n]?.promise;
      inFlight--;
      return n * 2;
    });
    await settle();
    expect(started).toEqual([0, 1, 2]);
    gates[1]?.open();
    await settle();
    expect(started).toEqual([0, 1, 2, 3]); // a freed lane takes the next item at once
    for (const g of gates) g.open();
    expect(await running).toEqual([0, 2, 4, 6, 8, 10, 12]);
    expect(most).toBe(3);
  });

  it('calls nothing for no items', async () => {
    let calls = 0;
    expect(await mapConcurrently([], 4, () => Promise.resolve(++calls))).toEqual([]);
    expect(calls).toBe(0);
  });

  it('rejects with the first failure once the calls started have ended, starting no new one', async () => {
    const slow = gate();
    const calls: number[] = [];
    let slowEnded = false;
    let settled = false;
    const running = mapConcurrently([1, 2, 3, 4], 2, async (n) => {
      calls.push(n);
      if (n !== 1) throw new Error(`${n} failed`);
      await slow.promise;
      slowEnded = true;
      return n;
    });
    void running.catch(() => undefined).finally(() => (settled = true));
    await settle();
    expect(settled).toBe(false); // call 1 still running
    slow.open();
    await expect(running).rejects.toThrow('2 failed');
    expect(slowEnded).toBe(true);
    expect(calls).toEqual([1, 2]);
  });

  it.each([0, -1, 1.5, Number.NaN])('rejects a limit of %s', async (limit) => {
    await expect(mapConcurrently([1], limit, (n) => Promise.resolve(n))).rejects.toThrow(
      /concurrency limit must be a positive integer/,
    );
  });
});
