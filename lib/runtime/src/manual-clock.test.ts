import { describe, expect, it } from 'vitest';
import { ManualClock } from './manual-clock.ts';

describe('ManualClock', () => {
  it('moves wall and monotonic time together, only when advanced', async () => {
    const clock = new ManualClock(1_000);
    expect([clock.now(), clock.monotonic()]).toEqual([1_000, 0]);
    await clock.advance(250);
    expect([clock.now(), clock.monotonic()]).toEqual([1_250, 250]);
  });

  it('wakes sleepers in deadline order at their own time', async () => {
    const clock = new ManualClock();
    const woke: string[] = [];
    const at = (name: string) => () => woke.push(`${name}@${clock.monotonic()}`);
    void clock.sleep(300).then(at('c'));
    void clock.sleep(100).then(at('a'));
    void clock.sleep(200).then(at('b'));
    await clock.advance(250);
    expect(woke).toEqual(['a@100', 'b@200']);
    expect(clock.pendingSleeps()).toBe(1);
    await clock.advance(50);
    expect(woke).toEqual(['a@100', 'b@200', 'c@300']);
  });

  it('also fires sleeps started by woken code within the same advance', async () => {
    const clock = new ManualClock();
    const ticks: number[] = [];
    const loop = async (): Promise<void> => {
      for (let i = 0; i < 3; i++) {
        await clock.sleep(100);
        ticks.push(clock.monotonic());
      }
    };
    const done = loop();
    await clock.advance(1_000);
    await done;
    expect(ticks).toEqual([100, 200, 300]);
    expect(clock.monotonic()).toBe(1_000);
  });

  it('rejects sleeps on abort and forgets them', async () => {
    const clock = new ManualClock();
    const stop = new AbortController();
    const sleeping = clock.sleep(100, stop.signal);
    stop.abort(new Error('stop'));
    await expect(sleeping).rejects.toThrow('stop');
    expect(clock.pendingSleeps()).toBe(0);
    await expect(clock.sleep(1, stop.signal)).rejects.toThrow('stop');
  });

  it('resolves a zero sleep on the next advance', async () => {
    const clock = new ManualClock();
    let woke = false;
    void clock.sleep(0).then(() => (woke = true));
    await clock.advance(0);
    expect(woke).toBe(true);
  });
});
