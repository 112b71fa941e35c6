import { describe, expect, it } from 'vitest';
import type { ClusterFailoverBehavior } from '@kf/api';
import { decidePurgeMode, type TaintEvictionPurgeMode } from './purge-mode.ts';

/** `purgeMode: ""` as a Go client writes an unset field; the type does not allow it. */
const emptyPurgeMode = { purgeMode: '' } as unknown as ClusterFailoverBehavior;

describe('decidePurgeMode', () => {
  it.each<[string, ClusterFailoverBehavior | undefined, TaintEvictionPurgeMode, TaintEvictionPurgeMode]>([
    ['no failover.cluster: the flag (default)', undefined, 'Gracefully', 'Gracefully'],
    ['no failover.cluster: the flag (Directly)', undefined, 'Directly', 'Directly'],
    ['failover.cluster without purgeMode: Gracefully, whatever the flag', {}, 'Directly', 'Gracefully'],
    ['failover.cluster with Directly', { purgeMode: 'Directly' }, 'Gracefully', 'Directly'],
    ['failover.cluster with Gracefully', { purgeMode: 'Gracefully' }, 'Directly', 'Gracefully'],
    [
      'failover.cluster with Immediately, the deprecated name of Directly',
      { purgeMode: 'Immediately' },
      'Gracefully',
      'Directly',
    ],
    [
      'failover.cluster with Graciously, the deprecated name of Gracefully',
      { purgeMode: 'Graciously' },
      'Directly',
      'Gracefully',
    ],
    [
      'failover.cluster with an empty purgeMode: unset, so Gracefully',
      emptyPurgeMode,
      'Directly',
      'Gracefully',
    ],
  ])('%s', (_name, failover, flag, expected) => {
    expect(decidePurgeMode(failover, flag)).toBe(expected);
  });
});
