import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { AggregatedStatusItem, ResourceHealth } from '@kf/api';
import {
  planUnhealthyEvictions,
  type BindingHealthMemory,
  type UnhealthyTimingConfig,
  type UnhealthyTimingInput,
  type UnhealthyTimingPlan,
} from './unhealthy-timing.ts';

const item = (clusterName: string, health: ResourceHealth): AggregatedStatusItem => ({ clusterName, health });
const config: UnhealthyTimingConfig = { tolerationSeconds: 120, requireHealthyFirst: false };
const strict: UnhealthyTimingConfig = { tolerationSeconds: 120, requireHealthyFirst: true };

const input = (over: Partial<UnhealthyTimingInput>): UnhealthyTimingInput => ({
  boundClusters: ['m1', 'm2'],
  aggregatedStatus: [item('m1', 'Healthy'), item('m2', 'Healthy')],
  evictingClusters: [],
  memory: {},
  nowMs: 1_000_000,
  ...over,
});

describe('planUnhealthyEvictions', () => {
  it.each<[string, Partial<UnhealthyTimingInput>, UnhealthyTimingConfig, UnhealthyTimingPlan]>([
    ['healthy everywhere: nothing remembered, nothing to do', {}, config, { memory: {}, evict: [] }],
    [
      'first sight of Unhealthy starts the timer and asks for a recheck at its end',
      { aggregatedStatus: [item('m1', 'Unhealthy'), item('m2', 'Healthy')] },
      config,
      { memory: { m1: { unhealthySinceMs: 1_000_000 } }, evict: [], recheckInMs: 120_000 },
    ],
    [
      'still unhealthy before the end: recheck for the rest',
      { aggregatedStatus: [item('m1', 'Unhealthy')], memory: { m1: { unhealthySinceMs: 950_000 } } },
      config,
      { memory: { m1: { unhealthySinceMs: 950_000 } }, evict: [], recheckInMs: 70_000 },
    ],
    [
      'unhealthy for exactly tolerationSeconds: evicted',
      { aggregatedStatus: [item('m1', 'Unhealthy')], memory: { m1: { unhealthySinceMs: 880_000 } } },
      config,
      { memory: { m1: { unhealthySinceMs: 880_000 } }, evict: ['m1'] },
    ],
    [
      'tolerationSeconds 0: evicted on first sight',
      { aggregatedStatus: [item('m2', 'Unhealthy')] },
      { ...config, tolerationSeconds: 0 },
      { memory: { m2: { unhealthySinceMs: 1_000_000 } }, evict: ['m2'] },
    ],
    [
      'Healthy stops the timer',
      { memory: { m1: { unhealthySinceMs: 0 } } },
      config,
      { memory: {}, evict: [] },
    ],
    [
      'Unknown stops the timer',
      { aggregatedStatus: [item('m1', 'Unknown')], memory: { m1: { unhealthySinceMs: 0 } } },
      config,
      { memory: {}, evict: [] },
    ],
    [
      'a missing status item counts as Unknown',
      { aggregatedStatus: [item('m2', 'Healthy')], memory: { m1: { unhealthySinceMs: 0 } } },
      config,
      { memory: {}, evict: [] },
    ],
    [
      'a cluster already being evicted is not timed',
      {
        aggregatedStatus: [item('m1', 'Unhealthy')],
        evictingClusters: ['m1'],
        memory: { m1: { unhealthySinceMs: 0 } },
      },
      config,
      { memory: {}, evict: [] },
    ],
    [
      'an unhealthy cluster outside spec.clusters is not timed, and forgotten',
      {
        boundClusters: ['m2'],
        aggregatedStatus: [item('m1', 'Unhealthy'), item('m2', 'Healthy')],
        memory: { m1: { unhealthySinceMs: 0 } },
      },
      config,
      { memory: {}, evict: [] },
    ],
    [
      'several clusters: evictions sorted, recheck at the nearest deadline',
      {
        boundClusters: ['m3', 'm1', 'm2', 'm4'],
        aggregatedStatus: [
          item('m1', 'Unhealthy'),
          item('m2', 'Unhealthy'),
          item('m3', 'Unhealthy'),
          item('m4', 'Unhealthy'),
        ],
        memory: {
          m3: { unhealthySinceMs: 0 },
          m1: { unhealthySinceMs: 10 },
          m4: { unhealthySinceMs: 990_000 },
        },
      },
      config,
      {
        memory: {
          m1: { unhealthySinceMs: 10 },
          m2: { unhealthySinceMs: 1_000_000 },
          m3: { unhealthySinceMs: 0 },
          m4: { unhealthySinceMs: 990_000 },
        },
        evict: ['m1', 'm3'],
        recheckInMs: 110_000,
      },
    ],
    [
      'was healthy before: never seen healthy, not timed',
      { aggregatedStatus: [item('m1', 'Unhealthy'), item('m2', 'Healthy')] },
      strict,
      { memory: { m2: { healthySeen: true } }, evict: [] },
    ],
    [
      'was healthy before: seen healthy, then unhealthy, timed',
      {
        aggregatedStatus: [item('m1', 'Unhealthy')],
        memory: { m1: { healthySeen: true } },
        boundClusters: ['m1'],
      },
      strict,
      { memory: { m1: { healthySeen: true, unhealthySinceMs: 1_000_000 } }, evict: [], recheckInMs: 120_000 },
    ],
    [
      'was healthy before: Unknown keeps the memory of having been healthy',
      {
        aggregatedStatus: [item('m1', 'Unknown')],
        memory: { m1: { healthySeen: true, unhealthySinceMs: 5 } },
        boundClusters: ['m1'],
      },
      strict,
      { memory: { m1: { healthySeen: true } }, evict: [] },
    ],
    [
      'was healthy before: evicted after the toleration like any other',
      {
        aggregatedStatus: [item('m1', 'Unhealthy')],
        memory: { m1: { healthySeen: true, unhealthySinceMs: 0 } },
        boundClusters: ['m1'],
      },
      strict,
      { memory: { m1: { healthySeen: true, unhealthySinceMs: 0 } }, evict: ['m1'] },
    ],
  ])('%s', (_name, over, c, expected) => {
    expect(planUnhealthyEvictions(input(over), c)).toEqual(expected);
  });

  const health = fc.constantFrom<ResourceHealth>('Healthy', 'Unhealthy', 'Unknown');

  it('evicts a cluster exactly when it has been Unhealthy without a break for tolerationSeconds', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(health, fc.integer({ min: 0, max: 60_000 })), { minLength: 1, maxLength: 30 }),
        fc.integer({ min: 0, max: 300 }),
        (steps, tolerationSeconds) => {
          let memory: BindingHealthMemory = {};
          let now = 0;
          let streakStart: number | undefined;
          for (const [h, gap] of steps) {
            now += gap;
            streakStart = h === 'Unhealthy' ? (streakStart ?? now) : undefined;
            const plan = planUnhealthyEvictions(
              {
                boundClusters: ['m1'],
                aggregatedStatus: [item('m1', h)],
                evictingClusters: [],
                memory,
                nowMs: now,
              },
              { tolerationSeconds, requireHealthyFirst: false },
            );
            const due = streakStart !== undefined && now - streakStart >= tolerationSeconds * 1000;
            expect(plan.evict).toEqual(due ? ['m1'] : []);
            if (plan.recheckInMs !== undefined) {
              expect(plan.recheckInMs).toBeGreaterThan(0);
              expect(now + plan.recheckInMs).toBe((streakStart ?? 0) + tolerationSeconds * 1000);
            }
            memory = plan.memory;
          }
        },
      ),
    );
  });

  it('never evicts a cluster that was never seen Healthy when that is required', () => {
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom<ResourceHealth>('Unhealthy', 'Unknown'), { maxLength: 20 }),
        (steps) => {
          let memory: BindingHealthMemory = {};
          steps.forEach((h, i) => {
            const plan = planUnhealthyEvictions(
              {
                boundClusters: ['m1'],
                aggregatedStatus: [item('m1', h)],
                evictingClusters: [],
                memory,
                nowMs: i * 1e6,
              },
              { tolerationSeconds: 0, requireHealthyFirst: true },
            );
            expect(plan.evict).toEqual([]);
            memory = plan.memory;
          });
        },
      ),
    );
  });
});
