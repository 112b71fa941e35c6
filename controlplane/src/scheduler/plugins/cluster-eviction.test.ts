import { describe, expect, it } from 'vitest';
import { attemptFor, binding, cluster } from '../test-builders.ts';
import { clusterEviction } from './cluster-eviction.ts';

describe('ClusterEviction', () => {
  it.each<[string, readonly string[], Record<string, number>, boolean]>([
    ['no eviction tasks', [], {}, true],
    ['a task for another cluster', ['other'], {}, true],
    ['a task from this cluster', ['m1'], {}, false],
    ['even when the cluster is still listed', ['m1'], { m1: 3 }, false],
  ])('%s', (_name, evicting, current, ok) => {
    const fit = clusterEviction.filter(attemptFor(binding({ evicting, clusters: current })), cluster('m1'));
    expect(fit).toEqual(
      ok ? { ok: true } : { ok: false, reason: 'cluster(s) is in the process of eviction' },
    );
  });
});
