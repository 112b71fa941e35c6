import { afterAll, describe, expect, it } from 'vitest';
import { labels, type ResourceBinding } from '@kf/api';
import {
  CLONESET,
  cloneSet,
  cloneSetScripts,
  failingScripts,
  interpreterWith,
} from '../interpreter/test-scripts.ts';
import { clusterWorks, revisedTemplate } from './cluster-works.ts';

const KEY = 'default/shop-cloneset';
const binding = (spec: Partial<ResourceBinding['spec']> = {}): ResourceBinding => ({
  metadata: {
    name: 'shop-cloneset',
    namespace: 'default',
    labels: { [labels.resourceBindingPermanentId]: 'rb-1' },
  },
  spec: {
    resource: { ...CLONESET, namespace: 'default', name: 'shop' },
    replicas: 4,
    clusters: [
      { name: 'member1', replicas: 3 },
      { name: 'member2', replicas: 1 },
    ],
    ...spec,
  },
});
const manifestReplicas = (w: { spec: { workload?: { manifests?: readonly object[] } } }): unknown =>
  (w.spec.workload?.manifests?.[0] as { spec?: { replicas?: number } }).spec?.replicas;

describe('clusterWorks', async () => {
  const interpreter = await interpreterWith(cloneSetScripts);
  const broken = await interpreterWith(failingScripts());
  afterAll(() => {
    interpreter.close();
    broken.close();
  });
  const input = { key: KEY, b: binding(), template: cloneSet(4), statefulFailoverInjection: false };

  it("gives each cluster's Work the template revised to that cluster's replicas", () => {
    const out = clusterWorks(input, interpreter);
    expect(out.revise.kind).toBe('succeeded');
    expect(out.works.map((w) => [w.cluster, manifestReplicas(w.work)])).toEqual([
      ['member1', 3],
      ['member2', 1],
    ]);
  });

  it('leaves the template as it is without a script, and for a binding that is no workload', () => {
    expect(clusterWorks(input, undefined).works.map((w) => manifestReplicas(w.work))).toEqual([4, 4]);
    const notWorkload: ResourceBinding = { ...binding(), spec: { resource: binding().spec.resource } };
    expect(revisedTemplate(notWorkload, cloneSet(4), { name: 'member1', replicas: 3 }, interpreter)).toEqual({
      kind: 'none',
    });
  });

  it('writes no Work where the script fails and names the clusters', () => {
    const out = clusterWorks(input, broken);
    expect(out.works).toEqual([]);
    expect(out.revise.kind).toBe('failed');
    expect(out.revise.kind === 'failed' && out.revise.message).toMatch(
      /^cluster member1: .*no luck.*; cluster member2: /,
    );
  });
});
