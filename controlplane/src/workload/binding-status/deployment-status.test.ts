import { describe, expect, it } from 'vitest';
import type { AggregatedStatusItem } from '@kf/api';
import type { ResourceTemplate } from '../template.ts';
import { aggregateDeploymentStatus } from './deployment-status.ts';

const template = (generation: number, observed?: number): ResourceTemplate => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'web', namespace: 'default', generation },
  ...(observed === undefined ? {} : { status: { observedGeneration: observed } }),
});
const item = (
  cluster: string,
  n: number,
  gens: { observed?: number; generation?: number; template?: number } = {},
): AggregatedStatusItem => ({
  clusterName: cluster,
  applied: true,
  health: 'Healthy',
  status: {
    replicas: n,
    readyReplicas: n,
    updatedReplicas: n,
    availableReplicas: n,
    observedGeneration: gens.observed ?? 1,
    generation: gens.generation ?? 1,
    resourceTemplateGeneration: gens.template ?? 2,
  },
});

describe('aggregateDeploymentStatus', () => {
  it('sums the replica counts and observes the template generation', () => {
    expect(aggregateDeploymentStatus(template(2), [item('m1', 1), item('m2', 2)])).toEqual({
      observedGeneration: 2,
      replicas: 3,
      readyReplicas: 3,
      updatedReplicas: 3,
      availableReplicas: 3,
    });
  });

  it.each([
    ['a member has not observed its generation', [item('m1', 1, { observed: 1, generation: 2 })]],
    ['a member runs an older template', [item('m1', 1, { template: 1 })]],
    [
      'a cluster reported no status',
      [item('m1', 1), { clusterName: 'm2', applied: true, health: 'Unknown' } as const],
    ],
  ])('keeps the previous observedGeneration when %s', (_n, items) => {
    expect(aggregateDeploymentStatus(template(2, 1), items).observedGeneration).toBe(1);
  });

  it('reports nothing for nothing', () => {
    expect(aggregateDeploymentStatus(template(2), [])).toEqual({});
  });
});
