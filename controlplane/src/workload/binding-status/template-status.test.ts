import { afterAll, describe, expect, it } from 'vitest';
import type { AggregatedStatusItem } from '@kf/api';
import { customization } from '@kf/interpreter/testing';
import { cloneSet, cloneSetScripts, failingScripts, interpreterWith } from '../interpreter/test-scripts.ts';
import type { ResourceTemplate } from '../template.ts';
import { aggregatesStatus, templateStatus } from './template-status.ts';

const items: AggregatedStatusItem[] = [
  { clusterName: 'member1', applied: true, status: { replicas: 2 } },
  { clusterName: 'member2', applied: true, status: { replicas: 1 } },
];
const deployment: ResourceTemplate = {
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'web', namespace: 'default', generation: 1 },
  spec: { replicas: 3 },
};

describe('templateStatus', async () => {
  const interpreter = await interpreterWith(cloneSetScripts);
  const broken = await interpreterWith(failingScripts());
  const noStatus = await interpreterWith(
    customization(
      'bare',
      { apiVersion: 'apps/v1', kind: 'Deployment' },
      {
        AggregateStatus: 'function AggregateStatus(obj, items)\n  obj.status = nil\n  return obj\nend',
      },
    ),
  );
  afterAll(() => {
    for (const i of [interpreter, broken, noStatus]) i.close();
  });

  it("is the status the kind's AggregateStatus script returns", () => {
    expect(templateStatus(cloneSet(3), items, interpreter)).toEqual({
      kind: 'status',
      status: { replicas: 3, members: 2 },
      scripted: true,
    });
    expect(aggregatesStatus('apps.kruise.io/v1alpha1', 'CloneSet', interpreter)).toBe(true);
  });

  it('gives the script nil when there are no items, as upstream does', () => {
    expect(templateStatus(cloneSet(3), [], interpreter)).toMatchObject({
      status: { replicas: 0, members: 0 },
    });
  });

  it('lets a script for Deployments win over the built-in fold, and write no status', () => {
    expect(templateStatus(deployment, items, noStatus)).toEqual({
      kind: 'status',
      status: undefined,
      scripted: true,
    });
    expect(templateStatus(deployment, items, undefined)).toEqual({
      kind: 'status',
      status: { replicas: 3 },
      scripted: false,
    });
  });

  it('is none for other kinds without a script, and failed when the script fails', () => {
    expect(templateStatus(cloneSet(3), items, undefined)).toEqual({ kind: 'none' });
    expect(aggregatesStatus('apps.kruise.io/v1alpha1', 'CloneSet', undefined)).toBe(false);
    const out = templateStatus(cloneSet(3), items, broken);
    expect(out.kind === 'failed' && out.message).toContain('no luck');
  });
});
