import { describe, expect, it } from 'vitest';
import type { ResourceTemplate } from '../template.ts';
import { formatMilli, podRequests, replicasOf } from './replicas.ts';

const deployment = (spec: Record<string, unknown>): ResourceTemplate => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'web', namespace: 'default' },
  spec,
});

describe('replicasOf', () => {
  it('reads replicas and summed requests of a Deployment', () => {
    const t = deployment({
      replicas: 3,
      template: {
        spec: {
          containers: [
            { name: 'a', resources: { requests: { cpu: '100m', memory: '64Mi' } } },
            { name: 'b', resources: { requests: { cpu: '250m' } } },
          ],
        },
      },
    });
    expect(replicasOf(t)).toEqual({
      replicas: 3,
      replicaRequirements: { resourceRequest: { cpu: '350m', memory: '67108864' }, namespace: 'default' },
    });
  });

  it('keeps node claims and the priority class', () => {
    const t = deployment({
      replicas: 1,
      template: {
        spec: {
          nodeSelector: { disk: 'ssd' },
          tolerations: [{ key: 'k', operator: 'Exists' }],
          priorityClassName: 'high',
          containers: [{ name: 'a' }],
        },
      },
    });
    expect(replicasOf(t).replicaRequirements).toEqual({
      nodeClaim: { nodeSelector: { disk: 'ssd' }, tolerations: [{ key: 'k', operator: 'Exists' }] },
      namespace: 'default',
      priorityClassName: 'high',
    });
  });

  it.each([
    ['a Deployment without replicas', deployment({}), 0],
    ['a ConfigMap', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' } }, 0],
  ])('%s has %d replicas and no requirements', (_n, t, replicas) => {
    expect(replicasOf(t)).toEqual({ replicas, replicaRequirements: undefined });
  });
});

describe('podRequests', () => {
  it('raises the sum to the largest init container', () => {
    expect(
      podRequests({
        containers: [{ resources: { requests: { cpu: '100m' } } }],
        initContainers: [{ resources: { requests: { cpu: '1' } } }],
      }),
    ).toEqual({ cpu: '1' });
  });

  it('is undefined when nothing is requested', () => {
    expect(podRequests({ containers: [{ name: 'a' }] })).toBeUndefined();
  });

  it.each([
    [1500, '1500m'],
    [2000, '2'],
    [0, '0'],
  ])('formats %d milli as %s', (m, q) => {
    expect(formatMilli(m)).toBe(q);
  });
});
