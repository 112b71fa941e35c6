import { describe, expect, it } from 'vitest';
import { setCondition, type ResourceBinding, type Work } from '@kf/api';
import { neverReported, workChanged, workWakes } from './controller.ts';

const work = (extra: Partial<Work> = {}): Work => ({
  apiVersion: 'work.karmada.io/v1alpha1',
  kind: 'Work',
  metadata: { name: 'w', namespace: 'karmada-es-m1', resourceVersion: '1' },
  spec: { workload: { manifests: [{ kind: 'Deployment' }] } },
  ...extra,
});
const applied = {
  conditions: setCondition(
    undefined,
    { type: 'Applied', status: 'True', reason: 'AppliedSuccessful', message: '' },
    0,
  ),
};

describe('what wakes binding-status of a Work', () => {
  it('a new Work does not, unless it already carries a status (seen again after a relist)', () => {
    expect(workWakes('ADDED', work())).toBe(false);
    expect(workWakes('ADDED', work({ status: applied } as Partial<Work>))).toBe(true);
    expect(workWakes('MODIFIED', work())).toBe(true);
    expect(workWakes('DELETED', work())).toBe(true);
  });

  it('a change of its status or of whether it is being deleted does; one of its manifests does not', () => {
    const old = work();
    expect(workChanged(work({ status: applied } as Partial<Work>), old)).toBe(true);
    expect(
      workChanged(work({ metadata: { ...old.metadata, deletionTimestamp: '2026-01-01T00:00:00Z' } }), old),
    ).toBe(true);
    expect(
      workChanged(
        work({ spec: { workload: { manifests: [{ kind: 'Deployment', spec: { replicas: 2 } }] } } }),
        old,
      ),
    ).toBe(false);
    expect(workChanged(work({ metadata: { ...old.metadata, resourceVersion: '2' } }), old)).toBe(false);
  });
});

describe('neverReported', () => {
  const binding = (status?: ResourceBinding['status']): ResourceBinding =>
    ({
      metadata: { name: 'b', namespace: 'ns' },
      spec: { resource: {} },
      ...(status ? { status } : {}),
    }) as ResourceBinding;

  it('holds for a binding without aggregated status or FullyApplied, whatever else its status says', () => {
    expect(neverReported(binding())).toBe(true);
    expect(neverReported(binding({ lastScheduledTime: '2026-01-01T00:00:00Z', conditions: [] }))).toBe(true);
  });

  it('not once an item or FullyApplied was written: an empty list must then be written back', () => {
    expect(neverReported(binding({ aggregatedStatus: [{ clusterName: 'm1', applied: false }] }))).toBe(false);
    expect(
      neverReported(
        binding({
          conditions: setCondition(
            undefined,
            { type: 'FullyApplied', status: 'False', reason: 'FullyAppliedFailed', message: '' },
            0,
          ),
        }),
      ),
    ).toBe(false);
  });
});
