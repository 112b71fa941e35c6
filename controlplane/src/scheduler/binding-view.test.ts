import { annotations, type ReplicaSchedulingStrategy } from '@kf/api';
import { describe, expect, it } from 'vitest';
import {
  blockPredecessorMs,
  isWorkload,
  strategyOf,
  toBindingView,
  toPlacementView,
  type StrategyView,
} from './binding-view.ts';
import { formatEvictionHistory } from './eviction-history-annotation.ts';
import { binding, bindingObject } from './test-builders.ts';

describe('strategyOf', () => {
  it.each<[string, ReplicaSchedulingStrategy | undefined, StrategyView]>([
    ['no replicaScheduling', undefined, { kind: 'Duplicated' }],
    ['Duplicated', { replicaSchedulingType: 'Duplicated' }, { kind: 'Duplicated' }],
    [
      'Divided + Aggregated',
      { replicaSchedulingType: 'Divided', replicaDivisionPreference: 'Aggregated' },
      { kind: 'Aggregated' },
    ],
    ['type defaults to Divided', { replicaDivisionPreference: 'Aggregated' }, { kind: 'Aggregated' }],
    [
      'Weighted + dynamicWeight',
      {
        replicaSchedulingType: 'Divided',
        replicaDivisionPreference: 'Weighted',
        weightPreference: { dynamicWeight: 'AvailableReplicas' },
      },
      { kind: 'DynamicWeight' },
    ],
    [
      'dynamicWeight ignores static weights',
      {
        replicaDivisionPreference: 'Weighted',
        weightPreference: {
          dynamicWeight: 'AvailableReplicas',
          staticWeightList: [{ targetCluster: {}, weight: 2 }],
        },
      },
      { kind: 'DynamicWeight' },
    ],
    [
      'Weighted without preference',
      { replicaDivisionPreference: 'Weighted' },
      { kind: 'StaticWeight', rules: undefined },
    ],
    [
      'Weighted with an empty preference',
      { replicaDivisionPreference: 'Weighted', weightPreference: {} },
      { kind: 'StaticWeight', rules: [] },
    ],
    [
      'Weighted with static weights',
      {
        replicaDivisionPreference: 'Weighted',
        weightPreference: { staticWeightList: [{ targetCluster: {}, weight: 2 }] },
      },
      { kind: 'StaticWeight', rules: [{ targetCluster: {}, weight: 2 }] },
    ],
    ['Divided without preference', { replicaSchedulingType: 'Divided' }, { kind: 'Unsupported' }],
  ])('%s', (_name, s, expected) => {
    expect(strategyOf(s)).toEqual(expected);
  });
});

describe('toPlacementView', () => {
  it('applies the admission defaults to spread constraints', () => {
    const p = toPlacementView({
      spreadConstraints: [
        { maxGroups: 2 },
        { spreadByField: 'region', minGroups: 0 },
        { spreadByLabel: 'team', minGroups: 3, maxGroups: 4 },
      ],
    });
    expect(p.spreadConstraints).toEqual([
      { field: 'cluster', label: undefined, minGroups: 1, maxGroups: 2 },
      { field: 'region', label: undefined, minGroups: 1, maxGroups: 0 },
      { field: undefined, label: 'team', minGroups: 3, maxGroups: 4 },
    ]);
  });

  it('keeps affinity terms in order with their overflow affinities', () => {
    const p = toPlacementView({
      clusterAffinities: [
        {
          affinityName: 'primary',
          clusterNames: ['a'],
          overflowAffinities: [{ affinityName: 'burst', clusterNames: ['b'] }],
        },
        { affinityName: 'backup', clusterNames: ['c'] },
      ],
      clusterTolerations: [{ operator: 'Exists' }],
    });
    expect(p.affinityTerms.map((t) => [t.name, t.affinity.clusterNames, t.overflow.length])).toEqual([
      ['primary', ['a'], 1],
      ['backup', ['c'], 0],
    ]);
    expect(p.affinity).toBeUndefined();
    expect(p.tolerations).toEqual([{ operator: 'Exists' }]);
  });
});

describe('toBindingView', () => {
  it('reads demand, current placement and eviction state', () => {
    const b = binding({
      replicas: 5,
      uid: 'u',
      requests: { cpu: '250m', memory: '1Gi', bogus: 'x' },
      clusters: [
        { name: 'a', replicas: 2 },
        { name: 'b', replicas: 1 },
        { name: 'a', replicas: 1 },
        { name: 'c' },
      ],
      evicting: ['x', 'y'],
      health: { a: 'Healthy', x: 'Unhealthy' },
      history: [
        { clusterName: 'x', creationTimestamp: '2026-01-01T00:00:00Z' },
        { clusterName: 'z', creationTimestamp: 'not a time' },
      ],
      observedAffinityName: 'primary',
    });
    expect(b.apiKey).toBe('apps/v1/Deployment');
    expect(b.uid).toBe('u');
    expect(b.replicas).toBe(5);
    expect(b.hasReplicaRequirements).toBe(true);
    expect(Object.fromEntries(b.requestMilli)).toEqual({ cpu: 250, memory: 1024 ** 3 * 1000 });
    expect(Object.fromEntries(b.assigned)).toEqual({ a: 3, b: 1, c: 0 });
    expect([...b.evicting]).toEqual(['x', 'y']);
    expect(b.evictionTasks.map((t) => [t.fromCluster, t.reason])).toEqual([
      ['x', 'TaintUntolerated'],
      ['y', 'TaintUntolerated'],
    ]);
    expect(Object.fromEntries(b.health)).toEqual({ a: 'Healthy', x: 'Unhealthy' });
    expect(b.evictionHistory).toEqual([{ cluster: 'x', evictedAtMs: Date.parse('2026-01-01T00:00:00Z') }]);
    expect(b.observedAffinityName).toBe('primary');
    expect(b.placement).toBeDefined();
  });

  it('has no placement view when the binding has no placement', () => {
    expect(binding({ placement: null }).placement).toBeUndefined();
  });

  it.each<[string, number | undefined, number]>([
    ['default', undefined, 600_000],
    ['explicit', 30, 30_000],
    ['zero blocks for good', 0, Number.POSITIVE_INFINITY],
  ])('blockPredecessorSeconds: %s', (_name, seconds, ms) => {
    expect(
      binding(seconds === undefined ? {} : { blockPredecessorSeconds: seconds }).blockPredecessorMs,
    ).toBe(ms);
  });

  it.each<[string, string | undefined, number | undefined, number]>([
    // [name, annotation, spec field, ms]
    ['the annotation wins over the spec field', '45', 30, 45_000],
    ['the annotation alone', '45', undefined, 45_000],
    ['an annotation of 0 blocks for good', '0', 30, Number.POSITIVE_INFINITY],
    ['the annotation, blanks around it trimmed', ' 45 ', undefined, 45_000],
    ['the spec field without the annotation', undefined, 30, 30_000],
    ['the default without either', undefined, undefined, 600_000],
    ['an unreadable annotation is ignored: the spec field', 'ten', 30, 30_000],
    ['a negative annotation is ignored: the spec field', '-5', 30, 30_000],
    ['a fractional annotation is ignored: the default', '1.5', undefined, 600_000],
    ['an empty annotation is ignored: the default', '', undefined, 600_000],
  ])('block annotation: %s', (_name, value, seconds, ms) => {
    const b = binding({
      ...(value === undefined ? {} : { annotations: { [annotations.blockPredecessorSeconds]: value } }),
      ...(seconds === undefined ? {} : { blockPredecessorSeconds: seconds }),
    });
    expect(b.blockPredecessorMs).toBe(ms);
  });

  it('blockPredecessorMs reads the annotation without any application failover section', () => {
    expect(blockPredecessorMs({ [annotations.blockPredecessorSeconds]: '5' }, undefined)).toBe(5_000);
    expect(blockPredecessorMs(undefined, undefined)).toBe(600_000);
  });

  it('reads the eviction history annotation and spec.evictionHistory, each entry once', () => {
    const at = (clusterName: string, creationTimestamp: string) => ({ clusterName, creationTimestamp });
    const b = binding({
      annotations: {
        [annotations.evictionHistory]: formatEvictionHistory([
          at('a', '2026-01-01T00:00:00Z'),
          at('b', 'not a time'),
        ]),
      },
      history: [at('a', '2026-01-01T00:00:00Z'), at('c', '2026-01-01T00:01:00Z')],
    });
    expect(b.evictionHistory).toEqual([
      { cluster: 'a', evictedAtMs: Date.parse('2026-01-01T00:00:00Z') },
      { cluster: 'c', evictedAtMs: Date.parse('2026-01-01T00:01:00Z') },
    ]);
  });

  it('reads an unreadable eviction history annotation as no entries', () => {
    const b = binding({
      annotations: { [annotations.evictionHistory]: '[{"clusterName":' },
      history: [{ clusterName: 'c', creationTimestamp: '2026-01-01T00:01:00Z' }],
    });
    expect(b.evictionHistory).toEqual([{ cluster: 'c', evictedAtMs: Date.parse('2026-01-01T00:01:00Z') }]);
    expect(binding({ annotations: { [annotations.evictionHistory]: 'x' } }).evictionHistory).toEqual([]);
  });

  it.each<[string, string | undefined, string | undefined, boolean]>([
    ['trigger after last schedule', '2026-01-02T00:00:00Z', '2026-01-01T00:00:00Z', true],
    ['trigger before last schedule', '2026-01-01T00:00:00Z', '2026-01-02T00:00:00Z', false],
    ['equal times', '2026-01-01T00:00:00Z', '2026-01-01T00:00:00Z', false],
    ['never scheduled', '2026-01-01T00:00:00Z', undefined, false],
    ['no trigger', undefined, '2026-01-01T00:00:00Z', false],
  ])('fresh: %s → %s', (_name, triggered, last, fresh) => {
    const b = toBindingView(
      bindingObject({
        ...(triggered === undefined ? {} : { rescheduleTriggeredAt: triggered }),
        ...(last === undefined ? {} : { lastScheduledTime: last }),
      }),
    );
    expect(b.fresh).toBe(fresh);
  });

  it.each<[string, Parameters<typeof binding>[0], boolean]>([
    ['replicas', { replicas: 1 }, true],
    ['replica requirements only', { requests: {} }, true],
    ['components only', { components: 2 }, true],
    ['nothing', {}, false],
  ])('isWorkload: %s → %s', (_name, o, expected) => {
    expect(isWorkload(binding(o))).toBe(expected);
  });
});
