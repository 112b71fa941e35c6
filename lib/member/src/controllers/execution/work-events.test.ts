import { describe, expect, it } from 'vitest';
import type { Work } from '@kf/api';
import { syncEvent } from './work-events.ts';

const work = { metadata: { namespace: 'karmada-es-member1', name: 'nginx-687f7fb96f' } } as Work;

describe('syncEvent', () => {
  it.each([
    [
      'all manifests applied',
      [],
      {
        type: 'Normal',
        reason: 'SyncSucceed',
        message: 'Sync work(karmada-es-member1/nginx-687f7fb96f) to cluster(member1) successful.',
      },
    ],
    [
      'some failed',
      ['a is not managed', 'b: Forbidden'],
      {
        type: 'Warning',
        reason: 'SyncFailed',
        message:
          'Failed to sync work(karmada-es-member1/nginx-687f7fb96f) to cluster(member1), err: a is not managed, b: Forbidden',
      },
    ],
  ] as const)('%s', (_name, errors, expected) => {
    expect(syncEvent(work, 'member1', errors)).toEqual(expected);
  });
});
