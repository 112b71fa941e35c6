import { describe, expect, it } from 'vitest';
import type { Cluster } from '@kf/api';
import { formatClusterStatus, shortAge, table } from './status-table.ts';

const NOW = Date.parse('2026-01-01T12:00:00Z');

describe('shortAge', () => {
  it.each([
    [NOW - 5_000, '5s'],
    [NOW - 119_000, '119s'],
    [NOW - 600_000, '10m'],
    [NOW - 3 * 3_600_000, '3h'],
    [NOW - 4 * 86_400_000, '4d'],
    [NOW + 5_000, '0s'],
    [undefined, '<unknown>'],
  ])('%s → %s', (from, age) => {
    expect(shortAge(from, NOW)).toBe(age);
  });
});

it('aligns columns', () => {
  expect(
    table(
      ['A', 'BB'],
      [
        ['long', 'x'],
        ['s', 'yy'],
      ],
    ),
  ).toBe('A      BB\nlong   x\ns      yy');
});

it('prints conditions, taints and remedy actions', () => {
  const cluster: Cluster = {
    metadata: { name: 'member1' },
    spec: {
      syncMode: 'Pull',
      taints: [
        { key: 'cluster.karmada.io/not-ready', effect: 'NoSchedule', timeAdded: '2026-01-01T11:59:00Z' },
      ],
    },
    status: {
      kubernetesVersion: 'v1.36.3',
      conditions: [
        {
          type: 'Ready',
          status: 'False',
          reason: 'ClusterNotReachable',
          message: 'cluster is not reachable',
          lastTransitionTime: '2026-01-01T11:59:30Z',
        },
        { type: 'Maintenance', status: 'True' },
      ],
      remedyActions: ['TrafficControl'],
    },
  };
  expect(formatClusterStatus(cluster, NOW)).toBe(
    [
      'Cluster: member1   Mode: Pull   Version: v1.36.3',
      '',
      'Conditions:',
      '  TYPE          STATUS   REASON                AGE         MESSAGE',
      '  Ready         False    ClusterNotReachable   30s         cluster is not reachable',
      '  Maintenance   True                           <unknown>',
      '',
      'Taints:',
      '  KEY                            VALUE   EFFECT       AGE',
      '  cluster.karmada.io/not-ready           NoSchedule   60s',
      '',
      'Remedy actions:',
      '  TrafficControl',
      '',
    ].join('\n'),
  );
});

it('says <none> for empty sections', () => {
  const text = formatClusterStatus({ metadata: { name: 'm' }, spec: { syncMode: 'Push' } }, NOW);
  expect(text).toContain('Conditions:\n  <none>');
  expect(text).toContain('Taints:\n  <none>');
  expect(text).toContain('Remedy actions:\n  <none>');
  expect(text).toContain('Version: <none>');
});
