import { describe, expect, it } from 'vitest';
import { annotations, type Work } from '@kf/api';
import type { SelfFence } from '../../fence/self-fence.ts';
import { KeyTrigger } from '../key-trigger.ts';
import { applyFenced, armedCondition, type FenceWiring } from './fenced-apply.ts';

const noSignal = new AbortController().signal;

function work(fence: string | undefined, armed?: 'True' | 'False'): Work {
  return {
    metadata: {
      name: 'web-x',
      namespace: 'karmada-es-m1',
      uid: 'u-1',
      annotations: fence === undefined ? {} : { [annotations.fenceAfterSeconds]: fence },
    },
    spec: {},
    ...(armed === undefined
      ? {}
      : {
          status: {
            conditions: [
              { type: 'FenceArmed', status: armed, reason: 'R', message: '', lastTransitionTime: '' },
            ],
          },
        }),
  };
}

/** A self-fence that grants or refuses, and records what it was asked, in order. */
function fakeFence(permit: 'apply' | 'wait' | 'fenced', calls: string[]): FenceWiring {
  const fence = {
    forget: (w: string) => {
      calls.push(`forget ${w}`);
      return Promise.resolve();
    },
    withPermit: async (_e: unknown, apply: () => Promise<void>) => {
      calls.push('permit');
      if (permit === 'apply') await apply();
      return permit === 'fenced'
        ? { kind: 'fenced', fencedAt: '2026-11-26T00:00:00.000Z' }
        : { kind: permit };
    },
  } as unknown as SelfFence;
  return { fence, renewIntervalMs: 1_000, fenced: new KeyTrigger() };
}

function input(w: Work, calls: string[]) {
  return {
    key: 'karmada-es-m1/web-x',
    work: w,
    objects: () => Promise.resolve([]),
    apply: () => {
      calls.push('apply');
      return Promise.resolve([]);
    },
    disarm: () => {
      calls.push('disarm');
      return Promise.resolve();
    },
    signal: noSignal,
  };
}

describe('applyFenced', () => {
  it('applies a fenced Work through the fence and says the fence is armed', async () => {
    const calls: string[] = [];
    const out = await applyFenced(fakeFence('apply', calls), input(work('30'), calls));
    expect(out).toEqual({ kind: 'applied', errors: [], armed: armedCondition(30) });
    expect(calls).toEqual(['permit', 'apply']);
  });

  it('passes on wait and fenced without applying', async () => {
    const calls: string[] = [];
    expect(await applyFenced(fakeFence('wait', calls), input(work('30'), calls))).toEqual({ kind: 'wait' });
    const fenced = await applyFenced(fakeFence('fenced', calls), input(work('30'), calls));
    expect(fenced.kind).toBe('fenced');
    expect(calls).toEqual(['permit', 'permit']);
  });

  it('disarms before forgetting when a Work loses its fence, then applies', async () => {
    const calls: string[] = [];
    const out = await applyFenced(fakeFence('apply', calls), input(work(undefined, 'True'), calls));
    expect(out).toEqual({ kind: 'applied', errors: [] });
    expect(calls).toEqual(['disarm', 'forget karmada-es-m1/web-x', 'apply']);
  });

  it('neither disarms nor says anything of a fence for a Work that never had one', async () => {
    const calls: string[] = [];
    await applyFenced(fakeFence('apply', calls), input(work(undefined), calls));
    await applyFenced(fakeFence('apply', calls), input(work(undefined, 'False'), calls));
    expect(calls.filter((c) => c === 'disarm')).toEqual([]);
  });

  it.each([
    ['an invalid timeout', work('30s'), fakeFence('apply', []), /must be a whole number of seconds/],
    [
      'a timeout shorter than three renew intervals',
      work('5'),
      { ...fakeFence('apply', []), renewIntervalMs: 2_000 },
      /shorter than 3 Lease renew intervals \(6s\)/,
    ],
    ['no self-fence (the heartbeat is off)', work('30'), undefined, /needs the agent heartbeat/],
  ])('refuses, without applying, %s', async (_, w, wiring, message) => {
    const calls: string[] = [];
    const out = await applyFenced(wiring, input(w, calls));
    expect(out.kind).toBe('refused');
    expect(out.kind === 'refused' ? out.message : '').toMatch(message);
    expect(calls).toEqual([]);
  });
});
