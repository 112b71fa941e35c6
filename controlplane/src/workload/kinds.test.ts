import { describe, expect, it } from 'vitest';
import { builtInKinds, isPropagatableType, isSkippedNamespace } from './kinds.ts';

describe('kinds', () => {
  it.each([
    ['apps/v1', 'Deployment', 'deployments', true],
    ['v1', 'ConfigMap', 'configmaps', true],
    ['rbac.authorization.k8s.io/v1', 'ClusterRole', 'clusterroles', false],
  ] as const)('resolves %s %s', (apiVersion, kind, plural, namespaced) => {
    expect(builtInKinds(apiVersion, kind)).toMatchObject({ plural, namespaced });
  });

  it('does not know custom kinds', () => {
    expect(builtInKinds('example.com/v1', 'Widget')).toBeUndefined();
  });

  it.each([
    ['work.karmada.io/v1alpha1', 'Work', false],
    ['v1', 'Event', false],
    ['coordination.k8s.io/v1', 'Lease', false],
    ['apps/v1', 'Deployment', true],
  ] as const)('%s %s propagatable: %s', (apiVersion, kind, ok) => {
    expect(isPropagatableType(apiVersion, kind)).toBe(ok);
  });

  it.each([
    ['default', false],
    ['kube-system', true],
    ['karmada-es-member1', true],
    ['karmada-system', true],
    ['kubeflow', false],
    [undefined, false],
  ] as const)('namespace %s skipped: %s', (ns, skipped) => {
    expect(isSkippedNamespace(ns)).toBe(skipped);
  });
});
