import { describe, expect, it } from 'vitest';
import { KubeError } from '@kf/kube';
import { TerminalError } from '@kf/runtime';
import { registrationRetryable } from './registration-retry.ts';

class Refused extends Error {}

function judge(steps: readonly (readonly [unknown, number])[]): boolean[] {
  let now = 0;
  const retryable = registrationRetryable(
    30_000,
    () => now,
    (err) => err instanceof Refused,
  );
  return steps.map(([err, atMs]) => {
    now = atMs;
    return retryable(err);
  });
}

const forbidden = new KubeError('Forbidden', 'clusters is forbidden: User cannot list resource');
const unavailable = new KubeError('Unavailable', 'connection refused');

describe('registrationRetryable', () => {
  it.each<[string, (readonly [unknown, number])[], boolean[]]>([
    [
      'an unreachable server is retried however long',
      [
        [unavailable, 0],
        [unavailable, 600_000],
      ],
      [true, true],
    ],
    [
      '403s are retried while the server may still be loading its authorization caches',
      [
        [forbidden, 1_000],
        [forbidden, 30_999],
      ],
      [true, true],
    ],
    [
      'a row of 403s longer than the window gives up',
      [
        [forbidden, 1_000],
        [forbidden, 31_000],
      ],
      [true, false],
    ],
    [
      'another failure between 403s starts the window again',
      [
        [forbidden, 0],
        [unavailable, 20_000],
        [forbidden, 25_000],
        [forbidden, 50_000],
      ],
      [true, true, true, true],
    ],
    ['a refusal (name or id taken) is final', [[new Refused('taken'), 0]], [false]],
    ['a terminal error is final', [[new TerminalError('no uid'), 0]], [false]],
    [
      'an invalid object is final',
      [[new KubeError('Invalid', 'spec.apiEndpoint: Invalid value'), 0]],
      [false],
    ],
  ])('%s', (_name, steps, expected) => {
    expect(judge(steps)).toEqual(expected);
  });
});
