import { describe, expect, it } from 'vitest';
import { bindingNameFor, workNameFor } from './names.ts';

describe('bindingNameFor', () => {
  it.each([
    ['Deployment', 'nginx', 'nginx-deployment'],
    ['ClusterRole', 'system:aggregate', 'system.aggregate-clusterrole'],
    ['ConfigMap', 'App-Config', 'app-config-configmap'],
  ])('%s %s → %s', (kind, name, expected) => {
    expect(bindingNameFor(kind, name)).toBe(expected);
  });
});

describe('workNameFor', () => {
  it('names Deployment default/nginx as upstream does', () => {
    expect(workNameFor('Deployment', 'nginx', 'default')).toBe('nginx-687f7fb96f');
  });

  it('depends on namespace and kind', () => {
    const names = new Set([
      workNameFor('Deployment', 'nginx', 'default'),
      workNameFor('Deployment', 'nginx', 'other'),
      workNameFor('Service', 'nginx', 'default'),
      workNameFor('ClusterRole', 'nginx', undefined),
    ]);
    expect(names.size).toBe(4);
  });

  it('uses only the safe alphabet after the name', () => {
    expect(workNameFor('ClusterRole', 'a:b', '')).toMatch(/^a\.b-[bcdfghjklmnpqrstvwxz2456789]+$/);
  });
});
