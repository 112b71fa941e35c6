import { describe, expect, it } from 'vitest';
import { KubeError, type KubeErrorCode } from './errors.ts';
import { eventRetryDelayMs } from './events.ts';

const failure = (code: KubeErrorCode) => new KubeError(code, code);
const opts = { maxTries: 4, flushing: false };

describe('eventRetryDelayMs', () => {
  it('tries a write that may pass again, 1 s, 2 s and 4 s later, then gives up', () => {
    for (const code of ['Timeout', 'Network', 'Unavailable', 'TooManyRequests'] as const) {
      const delays = [1, 2, 3, 4].map((tries) => eventRetryDelayMs(failure(code), tries, opts));
      expect(delays, code).toEqual([1000, 2000, 4000, undefined]);
    }
  });

  it('waits no longer than 4 s between tries when more are allowed', () => {
    const delays = [1, 2, 3, 4, 5].map((tries) =>
      eventRetryDelayMs(failure('Timeout'), tries, { ...opts, maxTries: 6 }),
    );
    expect(delays).toEqual([1000, 2000, 4000, 4000, 4000]);
  });

  it('never tries again an event the API server refused, nor any while flushing', () => {
    for (const code of ['Invalid', 'Forbidden', 'NotFound', 'Unauthorized'] as const) {
      expect(eventRetryDelayMs(failure(code), 1, opts), code).toBeUndefined();
    }
    expect(eventRetryDelayMs(failure('Timeout'), 1, { ...opts, flushing: true })).toBeUndefined();
    expect(eventRetryDelayMs(failure('Timeout'), 1, { ...opts, maxTries: 1 })).toBeUndefined();
  });
});
