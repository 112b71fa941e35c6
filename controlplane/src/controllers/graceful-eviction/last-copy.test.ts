import { describe, expect, it } from 'vitest';
import type { Condition } from '@kf/api';
import { LAST_COPY_KEPT, describeKeptCopy, planLastCopyCondition } from './last-copy.ts';

const T0 = Date.parse('2026-11-20T10:00:00Z');
const scheduled: Condition = {
  type: 'Scheduled',
  status: 'False',
  reason: 'NoClusterFit',
  message: '0/2 clusters are available.',
  lastTransitionTime: '2026-11-20T09:50:00Z',
};
const m1 = { cluster: 'm1', deadlineMs: Date.parse('2026-11-20T09:58:00Z') };
const m3 = { cluster: 'm3', deadlineMs: Date.parse('2026-11-20T09:59:30Z') };

describe('planLastCopyCondition', () => {
  it('adds the condition beside the others and reports the kept copy', () => {
    const plan = planLastCopyCondition([scheduled], [m1], T0);
    expect(plan?.conditions).toEqual([
      scheduled,
      {
        type: LAST_COPY_KEPT,
        status: 'True',
        reason: 'NoHealthyReplacement',
        message:
          'Graceful eviction timed out with no healthy copy elsewhere; copies kept on: m1 (timed out 2026-11-20T09:58:00Z).',
        lastTransitionTime: '2026-11-20T10:00:00Z',
      },
    ]);
    expect(plan?.report).toEqual([m1]);
  });

  it('writes nothing while the condition already says so', () => {
    const once = planLastCopyCondition([scheduled], [m1], T0);
    expect(planLastCopyCondition(once?.conditions, [m1], T0 + 60_000)).toBeUndefined();
  });

  it('names every kept copy by cluster name, keeping its transition time when one joins', () => {
    const once = planLastCopyCondition(undefined, [m1], T0);
    const twice = planLastCopyCondition(once?.conditions, [m3, m1], T0 + 60_000);
    expect(twice?.conditions[0]).toMatchObject({
      message:
        'Graceful eviction timed out with no healthy copy elsewhere; copies kept on: m1 (timed out 2026-11-20T09:58:00Z), m3 (timed out 2026-11-20T09:59:30Z).',
      lastTransitionTime: '2026-11-20T10:00:00Z',
    });
    expect(twice?.report).toEqual([m1, m3]);
  });

  it('removes the condition once no copy is kept, reporting nothing', () => {
    const once = planLastCopyCondition([scheduled], [m1], T0);
    expect(planLastCopyCondition(once?.conditions, [], T0)).toEqual({ conditions: [scheduled], report: [] });
  });

  it('has nothing to do without the condition and without kept copies', () => {
    expect(planLastCopyCondition([scheduled], [], T0)).toBeUndefined();
    expect(planLastCopyCondition(undefined, [], T0)).toBeUndefined();
  });
});

describe('describeKeptCopy', () => {
  it('says when it timed out and what ends the wait', () => {
    expect(describeKeptCopy(m1)).toBe(
      'The graceful eviction from cluster m1 timed out at 2026-11-20T09:58:00Z, but no other cluster runs a healthy copy of the workload: the copy on m1 is kept until one does, or until m1 can take the workload again.',
    );
  });
});
