import { describe, expect, it } from 'vitest';
import type { BackoffPolicy } from './backoff.ts';
import { TerminalError } from './errors.ts';
import { ManualClock } from './manual-clock.ts';
import { retryWithBackoff, type RetryInfo } from './retry.ts';

const policy: BackoffPolicy = { initialMs: 100, maxMs: 400, factor: 2, jitter: 0.2 };
const poll = { timeout: 5_000, interval: 5 };

describe('retryWithBackoff', () => {
  it('returns the first success without waiting', async () => {
    const clock = new ManualClock();
    await expect(retryWithBackoff(() => Promise.resolve('ok'), { clock })).resolves.toBe('ok');
    expect(clock.pendingSleeps()).toBe(0);
  });

  it('retries transient failures with capped backoff, reporting each retry', async () => {
    const clock = new ManualClock();
    const retries: RetryInfo[] = [];
    const attempts: number[] = [];
    const result = retryWithBackoff(
      (attempt) => {
        attempts.push(attempt);
        return attempt < 4 ? Promise.reject(new Error(`down ${attempt}`)) : Promise.resolve(attempt);
      },
      { clock, policy, random: () => 0.5, onRetry: (info) => retries.push(info) },
    );
    for (const delayMs of [100, 200, 400, 400]) {
      await expect.poll(() => clock.pendingSleeps(), poll).toBe(1);
      await clock.advance(delayMs);
    }
    await expect(result).resolves.toBe(4);
    expect(attempts).toEqual([0, 1, 2, 3, 4]);
    expect(retries.map((r) => [r.attempt, r.delayMs])).toEqual([
      [1, 100],
      [2, 200],
      [3, 400],
      [4, 400],
    ]);
    expect((retries[0]?.err as Error).message).toBe('down 0');
  });

  it('gives up at once on an error that is not retryable', async () => {
    let calls = 0;
    const terminal = new TerminalError('bad spec');
    await expect(
      retryWithBackoff(() => {
        calls++;
        return Promise.reject(terminal);
      }),
    ).rejects.toBe(terminal);
    expect(calls).toBe(1);
    const custom = retryWithBackoff(() => Promise.reject(new Error('403')), {
      isRetryable: (err) => !(err instanceof Error && err.message === '403'),
    });
    await expect(custom).rejects.toThrow('403');
  });

  it('rejects with the last error once the attempts are used up', async () => {
    const clock = new ManualClock();
    let calls = 0;
    const result = retryWithBackoff(
      () => {
        calls++;
        return Promise.reject(new Error(`failure ${calls}`));
      },
      { clock, policy, maxAttempts: 2, random: () => 0.5 },
    );
    const settled = result.catch((err: unknown) => err);
    await expect.poll(() => clock.pendingSleeps(), poll).toBe(1);
    await clock.advance(100);
    expect(((await settled) as Error).message).toBe('failure 2');
    expect(calls).toBe(2);
  });

  it('stops waiting when aborted, rejecting with the reason', async () => {
    const clock = new ManualClock();
    const stop = new AbortController();
    const result = retryWithBackoff(() => Promise.reject(new Error('down')), { clock, signal: stop.signal });
    const settled = result.catch((err: unknown) => err);
    await expect.poll(() => clock.pendingSleeps(), poll).toBe(1);
    stop.abort(new Error('shutting down'));
    expect(((await settled) as Error).message).toBe('shutting down');
    expect(clock.pendingSleeps()).toBe(0);
  });

  it('does not call fn when already aborted', async () => {
    const stop = new AbortController();
    stop.abort(new Error('stopped'));
    let called = false;
    await expect(
      retryWithBackoff(
        () => {
          called = true;
          return Promise.resolve(1);
        },
        { signal: stop.signal },
      ),
    ).rejects.toThrow('stopped');
    expect(called).toBe(false);
  });
});
