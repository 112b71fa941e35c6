import { describe, expect, it } from 'vitest';
import {
  clusterNameFromExecutionNamespace,
  executionNamespaceFor,
  isExecutionNamespace,
} from './execution-namespace.ts';

describe('execution namespaces', () => {
  it.each([
    ['member1', 'karmada-es-member1'],
    ['karmada-es-x', 'karmada-es-karmada-es-x'],
  ])('cluster %s ↔ namespace %s', (cluster, namespace) => {
    expect(executionNamespaceFor(cluster)).toBe(namespace);
    expect(clusterNameFromExecutionNamespace(namespace)).toBe(cluster);
    expect(isExecutionNamespace(namespace)).toBe(true);
  });

  it.each([['default'], ['karmada-es-'], ['karmada-system'], ['xkarmada-es-member1'], ['']])(
    '%j is not an execution namespace',
    (namespace) => {
      expect(clusterNameFromExecutionNamespace(namespace)).toBeUndefined();
      expect(isExecutionNamespace(namespace)).toBe(false);
    },
  );
});
