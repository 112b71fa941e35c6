import { describe, expect, it } from 'vitest';
import { attemptFor, binding, cluster } from '../test-builders.ts';
import { clusterLocality } from './cluster-locality.ts';

describe('ClusterLocality', () => {
  it.each<[string, Record<string, number>, number]>([
    ['not scheduled anywhere', {}, 0],
    ['scheduled elsewhere', { m2: 3 }, 0],
    ['scheduled here', { m1: 3, m2: 1 }, 100],
    ['listed here without replicas', { m1: 0 }, 100],
  ])('%s → %d', (_name, current, score) => {
    expect(clusterLocality.score(attemptFor(binding({ clusters: current })), cluster('m1'))).toBe(score);
  });
});
