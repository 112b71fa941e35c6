import { once } from 'node:events';
import { connect, createServer, type AddressInfo, type Socket } from 'node:net';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { TurnBudget } from './turn-budget.ts';

/** A budget on a clock the test moves by hand. */
function budget(sliceMs: number): { turns: TurnBudget; advance: (ms: number) => void } {
  let nowMs = 1_000;
  return {
    turns: new TurnBudget({ sliceMs, now: () => nowMs }),
    advance: (ms) => {
      nowMs += ms;
    },
  };
}

describe('TurnBudget', () => {
  it('lets work run on while the slice lasts, then hands every caller the same pause', async () => {
    const { turns, advance } = budget(10);
    expect(turns.pause()).toBeUndefined(); // starts the slice
    advance(9);
    expect(turns.pause()).toBeUndefined();
    advance(1);
    const first = turns.pause();
    expect(first).toBeInstanceOf(Promise);
    expect(turns.pause()).toBe(first);
    await first;
    // A new turn: the next caller starts a new slice.
    expect(turns.pause()).toBeUndefined();
    advance(9);
    expect(turns.pause()).toBeUndefined();
  });

  it('starts a slice at the first call of a turn, not at the end of the last one', async () => {
    const { turns, advance } = budget(10);
    expect(turns.pause()).toBeUndefined();
    await nextTurn();
    await nextTurn();
    advance(60_000); // idle for a minute
    expect(turns.pause()).toBeUndefined();
    advance(10);
    expect(turns.pause()).toBeInstanceOf(Promise);
  });

  it('between two pauses lets the event loop read a socket', async () => {
    const server = createServer();
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const accepted = once(server, 'connection') as Promise<[Socket]>;
    const client = connect((server.address() as AddressInfo).port, '127.0.0.1');
    // Both ends ready before the busy work: the server's end is the one that must read.
    const [[serverEnd]] = await Promise.all([accepted, once(client, 'connect')]);
    let read = false;
    serverEnd.once('data', () => {
      read = true;
    });
    try {
      const turns = new TurnBudget({ sliceMs: 1 });
      expect(turns.pause()).toBeUndefined();
      client.write('x');
      // Two slices of busy work, as chains of cache-only reconciles are, each ended by a pause.
      for (let slice = 0; slice < 2; slice++) {
        const until = performance.now() + 2;
        while (performance.now() < until) {
          // busy
        }
        if (slice === 0) expect(read).toBe(false); // nothing is read while a chain runs
        await turns.pause();
        expect(turns.pause()).toBeUndefined(); // the next slice
      }
      expect(read).toBe(true);
    } finally {
      client.destroy();
      server.close();
    }
  });

  it('with a zero slice pauses every call after the first of a turn', () => {
    const { turns } = budget(0);
    expect(turns.pause()).toBeUndefined();
    expect(turns.pause()).toBeInstanceOf(Promise);
  });

  it('rejects a slice that is not a non-negative number', () => {
    expect(() => new TurnBudget({ sliceMs: -1 })).toThrow(/non-negative number of milliseconds, got -1/);
    expect(() => new TurnBudget({ sliceMs: Number.NaN })).toThrow(/got NaN/);
  });
});
