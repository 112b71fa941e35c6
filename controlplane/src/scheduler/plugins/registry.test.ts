import { describe, expect, it } from 'vitest';
import { defaultPlugins } from './registry.ts';

describe('defaultPlugins', () => {
  it('registers the filters in upstream order, then ours', () => {
    expect(defaultPlugins.filters.map((p) => p.name)).toEqual([
      'APIEnablement',
      'TaintToleration',
      'ClusterAffinity',
      'SpreadConstraint',
      'ClusterEviction',
      'EvictionHistory',
    ]);
  });

  it('registers the scorers', () => {
    expect(defaultPlugins.scorers.map((p) => p.name)).toEqual(['ClusterLocality', 'ClusterAffinity']);
  });
});
